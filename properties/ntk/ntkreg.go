package ntk

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/theorems"
	ntkth "github.com/implicitbias/implicitbias/theorems/ntk"
	"github.com/implicitbias/implicitbias/train"
)

// ZD-T6's grid and budgets. μ = C·q_min·λ_min(Θ^{(0)}) for C in
// regGrid: the linearized limit's residual is then
// r_μ = μ(ΘQ + μI)⁻¹r₀ (push-through form), with ‖r_μ‖ ≤ C/(1 + C)·
// √(q_max/q_min)·‖r₀‖ by Prop. 17, so its risk is at most a fraction
// C²/(1+C)²·4 of R̂(θ₀): ≤ 0.11 R̂(θ₀) for C = 0.2 and ≤ 0.44 R̂(θ₀) for
// C = 0.5.
// These are loose: the measured risks are far smaller, within the
// budget ε = regRiskShare·(1/n)Σ½y_i² that the runs are checked against (not
// assumed). The control's μ = regLarge·q_max·λ_max leaves a residual of
// at least 100/101 of r₀ in every direction: a risk near R̂(θ₀).
var regGrid = []float64{0.2, 0.5}

const (
	regRiskShare = 0.05
	regLarge     = 100.0
	// regSteps caps the regularized runs, which stop once their test
	// outputs have at most regSettle left to move (drift, by geometric
	// extrapolation over 2×settleWindow records): GD on the regularized
	// objective contracts the network's directions outside the gradients'
	// span only at rate ημ ≈ C/(4κ(Θ)) per step, 1e-3 … 1e-2 here. The
	// check compares the final drift with the gaps (ntk.DriftShare).
	regSteps  = 60000
	regSettle = 1e-5
)

// regStepCap is regSteps at the quick budget and ten times as many at the
// long one: a width-32 run of the long sweep (two hidden layers, where
// λ_min(Θ^{(0)}) and with it μ are smallest) still had 0.64 to move after
// 60000 steps (inconclusive), while every run of width ≥ 512 had settled.
// A run that settles stops there, so the cap changes no settled run.
func regStepCap(r *properties.Runner) int {
	if r.Long() {
		return 10 * regSteps
	}
	return regSteps
}

// RegSweepCase is a ZD-T6 case; Large (the control) uses μ =
// regLarge·q_max·λ_max.
type RegSweepCase struct {
	Act        int
	Data, Init uint64
	Large      bool
	Fault      string // an engine fault planted in the runs (package faults)
}

func (c RegSweepCase) WithFault(name string) any { c.Fault = name; return c }

func (c RegSweepCase) size(r *properties.Runner) (depth int, s sweepSize) {
	if r.Long() {
		return 2, sweepSize{widthsFrom(32, 1024), 3}
	}
	return 1, sweepSize{widthsFrom(32, 512), 3}
}

func (c RegSweepCase) spec(r *properties.Runner, w any) string {
	depth, _ := c.size(r)
	return ntkSpec(trainAct(r, c.Act), depth, w)
}

func (c RegSweepCase) grid(r *properties.Runner) []float64 {
	if c.Large {
		return []float64{regLarge}
	}
	return regGrid
}

// Describe describes the case at r's budget (and keys the sweep cache).
func (c RegSweepCase) Describe(r *properties.Runner) string {
	_, s := c.size(r)
	mu := fmt.Sprintf("μ = %v·q_min λ_min", c.grid(r))
	if c.Large {
		mu = fmt.Sprintf("μ = %g·q_max λ_max", regLarge)
	}
	return fmt.Sprintf("%s, A1 schedule + (μ/2)‖θ − θ₀‖², %s, vs ERM, widths %v, %d seeds, data seed %d, init seed %d", c.spec(r, "W"), mu, s.widths, s.seeds, c.Data, c.Init) + properties.FaultSuffix(c.Fault)
}

// GenRegSweep generates ZD-T6 cases.
func GenRegSweep(large bool) properties.Gen[RegSweepCase] {
	return genSweep(func(act int, data, init uint64) RegSweepCase {
		return RegSweepCase{Act: act, Data: data, Init: init, Large: large}
	})
}

// Run trains the sweep (cached per case and budget).
func (c RegSweepCase) Run(r *properties.Runner) ([]ntkth.RegRun, error) {
	return properties.Cache[[]ntkth.RegRun](r, "regRuns").Get(c.Describe(r)+"/"+r.Budget.String(), func() ([]ntkth.RegRun, error) { return c.run(r) })
}

func (c RegSweepCase) run(r *properties.Runner) ([]ntkth.RegRun, error) {
	_, s := c.size(r)
	job, err := c.jobs(r)
	if err != nil {
		return nil, err
	}
	out, err := properties.SweepJobs(r, c, len(s.widths)*s.seeds, widestFirst(s, c.Init), job)
	return concat(out), err
}

// jobs returns the function that trains one (width, seed) of the case,
// the probe (the narrowest width at the first seed) cached (probed).
func (c RegSweepCase) jobs(r *properties.Runner) (func(int, uint64) ([]ntkth.RegRun, error), error) {
	f, d, err := sweepInputs(c.Fault, c.Data, ntkTest, false)
	if err != nil {
		return nil, err
	}
	_, s := c.size(r)
	return probed(r, c, "regProbe", s.widths[0], c.Init, func(w int, seed uint64) ([]ntkth.RegRun, error) { return c.job(r, d, f, w, seed) }), nil
}

// job trains one (width, seed): ERM to interpolation, then for each μ of
// the grid the regularized network and its linearization.
func (c RegSweepCase) job(r *properties.Runner, d ntkData, f faults.Fault, width int, seed uint64) ([]ntkth.RegRun, error) {
	spec := c.spec(r, width)
	st, err := newNTKStart(spec, f, d, width, seed)
	if err != nil {
		return nil, err
	}
	net, theta0, lmin, lmax, gram, lin, lin0 := st.net, st.theta0, st.lmin, st.lmax, st.gram, st.lin, st.lin0
	fstar, err := kernelInterpolator(net, theta0, gram, d)
	if err != nil {
		return nil, err
	}
	base := ntkth.RegRun{Width: width, Seed: seed, LastLayerNorm: st.lastNorm, GramMin: lmin, GramMax: lmax,
		TestDiag: testDiag(net, theta0, d), N: NTKN}
	_, qmin, qmax := a1Schedule(c.Data, NTKN)
	erm, err := networkERM(r, fmt.Sprintf("data seed %d", c.Data), spec, width, seed, st, d, 1/(qmax*lmax), f)
	if err != nil {
		return nil, err
	}
	base.Converged = erm.steps < gapSteps
	fERM := erm.at(len(erm.out))
	base.ERMGap = maxAbsDiff(fERM, fstar)
	lp := newLinProblem(net, theta0, gram, d)
	var out []ntkth.RegRun
	for _, g := range c.grid(r) {
		run := base
		run.C, run.Mu = g, g*qmin*lmin
		if c.Large {
			run.Mu = g * qmax * lmax
		}
		eta := 1 / (qmax*lmax + run.Mu)
		var tr [2]*ntkTrace
		for i, m := range []models.Model{net, lin} {
			w, _, _ := a1Schedule(c.Data, NTKN)
			start := theta0
			if i == 1 {
				start = lin0
			}
			reg := train.L2{Mu: run.Mu, Theta0: start}
			if tr[i], err = ntkRun(m, start, d, runOpts{loss: losses.Squared{}, w: w, reg: reg, eta: eta, steps: regStepCap(r), every: gapEvery, settle: regSettle, fault: f}); err != nil {
				return nil, fmt.Errorf("%s seed %d μ %g: %w", m, seed, run.Mu, err)
			}
		}
		run.LinPath = regLinPath(lp, tr[1], dSquared, a1At(c.Data), eta, run.Mu)
		for t := 0; t < len(tr[0].out); t++ {
			run.ApproxGap = math.Max(run.ApproxGap, maxAbsDiff(tr[0].at(t), tr[1].at(t)))
		}
		K := len(tr[0].out) - 1
		fReg := tr[0].at(K)
		run.RegGap = maxAbsDiff(fReg, fERM)
		run.LinRegGap = maxAbsDiff(tr[1].at(K), fstar)
		run.Risk, run.LinRisk = tr[0].risk, tr[1].risk
		run.Drift = drift(tr[0].out, settleWindow)
		out = append(out, run)
	}
	return out, nil
}

// RiskBudget is ε = regRiskShare·(1/n)Σ½y_i², a share of the risk of the
// zero predictor (f^{(0)} = βb^L is within β|b^L| of it).
func (c RegSweepCase) RiskBudget() float64 {
	d := makeNTKData(c.Data, NTKN, NTKD, ntkTest, false)
	var s float64
	for _, y := range d.train.Y {
		s += 0.5 * y * y
	}
	return regRiskShare * s / float64(d.train.N)
}

func (c RegSweepCase) check(r *properties.Runner) theorems.Verdict {
	job, err := c.jobs(r)
	_, s := c.size(r)
	if v, ok := probeFirst(job, err, s.widths[0], c.Init, func(runs []ntkth.RegRun) (theorems.Verdict, bool) {
		return ntkth.ProbeRegularized(runs, c.RiskBudget())
	}); ok {
		return v
	}
	runs, err := c.Run(r)
	if err != nil {
		return sweepFailed(err)
	}
	return ntkth.RegularizedWidthGap(runs, c.RiskBudget())
}
