package ntk

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/train"
)

// Wide networks in the NTK regime (catalog section F): the data, the GRW
// schedule and the runs that the width sweeps of ZD-T4/L5, ZD-T6 and ZD-T9
// are made of. A sweep is a set of independent runs, one per (width, seed),
// that run concurrently (runParallel): each is deterministic for its seed
// and the linalg kernels give the same bits whatever the number of threads,
// so a sweep's results do not depend on GOMAXPROCS.

// ntkData is a problem of ZD §4.2: n training inputs on the unit sphere of
// ℝ^d (ZD's proofs take ‖x_i‖ ≤ 1), targets, and m test points uniform in
// the unit ball (the theorems bound the gaps on ‖x‖ ≤ 1).
type ntkData struct {
	train *dataset.Dataset
	test  []float64
	m     int
}

// makeNTKData draws the problem of a seed. Regression targets are
// y = sin(2⟨a, x⟩) + ⟨b, x⟩ for random unit a, b (smooth, O(1)); labels
// for classification are the signs of the same teacher, redrawn until every
// training input has |teacher| ≥ 0.1 (so the data are separable by the
// teacher with a margin).
func makeNTKData(seed uint64, n, d, m int, classify bool) ntkData {
	r := rand.New(rand.NewPCG(seed, 0x4e544b))
	a, b := numerics.RandomUnit(r, d), numerics.RandomUnit(r, d)
	teacher := func(x []float64) float64 { return math.Sin(2*floats.Dot(a, x)) + floats.Dot(b, x) }
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for {
			copy(x[i*d:], numerics.RandomUnit(r, d))
			t := teacher(x[i*d : (i+1)*d])
			if !classify {
				y[i] = t
				break
			}
			if math.Abs(t) >= 0.1 {
				y[i] = math.Copysign(1, t)
				break
			}
		}
	}
	test := make([]float64, m*d)
	for i := 0; i < m; i++ {
		u := numerics.RandomUnit(r, d)
		// Uniform in the ball: radius U^{1/d}.
		floats.Scale(math.Pow(r.Float64(), 1/float64(d)), u)
		copy(test[i*d:], u)
	}
	return ntkData{train: &dataset.Dataset{N: n, D: d, X: x, Y: y}, test: test, m: m}
}

// a1Schedule is a dynamic GRW meeting ZD Assumption 1: q^{(t)} ∝
// q^∞ + (q⁰ − q^∞)·r^t with q⁰_i, q^∞_i drawn from [1, 4] (so min q > 0
// and the limit is far from uniform), r = 0.995. Its weights do not depend
// on the losses, so the network and its linearization see the same q^{(t)}
// (as ZD Lemma 5 asks). qmin and qmax are inf_t min_i q_i^{(t)} and
// sup_t max_i q_i^{(t)}.
func a1Schedule(seed uint64, n int) (s *train.Schedule, qmin, qmax float64) {
	r := rand.New(rand.NewPCG(seed, 0x4131))
	q0, qInf := make([]float64, n), make([]float64, n)
	for i := range q0 {
		q0[i], qInf[i] = 1+3*r.Float64(), 1+3*r.Float64()
	}
	const rate = 0.995
	at := func(t int, q []float64) {
		f := math.Pow(rate, float64(t))
		for i := range q {
			q[i] = qInf[i] + (q0[i]-qInf[i])*f
		}
	}
	// q_i^{(t)} and Σq are affine in f = r^t, so q_i/Σq is monotone in f
	// and its extremes are at t = 0 or t → ∞.
	qmin = math.Min(floats.Min(q0)/floats.Sum(q0), floats.Min(qInf)/floats.Sum(qInf))
	qmax = math.Max(floats.Max(q0)/floats.Sum(q0), floats.Max(qInf)/floats.Sum(qInf))
	return &train.Schedule{Kind: train.ScheduleA1, At: at}, qmin, qmax
}

// ntkTrace is the record of one training run: the outputs on the test
// points every `every` steps (row k is step k·every) and at the last step,
// and the end state.
type ntkTrace struct {
	out   [][]float64
	theta []float64
	risk  float64 // final ERM training risk (1/n)Σ ℓ(f(x_i), y_i)
	steps int
	// settled reports that the run ended by runOpts.settle.
	settled bool
}

// at returns the test outputs at record k, the last one past the end (a
// run that stopped early has converged and stays there).
func (t *ntkTrace) at(k int) []float64 { return t.out[min(k, len(t.out)-1)] }

// runOpts say how ntkRun trains.
type runOpts struct {
	loss    losses.Loss
	w       train.Weighting // nil: ERM
	reg     train.Regularizer
	eta     float64
	steps   int     // at most
	every   int     // records of the test outputs
	stopLog float64 // stop once log 𝓛 ≤ stopLog (0: never)
	// settle, when > 0, stops the run once drift(out, settleWindow) ≤
	// settle: its test outputs have (by geometric extrapolation) at most
	// settle left to move.
	settle float64
	// fault is the engine fault planted in the run (package faults): in
	// the objective's weights or regularizer, the loss, the optimizer, or
	// the model's passes. A fault of the NTK network itself is planted
	// where the network is built (buildNTK), not here.
	fault faults.Fault
}

// settleWindow is the window of the settle test, in records.
const settleWindow = 50

var errSettled = errors.New("settled")

// ntkRun trains model m from θ₀ by GD and records the test outputs.
func ntkRun(m models.Model, theta0 []float64, d ntkData, o runOpts) (*ntkTrace, error) {
	trained := m
	if fm := o.fault.Model(m); !isNTK(fm) {
		trained = fm
	}
	obj, err := train.NewObjective(trained, o.fault.Loss(o.loss), d.train)
	if err != nil {
		return nil, err
	}
	obj.Reg = o.reg
	o.fault.Objective(obj)
	w := o.w
	if w == nil {
		w = &train.ERM{}
	}
	gd, err := train.NewGD(o.eta)
	if err != nil {
		return nil, err
	}
	opt := o.fault.Optimizer(gd)
	ws := m.NewWorkspace(d.m)
	tr := &ntkTrace{}
	theta := append([]float64(nil), theta0...)
	every := o.every
	_, err = train.Run(obj, opt, theta, train.Config{
		Steps: o.steps, Every: every, StopLogLoss: o.stopLog, Weighting: w,
		Observe: func(r *train.Record, th []float64, _ *train.Eval) error {
			tr.steps = r.Step
			if r.Step%every == 0 {
				tr.out = append(tr.out, append([]float64(nil), m.Forward(ws, th, d.test, d.m)...))
				if o.settle > 0 && drift(tr.out, settleWindow) <= o.settle {
					return errSettled
				}
			}
			return nil
		},
	})
	tr.settled = errors.Is(err, errSettled)
	if err != nil && !tr.settled {
		return nil, err
	}
	if tr.steps%every != 0 {
		// The last state (the run stopped between two records).
		tr.out = append(tr.out, append([]float64(nil), m.Forward(ws, theta, d.test, d.m)...))
	}
	tr.theta = theta
	tr.risk = ermRisk(m, theta, d, o.loss)
	return tr, nil
}

func isNTK(m models.Model) bool {
	_, ok := m.(*models.NTK)
	return ok
}

// buildNTK parses the network spec for inputs of ℝ^ntkD and plants a fault
// of the network itself: one whose Model maps an *models.NTK to another
// (a wrong layer factor). The kernel, the linearization and the runs are
// then all the faulty network's, as they would be in an engine with the
// bug; the other faults act in ntkRun.
func buildNTK(spec string, f faults.Fault) (*models.NTK, error) {
	net, err := models.ParseNTK(spec, NTKD)
	if err != nil {
		return nil, err
	}
	if g, ok := f.Model(net).(*models.NTK); ok {
		net = g
	}
	return net, nil
}

// ermRisk is the unweighted empirical risk (1/n)Σ_i ℓ(f(x_i), y_i).
func ermRisk(m models.Model, theta []float64, d ntkData, l losses.Loss) float64 {
	out := m.Forward(m.NewWorkspace(d.train.N), theta, d.train.X, d.train.N)
	var s float64
	for i, v := range out {
		s += math.Exp(l.LogLoss([]float64{v}, d.train.Y[i]))
	}
	return s / float64(d.train.N)
}

// gramEigen returns the extreme eigenvalues of the NTK Gram matrix
// Θ^{(0)}(X, X) and the matrix itself.
func gramEigen(net *models.NTK, theta0 []float64, d ntkData) (lmin, lmax float64, k []float64) {
	n := d.train.N
	k = make([]float64, n*n)
	net.Kernel(theta0, d.train.X, n, d.train.X, n, k)
	var es mat.EigenSym
	if !es.Factorize(symmetrized(k, n), false) {
		return math.NaN(), math.NaN(), k
	}
	v := es.Values(nil)
	return floats.Min(v), floats.Max(v), k
}

// maxAbsDiff returns max_i |a_i − b_i|.
func maxAbsDiff(a, b []float64) float64 {
	var m float64
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// ntkSpec is the spec of depth hidden layers of the given width (an int,
// or "W" in descriptions).
func ntkSpec(act models.Activation, depth int, width any) string {
	return fmt.Sprintf("ntk:%s:%dx%v", act, depth, width)
}

// linProblem is the linearized network of one (width, seed) in function
// space: with K = Θ^{(0)} (net.Kernel, not the training passes), the
// outputs f^{(0)} at θ₀ on the training inputs X and the test points Z,
// and the targets.
type linProblem struct {
	n, m     int
	kxx, kzx []float64 // K(X, X) n×n, K(Z, X) m×n, row-major
	f0x, f0z []float64
	y        []float64
}

func newLinProblem(net *models.NTK, theta0, gram []float64, d ntkData) linProblem {
	n, m := d.train.N, d.m
	p := linProblem{n: n, m: m, kxx: gram, kzx: make([]float64, m*n), y: d.train.Y}
	net.Kernel(theta0, d.test, m, d.train.X, n, p.kzx)
	p.f0x = append([]float64(nil), net.Forward(net.NewWorkspace(n), theta0, d.train.X, n)...)
	p.f0z = append([]float64(nil), net.Forward(net.NewWorkspace(m), theta0, d.test, m)...)
	return p
}

// Derivatives ∂ℓ/∂f of the two losses of section F, written out here so
// that the path does not share the engine's loss code.
func dSquared(f, y float64) float64  { return f - y }
func dLogistic(f, y float64) float64 { return -y / (1 + math.Exp(y*f)) }

// path is GD on the linearized network (ZD eq. 11) computed in function
// space, without the engine's objective, weights, regularizer or
// optimizer: the step Δθ = −η(Σ_i q_i^{(t)} ℓ′(f_t(x_i); y_i)∇f^{(0)}(x_i) +
// μ(θ − θ₀)) moves every output f(x) = f^{(0)}(x) + ⟨θ − θ₀, ∇f^{(0)}(x)⟩ by
//
//	f_{t+1}(x) = f_t(x) − η(Σ_i K(x, x_i) q_i^{(t)} ℓ′(f_t(x_i); y_i) + μ(f_t(x) − f^{(0)}(x))),
//
// exactly. q^{(t)} is at(t)/Σat(t) (nil: ERM, q_i = 1/n), as train.Run
// applies it at step t. It returns the test outputs at the steps the
// engine's trace records for a run of the given number of steps: every
// `every` steps and the last.
func (p linProblem) path(dloss func(f, y float64) float64, at func(t int, q []float64), eta, mu float64, steps, every int) [][]float64 {
	fx := append([]float64(nil), p.f0x...)
	fz := append([]float64(nil), p.f0z...)
	q, g := make([]float64, p.n), make([]float64, p.n)
	var out [][]float64
	for t := 0; ; t++ {
		if t%every == 0 || t == steps {
			out = append(out, append([]float64(nil), fz...))
		}
		if t == steps {
			return out
		}
		if at == nil {
			for i := range q {
				q[i] = 1 / float64(p.n)
			}
		} else {
			at(t, q)
			var s float64
			for _, v := range q {
				s += v
			}
			for i := range q {
				q[i] /= s
			}
		}
		for i := range g {
			g[i] = q[i] * dloss(fx[i], p.y[i])
		}
		// Both updates read f_t: the training outputs are written after
		// the test outputs' increments are formed from g.
		for i := range fz {
			var s float64
			for j, v := range g {
				s += p.kzx[i*p.n+j] * v
			}
			fz[i] -= eta * (s + mu*(fz[i]-p.f0z[i]))
		}
		for i := range fx {
			var s float64
			for j, v := range g {
				s += p.kxx[i*p.n+j] * v
			}
			fx[i] -= eta * (s + mu*(fx[i]-p.f0x[i]))
		}
	}
}

// supGap is sup_k max_x |a_k(x) − b_k(x)| over the records of two traces
// (the shorter one stays at its last record: its run had stopped).
func supGap(a, b [][]float64) float64 {
	var s float64
	for k := 0; k < max(len(a), len(b)); k++ {
		s = math.Max(s, maxAbsDiff(a[min(k, len(a)-1)], b[min(k, len(b)-1)]))
	}
	return s
}

// Problem sizes of section F. n = 6 training inputs on the unit sphere of
// ℝ⁸ keep the NTK Gram matrix well conditioned for tanh and GELU
// (κ(Θ^{(0)}) ≈ 20–40 at these sizes), so that GD interpolates in a few
// hundred steps at every width. Softplus, whose mean log 2 puts a large
// constant mode in the kernel (κ ≈ 3·10³ on the same data), is left out of
// the generated sweeps for that reason only.
const (
	NTKN    = 6
	NTKD    = 8
	ntkTest = 16
)

// drift extrapolates the movement of the last records: with m₂ the largest
// change over the last w records and m₁ over the w before, the remaining
// movement of a geometric decay with ratio ρ = m₂/m₁ is m₂ρ/(1 − ρ); +Inf
// when it does not decay (or the trace is too short).
func drift(out [][]float64, w int) float64 {
	K := len(out) - 1
	if K < 2*w {
		return math.Inf(1)
	}
	m1 := maxAbsDiff(out[K-w], out[K-2*w])
	m2 := maxAbsDiff(out[K], out[K-w])
	if m2 == 0 {
		return 0
	}
	rho := m2 / m1
	if !(rho < 1) {
		return math.Inf(1)
	}
	return m2 * rho / (1 - rho)
}

// symmetrized returns the symmetric part (K + Kᵀ)/2 of the n×n kernel
// matrix k (row-major): rounding leaves a Gram matrix computed entry by
// entry a few ulps from symmetric.
func symmetrized(k []float64, n int) *mat.SymDense {
	sym := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			sym.SetSym(i, j, 0.5*(k[i*n+j]+k[j*n+i]))
		}
	}
	return sym
}

// gapEvery is the record interval of the sweeps' training runs (ZD-T4/L5's
// and the regularized and sign sweeps'): test outputs recorded every 10
// steps for sup_t.
const gapEvery = 10
