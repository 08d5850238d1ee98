package properties

import (
	"math"
	"os"

	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/train"
)

// longBudget reports whether IMPLICITBIAS_BUDGET=long is set: trajectory
// properties then train 10× longer (the asymptotic versions of the checks);
// `go test ./...` runs the quick budget.
func longBudget() bool { return os.Getenv("IMPLICITBIAS_BUDGET") == "long" }

// budgetSteps returns quick, or 10·quick under IMPLICITBIAS_BUDGET=long.
func budgetSteps(quick int) int {
	if longBudget() {
		return 10 * quick
	}
	return quick
}

// recordRun trains θ (in place) with opt for about steps steps and records
// windows of burst consecutive steps with θ kept, at checkpoints spaced by
// the factor growth in step number (1, growth, growth², …, steps), which is
// what the trajectory checks of section C read (theorems.Windows). Step and
// LogT of the records count from the start of the run. Between windows
// nothing is recorded.
func recordRun(obj *train.Objective, opt train.Optimizer, theta []float64, steps, burst int, growth float64) (*train.Trajectory, error) {
	out := &train.Trajectory{}
	done, logT := 0, math.Inf(-1)
	next := 1.0
	for {
		// A window of burst records: steps done … done+burst−1.
		tr, err := train.Run(obj, opt, theta, train.Config{Steps: burst - 1, KeepTheta: true})
		if tr != nil && out.Model == "" {
			out.Model, out.Loss, out.Optimizer, out.Degree = tr.Model, tr.Loss, tr.Optimizer, tr.Degree
		}
		if err != nil {
			return out, err
		}
		for _, r := range tr.Records {
			r.Step += done
			r.LogT = numerics.LogAddExp(logT, r.LogT)
			out.Records = append(out.Records, r)
		}
		logT = out.Records[len(out.Records)-1].LogT
		done += burst - 1
		if done >= steps {
			break
		}
		for next <= float64(done) {
			next *= growth
		}
		// A gap of at least 2 keeps windows apart (Windows joins records
		// with consecutive step numbers).
		gap := min(max(int(next)-done, 2), steps-done)
		if gap <= 0 {
			break
		}
		tr, err = train.Run(obj, opt, theta, train.Config{Steps: gap, Every: gap})
		if err != nil {
			return out, err
		}
		logT = numerics.LogAddExp(logT, tr.Final().LogT)
		done += gap
	}
	out.Steps = done
	out.Theta = append([]float64(nil), theta...)
	return out, nil
}

// DenseRun trains θ (in place) for steps steps and records a window of
// burst consecutive steps every every steps (θ kept): the dense recording
// of LL-C10.
func DenseRun(obj *train.Objective, opt train.Optimizer, theta []float64, steps, every, burst int) (*train.Trajectory, error) {
	out := &train.Trajectory{}
	done, logT := 0, math.Inf(-1)
	for done < steps {
		tr, err := train.Run(obj, opt, theta, train.Config{Steps: burst - 1, KeepTheta: true})
		if tr != nil && out.Model == "" {
			out.Model, out.Loss, out.Optimizer, out.Degree = tr.Model, tr.Loss, tr.Optimizer, tr.Degree
		}
		if err != nil {
			return out, err
		}
		for _, r := range tr.Records {
			r.Step += done
			r.LogT = numerics.LogAddExp(logT, r.LogT)
			out.Records = append(out.Records, r)
		}
		logT = out.Records[len(out.Records)-1].LogT
		done += burst - 1
		gap := max(every-(burst-1), 2)
		tr, err = train.Run(obj, opt, theta, train.Config{Steps: gap, Every: gap})
		if err != nil {
			return out, err
		}
		logT = numerics.LogAddExp(logT, tr.Final().LogT)
		done += gap
	}
	out.Steps = done
	out.Theta = append([]float64(nil), theta...)
	return out, nil
}

// LogRun trains θ (in place) for steps steps and records θ at steps
// growing by 1.2× (windows of one record).
func LogRun(obj *train.Objective, opt train.Optimizer, theta []float64, steps int) (*train.Trajectory, error) {
	return recordRun(obj, opt, theta, steps, 1, 1.2)
}
