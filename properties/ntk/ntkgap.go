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

// Kinds of ZD-T4/L5 sweeps.
const (
	GapClaim      = iota // ZD eq. (8)–(9), a GRW meeting Assumption 1
	GapGaussian          // Gaussian last layer (ZD App. E; docs/ntk.md, no entry): assumption-failed
	GapZeroWeight        // a GRW weight of 0 (Assumption 1's min q > 0 dropped)
)

// GapSweepCase is a ZD-T4/L5 case: activation, data and initialization
// seeds, the kind of network and GRW, and the engine fault planted in the
// runs (package faults; empty for the claims).
type GapSweepCase struct {
	Act        int // ActTanh, ActGELU (an index into ntkActs)
	Data, Init uint64
	Kind       int
	Fault      string
}

func (c GapSweepCase) WithFault(name string) any { c.Fault = name; return c }

// Run budgets of ZD-T4/L5. GD at η = 1/(q_max λ_max(Θ^{(0)})) interpolates
// the generated problems to a training risk of 1e-20 in a few hundred to a
// few thousand steps (rate 1 − η q_min λ_min per step with κ(Θ^{(0)}) ≲ 40
// and q_max/q_min ≤ 4). The linearization of a mean-field network has a
// kernel with λ_min ∝ 1/d̃ (its features are scaled by 1/d̃) and needs
// ~6·10⁴ steps at width 256; its steps cost O(n·d̃) (the zero last layer
// reduces the tangent pass to the output layer), so linearized runs get
// linStepsFactor times the budget. A run that hits its budget is reported
// inconclusive, never passed.
const (
	gapSteps       = 60000
	linStepsFactor = 10
	gapStopLog     = -46.0517 // log 1e-20
)

// Size is the sweep at the run budget: one hidden layer up to width 512
// (cheap: (d+2)·d̃ parameters) and three seeds for the quick budget, two
// hidden layers up to 4096 (16.8M parameters) and three seeds for the long
// one.
func (c GapSweepCase) Size(r *properties.Runner) (depth int, s sweepSize) {
	if (c.Kind != GapClaim || c.Fault != "") && r.Long() {
		// The controls stop at 1024 under the long budget: the Gaussian
		// sweep is assumption-failed whatever the sizes (the gaps are
		// measured anyway, docs/ntk.md; the full tangent pass of its
		// linearization, W^L ≠ 0, costs as much as the network's), the
		// zero weight's O(1) gap is flat from the smallest widths on, and
		// a fault is decided at the quick budget's widths already.
		return 2, sweepSize{widthsFrom(32, 1024), 3}
	}
	if r.Long() {
		return 2, sweepSize{widthsFrom(32, 4096), 3}
	}
	return 1, sweepSize{widthsFrom(32, 512), 3}
}

func (c GapSweepCase) spec(r *properties.Runner, w any) string {
	depth, _ := c.Size(r)
	s := ntkSpec(trainAct(r, c.Act), depth, w)
	if c.Kind == GapGaussian {
		s += ":gauss"
	}
	return s
}

// Describe describes the case at r's budget; it is also the key of the
// sweep cache, so it names everything the runs depend on.
func (c GapSweepCase) Describe(r *properties.Runner) string {
	_, s := c.Size(r)
	grw := "A1 schedule"
	if c.Kind == GapZeroWeight {
		grw = "A1 schedule with q_0 = 0, y_0 + 2"
	}
	return fmt.Sprintf("%s, %s vs ERM, widths %v, %d seeds, data seed %d, init seed %d", c.spec(r, "W"), grw, s.widths, s.seeds, c.Data, c.Init) + properties.FaultSuffix(c.Fault)
}

// GenGapSweep generates ZD-T4/L5 cases of a kind.
func GenGapSweep(kind int) properties.Gen[GapSweepCase] {
	return genSweep(func(act int, data, init uint64) GapSweepCase {
		return GapSweepCase{Act: act, Data: data, Init: init, Kind: kind}
	})
}

// Run trains the sweep (cached per case and budget: the figures reuse it).
func (c GapSweepCase) Run(r *properties.Runner) ([]ntkth.GapRun, error) {
	return properties.Cache[[]ntkth.GapRun](r, "gapRuns").Get(c.Describe(r)+"/"+r.Budget.String(), func() ([]ntkth.GapRun, error) { return c.run(r) })
}

func (c GapSweepCase) run(r *properties.Runner) ([]ntkth.GapRun, error) {
	_, s := c.Size(r)
	return c.sweep(r, s)
}

// sweep trains the jobs of sweep s (run: the budget's; the store's tests: a
// smaller one, the same path).
func (c GapSweepCase) sweep(r *properties.Runner, s sweepSize) ([]ntkth.GapRun, error) {
	job, err := c.jobs(r)
	if err != nil {
		return nil, err
	}
	return properties.SweepJobs(r, c, len(s.widths)*s.seeds, widestFirst(s, c.Init), job)
}

// jobs returns the function that trains one (width, seed) of the case,
// the probe (the narrowest width at the first seed) cached (probed).
func (c GapSweepCase) jobs(r *properties.Runner) (func(int, uint64) (ntkth.GapRun, error), error) {
	f, d, err := sweepInputs(c.Fault, c.Data, ntkTest, false)
	if err != nil {
		return nil, err
	}
	if c.Kind == GapZeroWeight {
		// The sample the GRW drops gets a target the others do not
		// predict (their interpolator's value there is O(1) off), so the
		// GRW limit is O(1) from ERM's for every data seed, not only for
		// those where dropping it happens to matter.
		d.train.Y[0] += 2
	}
	_, s := c.Size(r)
	return probed(r, c, "gapProbe", s.widths[0], c.Init, func(w int, seed uint64) (ntkth.GapRun, error) { return c.job(r, d, f, w, seed) }), nil
}

// job trains the four runs of one (width, seed): the network and its
// linearization, each by the A1 schedule and by ERM, with the same step,
// and follows each linearized run in function space (linProblem.path).
func (c GapSweepCase) job(r *properties.Runner, d ntkData, f faults.Fault, width int, seed uint64) (ntkth.GapRun, error) {
	spec := c.spec(r, width)
	st, err := newNTKStart(spec, f, d, width, seed)
	if err != nil {
		return ntkth.GapRun{}, err
	}
	net, theta0, lmax, gram, lin, lin0 := st.net, st.theta0, st.lmax, st.gram, st.lin, st.lin0
	run := ntkth.GapRun{Width: width, Seed: seed, LastLayerNorm: st.lastNorm, GramMin: st.lmin, GramMax: lmax}
	fstar, err := kernelInterpolator(net, theta0, gram, d)
	if err != nil {
		return run, err
	}
	lp := newLinProblem(net, theta0, gram, d)
	_, _, qmax := c.schedule()
	eta := 1 / (qmax * lmax)
	var ends [4][]float64
	var linRisk [2]float64
	var paths [2][][]float64 // the linearized GRW and ERM runs' computed paths
	run.Converged = true
	for k, pair := range [2]bool{true, false} {
		var tr [2]*ntkTrace
		var at func(int, []float64)
		for i, m := range []models.Model{net, lin} {
			var w train.Weighting
			if pair {
				s, _, _ := c.schedule()
				w, at = s, s.At
			}
			steps, start := gapSteps, theta0
			if i == 1 {
				steps, start = steps*linStepsFactor, lin0
			}
			if !pair && i == 0 {
				// ERM on the network: the run ZD-T6 trains too (networkERM;
				// the zero-weight control's data are its own).
				data := fmt.Sprintf("data seed %d", c.Data)
				if c.Kind == GapZeroWeight {
					data = ""
				}
				tr[i], err = networkERM(r, data, spec, width, seed, st, d, eta, f)
			} else {
				tr[i], err = ntkRun(m, start, d, runOpts{loss: losses.Squared{}, w: w, eta: eta, steps: steps, every: gapEvery, stopLog: gapStopLog, fault: f})
			}
			if err != nil {
				return run, fmt.Errorf("%s seed %d: %w", m, seed, err)
			}
			run.Converged = run.Converged && tr[i].steps < steps
			ends[2*k+i] = tr[i].at(len(tr[i].out))
			if i == 1 {
				linRisk[k] = tr[i].risk
			}
		}
		run.LinGap = math.Max(run.LinGap, supGap(tr[0].out, tr[1].out))
		paths[k] = lp.path(dSquared, at, eta, 0, tr[1].steps, gapEvery)
		run.LinPath.Err = math.Max(run.LinPath.Err, supGap(tr[1].out, paths[k]))
	}
	run.LinPath.Effect = supGap(paths[0], paths[1])
	run.GRWGap = maxAbsDiff(ends[0], ends[2])
	run.LinLimitGap = math.Max(maxAbsDiff(ends[1], fstar), maxAbsDiff(ends[3], fstar))
	run.LinRisk = math.Max(linRisk[0], linRisk[1])
	run.N = NTKN
	run.TestDiag = testDiag(net, theta0, d)
	return run, nil
}

// schedule is the GRW of the case's GRW runs: the A1 schedule, or for the
// control the same schedule with q_0 = 0 (min q > 0 of Assumption 1 fails,
// and ZD Thm 2's risk → 0 with it: the GRW runs leave sample 0 unfit and
// their limit stays O(1) from ERM's at every width).
func (c GapSweepCase) schedule() (s *train.Schedule, qmin, qmax float64) {
	s, qmin, qmax = a1Schedule(c.Data, NTKN)
	if c.Kind != GapZeroWeight {
		return s, qmin, qmax
	}
	at := s.At
	s.Kind = train.ScheduleScheme // A1 no more: q_0 = 0
	s.At = func(t int, q []float64) {
		at(t, q)
		q[0] = 0
	}
	// Dropping q_0 raises the others' share q_i/Σq to q_i/(Σq − q_0), by at
	// most 1/(1 − q_0/Σq) ≤ 9/5: the raw weights are in [1, 4], so
	// q_0/Σq ≤ 4/(4 + 5·1).
	return s, 0, qmax * 9 / 5
}

func (c GapSweepCase) check(r *properties.Runner) theorems.Verdict {
	job, err := c.jobs(r)
	_, s := c.Size(r)
	if v, ok := probeFirst(job, err, s.widths[0], c.Init, func(run ntkth.GapRun) (theorems.Verdict, bool) {
		return ntkth.ProbeApproximation([]ntkth.GapRun{run})
	}); ok {
		return v
	}
	runs, err := c.Run(r)
	if err != nil {
		return sweepFailed(err)
	}
	return ntkth.NTKApproximation(runs)
}

// networkERM trains the network's ERM run of a sweep job on the squared
// loss, η = 1/(q_max λ_max(Θ^{(0)})), to gapStopLog within gapSteps
// (ZD-T4/L5's ERM run, ZD-T6's f_ERM). For the same data and init seeds,
// network, width, fault and step the run is the same one, so it is trained
// once per runner and shared (issue 28: ZD-T4/L5's claim and ZD-T6's claim
// and control each trained it, 15 runs each at the quick budget). data
// names the training data ("" when the case alters the generated data:
// the run is then its own); the shared trace must not be modified.
func networkERM(r *properties.Runner, data string, spec string, width int, seed uint64, st ntkStart, d ntkData, eta float64, f faults.Fault) (*ntkTrace, error) {
	run := func() (*ntkTrace, error) {
		return ntkRun(st.net, st.theta0, d, runOpts{loss: losses.Squared{}, eta: eta, steps: gapSteps, every: gapEvery, stopLog: gapStopLog, fault: f})
	}
	if data == "" {
		return run()
	}
	key := fmt.Sprintf("%s/%s/width %d/seed %d/fault %q/η %x", data, spec, width, seed, f.Name, math.Float64bits(eta))
	return properties.Cache[*ntkTrace](r, "networkERM").GetKept(key, run)
}
