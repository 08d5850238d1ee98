package check

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/kkt"
)

// The gradient-descent premise on sparse records. A run recorded every K
// steps has no pair of consecutive records on which to check the step
// identity θ(t+1) = θ(t) − η∇𝓛(θ(t)) (kkt.DescentSteps). Each gap is
// then replayed: the engine takes the gap's k gradient steps from the
// first record with the recorded step size and compares where it lands
// with the next record,
//
//	e = ‖θ_engine(t+k) − θ_run(t+k)‖ ≤ bound = G·Σ_s tol_s,
//
// where tol_s is the step identity's rounding bound at replay step s
// (kkt.StepIdentityUlps: what two float64 implementations of the same
// step may differ by) and G ≥ 1 is how much the gap's map amplifies a
// rounding-size difference: the largest singular value of its
// linearization (the propagation of a difference made at the first step,
// the one amplified longest, in the direction amplified most), by power
// iteration (amplification.go). A gap whose bound is not below ‖θ(t+k) − θ(t)‖ cannot tell the
// run's step from another (chaotic gaps, or a ReLU kink that a rounding-size
// change flips: the two replays then part by a whole unit's contribution)
// and is not counted: undecided. A momentum, Adam, weight-decay or
// mini-batch run misses by a fraction of the move itself. Cost: one
// gradient evaluation per replayed step and 2 per step and power iteration
// (2 to 8 iterations, amplification.go), O(steps × samples × parameters).

// gapCheck is the result of replaying the gaps.
type gapCheck struct {
	gaps, undecided int
	steps           int // steps replayed
	worst           float64
	at, length      int
	grow            float64 // G at the worst gap
}

// replayGaps replays every gap of ≥ 2 steps between records after t₀ (both
// separated, as kkt.DescentSteps checks pairs) and returns the premise's
// verdict from them.
func (r *recorded) replayGaps() theorems.Verdict {
	var idx []int
	for i := 0; i+1 < len(r.tr.Records); i++ {
		a, b := r.tr.Records[i], r.tr.Records[i+1]
		if b.Step-a.Step >= 2 && a.Separated && b.Separated {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return theorems.Undecided("no gap after separation to replay")
	}
	type gap struct {
		ratio, grow float64
		decided     bool
		err         error
	}
	res := eachRecord(r, idx, func(w *recorded, i int) gap {
		ratio, grow, decided, err := w.replayGap(i)
		return gap{ratio, grow, decided, err}
	})
	c := gapCheck{}
	for k, g := range res {
		i := idx[k]
		if g.err != nil {
			return theorems.Undecided("replaying the gap from step %d: %v", r.t.Steps[i], g.err)
		}
		c.steps += r.t.Steps[i+1] - r.t.Steps[i]
		if !g.decided {
			c.undecided++
			continue
		}
		c.gaps++
		if g.ratio > c.worst || c.gaps == 1 {
			c.worst, c.at, c.length, c.grow = g.ratio, r.t.Steps[i], r.t.Steps[i+1]-r.t.Steps[i], g.grow
		}
	}
	switch {
	case c.gaps == 0:
		return theorems.Undecided("%d gaps replayed, none decidable: a rounding-size change moves the replay as far as the run moved (a ReLU kink flipped or a chaotic gap); record two consecutive steps (t, t+1) somewhere after separation", c.undecided)
	case c.worst > 1:
		return theorems.Verdict{Status: theorems.Violated, Statistic: c.worst, Bound: 1, Detail: fmt.Sprintf(
			"the %d steps from step %d do not reach the next record: the engine's gradient descent from it, with the recorded lr, lands %.3g times the replay's rounding bound away (amplification G = %.3g over the gap)",
			c.length, c.at, c.worst, c.grow)}
	}
	return theorems.Verdict{Status: theorems.Holds, Statistic: c.worst, Bound: 1, Detail: fmt.Sprintf(
		"%d gaps (%d steps) replayed by the engine from each record land on the next to %.2g of the replay's rounding bound (worst: the %d steps from step %d, G = %.3g)%s",
		c.gaps, c.steps, c.worst, c.length, c.at, c.grow, undecidedNote(c.undecided))}
}

func undecidedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d gaps too sensitive to decide (a rounding-size change moved the replay as far as the run)", n)
}

// replayGap replays the gap from record i to i+1 and returns e/bound, G,
// and whether the gap is decidable (bound < ‖θ(t+k) − θ(t)‖).
func (r *recorded) replayGap(i int) (ratio, grow float64, decided bool, err error) {
	const u = 0x1p-53
	a, b := r.tr.Records[i], r.tr.Records[i+1]
	logEta := b.LogEta
	step := func(th []float64) (tol float64, err error) {
		ev, err := r.obj.Evaluate(th, true)
		if err != nil {
			return 0, err
		}
		c := math.Exp(logEta + ev.LogObjective)
		n0 := floats.Norm(th, 2)
		g := c * floats.Norm(ev.Dir, 2)
		floats.AddScaled(th, -c, ev.Dir)
		tol = kkt.StepIdentityUlps * u * (n0 + floats.Norm(th, 2) + (4+math.Abs(logEta)+2*math.Abs(ev.LogObjective))*g)
		return tol, nil
	}
	path, err := newGapPath(step, a.Theta, b.Step-a.Step, gapPathFloats)
	if err != nil {
		return 0, 0, false, err
	}
	sigma, _, err := path.amplification()
	if err != nil {
		return 0, 0, false, err
	}
	grow = math.Max(1, sigma)
	if math.IsNaN(sigma) {
		grow = sigma
	}
	bound := grow * path.tols
	d := make([]float64, len(a.Theta))
	floats.SubTo(d, path.end(), b.Theta)
	e := floats.Norm(d, 2)
	floats.SubTo(d, b.Theta, a.Theta)
	move := floats.Norm(d, 2)
	return e / bound, grow, bound < move, nil
}
