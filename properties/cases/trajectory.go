package cases

import (
	"github.com/implicitbias/implicitbias/train"
)

// RecordRun trains θ (in place) with opt for about steps steps and records
// windows of burst consecutive steps with θ kept at steps 1, growth,
// growth², … (train.RunWindows), which is what the trajectory checks of
// section C read (kkt.Windows).
func RecordRun(obj *train.Objective, opt train.Optimizer, theta []float64, steps, burst int, growth float64) (*train.Trajectory, error) {
	return RecordRunUntil(obj, opt, theta, steps, burst, growth, nil)
}

// DenseRun trains θ (in place) for steps steps and records a window of
// burst consecutive steps every every steps (θ kept): the dense recording
// of LL-C10.
func DenseRun(obj *train.Objective, opt train.Optimizer, theta []float64, steps, every, burst int) (*train.Trajectory, error) {
	return train.RunWindows(obj, opt, theta, train.WindowPlan{Steps: steps, Burst: burst, Every: every})
}

// LogRun trains θ (in place) for steps steps and records θ at steps
// growing by 1.2× (windows of one record).
func LogRun(obj *train.Objective, opt train.Optimizer, theta []float64, steps int) (*train.Trajectory, error) {
	return RecordRun(obj, opt, theta, steps, 1, 1.2)
}

// Tolerance of the monotonicity flows: relative and absolute local error
// per coordinate. At 1e-10 the summed error bound of log γ̃ stays orders of
// magnitude below its growth on the generated cases (the check measures
// this and is inconclusive otherwise).
const FlowTol = 1e-10
