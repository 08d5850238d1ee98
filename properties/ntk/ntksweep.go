// The section-F sweeps (ZD §4–5, wide networks): the sizes and
// activations they share and the helpers of their linearized runs. Each
// case type has its file: ntkkernel.go (ZD-L3), ntkgap.go (ZD-T4/L5),
// ntkreg.go (ZD-T6), ntksign.go (ZD-T9).

package ntk

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/theorems"
	ntkth "github.com/implicitbias/implicitbias/theorems/ntk"
)

// ntkActs are the activations of the generated sweeps (ZD Assumption 2).
// The training sweeps use trainActs: GELU's exact σ (erfc and exp per
// unit) costs about three times tanh's, and the quick budget keeps to tanh.
var ntkActs = []models.Activation{models.ActTanh, models.ActGELU}

// Activations of the sweeps' cases (their Act, an index into ntkActs), for
// literal cases.
const (
	ActTanh = iota
	ActGELU
)

func trainAct(r *properties.Runner, i int) models.Activation {
	if r.Long() {
		return ntkActs[properties.Pick(i, len(ntkActs))]
	}
	return models.ActTanh
}

// sweepSize is the widths and seeds of a sweep at the run budget.
type sweepSize struct {
	widths []int
	seeds  int
}

func widthsFrom(lo, hi int) []int {
	var w []int
	for d := lo; d <= hi; d *= 2 {
		w = append(w, d)
	}
	return w
}

// kernelSize: ZD-L3 needs only forward passes at initialization, so it
// sweeps up to the long budget's widest network at both budgets' seeds.
func kernelSize(r *properties.Runner) sweepSize {
	if r.Long() {
		return sweepSize{widthsFrom(32, 4096), 128}
	}
	return sweepSize{widthsFrom(32, 1024), 32}
}

// linModel returns the linearization of net at θ₀ to train and its start:
// the output layer alone when W₀^L = 0 (models.Linearized.LastLayerOnly:
// the same trajectory without updating the p − d_L − 1 coordinates that
// never move), the whole θ otherwise.
func linModel(net *models.NTK, theta0 []float64) (models.Model, []float64, error) {
	lin, err := models.NewLinearized(net, theta0)
	if err != nil {
		return nil, nil, err
	}
	if last, err := lin.LastLayerOnly(); err == nil {
		return last, last.LastLayer0(), nil
	}
	return lin, theta0, nil
}

// kernelInterpolator returns f*(x) = f^{(0)}(x) + Θ^{(0)}(x, X)Θ^{(0)}(X, X)⁻¹
// (y − f^{(0)}(X)) on the test points: the limit of every GRW on the
// linearized network (ZD Cor. 15, the interpolator of ZD Thm 1 in the
// gradient features).
func kernelInterpolator(net *models.NTK, theta0, gram []float64, d ntkData) ([]float64, error) {
	n, m := d.train.N, d.m
	f0 := net.Forward(net.NewWorkspace(n), theta0, d.train.X, n)
	rhs := mat.NewVecDense(n, nil)
	for i := range f0 {
		rhs.SetVec(i, d.train.Y[i]-f0[i])
	}
	var ch mat.Cholesky
	if !ch.Factorize(symmetrized(gram, n)) {
		return nil, fmt.Errorf("NTK Gram matrix is not positive definite")
	}
	var coef mat.VecDense
	if err := ch.SolveVecTo(&coef, rhs); err != nil {
		return nil, err
	}
	k := make([]float64, m*n)
	net.Kernel(theta0, d.test, m, d.train.X, n, k)
	out := append([]float64(nil), net.Forward(net.NewWorkspace(m), theta0, d.test, m)...)
	for i := range out {
		for j := 0; j < n; j++ {
			out[i] += k[i*n+j] * coef.AtVec(j)
		}
	}
	return out, nil
}

// sweepFailed is the verdict of a sweep that did not run: inconclusive
// when other shards hold some of its jobs, assumption-failed (the case
// does not build) otherwise.
func sweepFailed(err error) theorems.Verdict {
	if errors.Is(err, properties.ErrSweepIncomplete) {
		return theorems.Undecided("%v", err)
	}
	return properties.BuildFailed(err)
}

// a1At is the weight function of the A1 schedule of a data seed.
func a1At(data uint64) func(int, []float64) {
	s, _, _ := a1Schedule(data, NTKN)
	return s.At
}

// regLinPath compares a regularized linearized run with its path computed
// in function space (linProblem.path) and measures the weights' effect:
// the sup distance between that path and the uniform weights' over the
// same steps.
func regLinPath(lp linProblem, tr *ntkTrace, dloss func(f, y float64) float64, at func(int, []float64), eta, mu float64) ntkth.LinPath {
	q := lp.path(dloss, at, eta, mu, tr.steps, gapEvery)
	u := lp.path(dloss, nil, eta, mu, tr.steps, gapEvery)
	return ntkth.LinPath{Err: supGap(tr.out, q), Effect: supGap(q, u)}
}

// testDiag returns max_x Θ^{(0)}(x, x) over the test points.
func testDiag(net *models.NTK, theta0 []float64, d ntkData) float64 {
	var m float64
	k := make([]float64, 1)
	for i := 0; i < d.m; i++ {
		x := d.test[i*NTKD : (i+1)*NTKD]
		net.Kernel(theta0, x, 1, x, 1, k)
		m = math.Max(m, k[0])
	}
	return m
}

// ntkStart is one (width, seed) of a training sweep at initialization: the
// network (with a network fault planted, buildNTK) at θ₀, the Gram matrix
// Θ^{(0)}(X, X) of the training inputs with its extreme eigenvalues, the
// linearization to train with its start (linModel), and ‖W^L(0)‖. The
// sweeps of ZD-T4/L5, ZD-T6 and ZD-T9 start every job from it.
type ntkStart struct {
	net        *models.NTK
	theta0     []float64
	lmin, lmax float64
	gram       []float64
	lin        models.Model
	lin0       []float64
	lastNorm   float64
}

// newNTKStart builds the network of spec and initializes it from (seed,
// width), as every sweep job does.
func newNTKStart(spec string, f faults.Fault, d ntkData, width int, seed uint64) (ntkStart, error) {
	net, err := buildNTK(spec, f)
	if err != nil {
		return ntkStart{}, err
	}
	s := ntkStart{net: net, theta0: make([]float64, net.NumParams())}
	net.Init(rand.New(rand.NewPCG(seed, uint64(width))), s.theta0)
	s.lmin, s.lmax, s.gram = gramEigen(net, s.theta0, d)
	if s.lin, s.lin0, err = linModel(net, s.theta0); err != nil {
		return ntkStart{}, err
	}
	wL, _ := net.Layer(s.theta0, net.Depth())
	s.lastNorm = floats.Norm(wL, 2)
	return s, nil
}

// widestFirst is the job order of a sweep of s: job j trains width
// widths[len−1−j/seeds] at seed init + j%seeds, so that the longest jobs
// do not start last.
func widestFirst(s sweepSize, init uint64) func(j int) (int, uint64) {
	return func(j int) (int, uint64) {
		return s.widths[len(s.widths)-1-j/s.seeds], init + uint64(j%s.seeds)
	}
}

// probed returns job with its result for (w0, seed0), the sweep's probe
// (ntkth.ProbeApproximation and its siblings: the narrowest width at the
// first seed, the cheapest job), cached in r under the case's description
// and budget: the case's check trains the probe first and stops there when
// it is violated, and the sweep, if it goes on, reuses it.
func probed[T any](r *properties.Runner, c interface {
	Describe(*properties.Runner) string
}, name string, w0 int, seed0 uint64, job func(int, uint64) (T, error)) func(int, uint64) (T, error) {
	key := c.Describe(r) + "/" + r.Budget.String()
	return func(w int, seed uint64) (T, error) {
		if w != w0 || seed != seed0 {
			return job(w, seed)
		}
		return properties.Cache[T](r, name).GetKept(key, func() (T, error) { return job(w, seed) })
	}
}

// probeFirst trains the probe of a case (job from its jobs method, with
// jobs' error err) and returns decide's verdict on it when it decides the
// sweep (ntkth.ProbeApproximation and its siblings: violated by one job);
// a job that fails leaves the error to the sweep.
func probeFirst[T any](job func(int, uint64) (T, error), err error, w0 int, seed0 uint64, decide func(T) (theorems.Verdict, bool)) (theorems.Verdict, bool) {
	if err != nil {
		return theorems.Verdict{}, false
	}
	v, err := job(w0, seed0)
	if err != nil {
		return theorems.Verdict{}, false
	}
	return decide(v)
}

// concat joins the runs of a sweep's jobs, in job order.
func concat[T any](jobs [][]T) []T {
	var all []T
	for _, o := range jobs {
		all = append(all, o...)
	}
	return all
}

// genSweep generates a sweep case from the draws every section-F case
// takes: an activation index (ntkActs), the data seed and the
// initialization seed, in that order.
func genSweep[C any](mk func(act int, data, init uint64) C) properties.Gen[C] {
	return properties.Gen[C](gopter.CombineGens(gen.IntRange(0, len(ntkActs)-1), gen.UInt64(), gen.UInt64()).Map(func(v []any) C {
		return mk(v[0].(int), v[1].(uint64), v[2].(uint64))
	}))
}

// sweepInputs looks up the fault a sweep plants and draws its data: ntkN
// training inputs of ℝ^ntkD and test test points from the data seed
// (makeNTKData), with ±1 labels when classify.
func sweepInputs(fault string, data uint64, test int, classify bool) (faults.Fault, ntkData, error) {
	f, err := faults.Lookup(fault)
	if err != nil {
		return faults.Fault{}, ntkData{}, err
	}
	return f, makeNTKData(data, NTKN, NTKD, test, classify), nil
}
