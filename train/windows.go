package train

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/numerics"
)

// WindowPlan says where RunWindows records: windows of Burst consecutive
// steps with θ kept (Record.Theta), the first at step 0 and the next ones
// at steps growing geometrically by Growth (> 1), or every Every steps when
// Growth is 0. Between windows nothing is recorded. Windows of consecutive
// steps are what the KKT checks of section C average over (a gradient-descent
// iterate on a ReLU network sits on one side of a kink; a window sees both).
type WindowPlan struct {
	Steps  int
	Burst  int // ≥ 1; 1 records single steps
	Growth float64
	Every  int
	// Stop, when not nil, is asked after each window with the run so far
	// (windowstop.go); true ends the run there.
	Stop func(*Trajectory) bool
}

// RunWindows trains θ (in place) with opt for plan.Steps steps (or up to
// Burst − 1 more, to finish the last window) and records windows as the
// plan says. Records' Step and LogT count from the start of the run, and
// LogEta is the step that led to each (a window's first record: the gap's
// last step); two windows are at least two steps apart, so consecutive
// step numbers always mean the same window.
func RunWindows(obj *Objective, opt Optimizer, theta []float64, plan WindowPlan) (*Trajectory, error) {
	if plan.Burst < 1 {
		return nil, fmt.Errorf("train: window burst must be ≥ 1, got %d", plan.Burst)
	}
	if plan.Steps < 0 {
		return nil, fmt.Errorf("train: steps must be ≥ 0, got %d", plan.Steps)
	}
	if !(plan.Growth > 1) && plan.Every < 1 {
		return nil, fmt.Errorf("train: window plan needs Growth > 1 or Every ≥ 1")
	}
	out := &Trajectory{}
	done, logT := 0, math.Inf(-1)
	next := 1.0
	gapEta := math.Inf(-1)
	for {
		tr, err := Run(obj, opt, theta, Config{Steps: plan.Burst - 1, KeepTheta: true})
		if tr != nil && out.Model == "" {
			out.Model, out.Loss, out.Step, out.Degree = tr.Model, tr.Loss, tr.Step, tr.Degree
		}
		if err != nil {
			return out, &StepError{Step: done, Err: err}
		}
		for i, r := range tr.Records {
			if i == 0 && done > 0 {
				r.LogEta = gapEta // the step that led here is the gap's last
			}
			r.Step += done
			r.LogT = numerics.LogAddExp(logT, r.LogT)
			out.Records = append(out.Records, r)
		}
		logT = out.Records[len(out.Records)-1].LogT
		done += plan.Burst - 1
		if done >= plan.Steps || plan.stopped(out, done) {
			break
		}
		var gap int
		if plan.Growth > 1 {
			for next <= float64(done) {
				next *= plan.Growth
			}
			gap = int(next) - done
		} else {
			gap = plan.Every - (plan.Burst - 1)
		}
		gap = min(max(gap, 2), plan.Steps-done)
		if gap <= 0 {
			break
		}
		tr, err = Run(obj, opt, theta, Config{Steps: gap, Every: gap})
		if err != nil {
			return out, &StepError{Step: done, Err: err}
		}
		logT = numerics.LogAddExp(logT, tr.Final().LogT)
		gapEta = tr.Final().LogEta
		done += gap
	}
	out.Steps = done
	out.Theta = append([]float64(nil), theta...)
	return out, nil
}
