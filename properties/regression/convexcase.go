package regression

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/properties"
	regressionth "github.com/implicitbias/implicitbias/theorems/regression"
	"github.com/implicitbias/implicitbias/train"
)

// SpectrumCase is a ZD-P17 case: an n×n symmetric H = U diag(λ) Uᵀ with a
// random orthogonal U and eigenvalues λ spread over LogCond decades, and
// diagonal weights q ∈ [0, 1] of which some may be exactly 0.
type SpectrumCase struct {
	N       int     // 1…8
	LogCond float64 // log₁₀ κ(H) ∈ [0, 4]
	Zeros   int     // how many q_i are 0 (at most N−1)
	// Indefinite flips the sign of the smallest eigenvalue (control);
	// Negative makes one weight negative (control).
	Indefinite, Negative bool
	Seed                 uint64
}

func (c SpectrumCase) String() string {
	return fmt.Sprintf("n=%d κ(H)=1e%.2f zeros=%d indefinite=%v negative=%v seed=%d", c.N, c.LogCond, c.Zeros, c.Indefinite, c.Negative, c.Seed)
}

// Build returns H and q.
func (c SpectrumCase) Build() (*mat.SymDense, []float64) {
	n := min(max(c.N, 1), 8)
	r := rand.New(rand.NewPCG(c.Seed, 31))
	// U from the QR of a Gaussian matrix (Haar up to signs).
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a.Set(i, j, r.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var u mat.Dense
	qr.QTo(&u)
	lam := make([]float64, n)
	scale := math.Exp(2 * r.NormFloat64())
	for i := range lam {
		lam[i] = scale * math.Pow(10, -c.LogCond*float64(i)/math.Max(float64(n-1), 1))
	}
	if c.Indefinite {
		// The smallest eigenvalue becomes −λ_max/2, far from 0, so that the
		// control's interval fails by more than rounding.
		lam[n-1] = -lam[0] / 2
	}
	h := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			var s float64
			for k := 0; k < n; k++ {
				s += u.At(i, k) * lam[k] * u.At(j, k)
			}
			h.SetSym(i, j, s)
		}
	}
	q := make([]float64, n)
	for i := range q {
		q[i] = 0.01 + r.Float64()
	}
	for z := 0; z < min(c.Zeros, n-1); z++ {
		q[r.IntN(n)] = 0
	}
	if c.Negative {
		q[r.IntN(n)] = -0.5 - r.Float64()
	}
	return h, q
}

// GenSpectrum generates ZD-P17 cases; indefinite and negative select the
// controls.
func GenSpectrum(indefinite, negative bool) properties.Gen[SpectrumCase] {
	n, zeros := gen.IntRange(1, 8), gen.IntRange(0, 2)
	if indefinite || negative {
		// The controls need room for a second eigenvalue, and weights
		// without zeros: a zero q_i can hide H's negative eigenvalue (the
		// interval's lower end is then 0·λ_min = 0).
		n, zeros = gen.IntRange(2, 8), gen.Const(0)
	}
	return properties.StructOf[SpectrumCase](map[string]gopter.Gen{
		"N":          n,
		"LogCond":    gen.Float64Range(0, 4),
		"Zeros":      zeros,
		"Indefinite": gen.Const(indefinite),
		"Negative":   gen.Const(negative),
		"Seed":       gen.UInt64(),
	})
}

// ConvexCase is a ZD-T10 case: weighted, L2-regularized least squares (a
// random convex quadratic) or logistic regression (binary labels),
//
//	f(θ) = Σ_i q_i ℓ(⟨θ, x_i⟩; y_i) + (μ/2)‖θ − c‖²,
//
// strongly convex (unique minimizer), run by GD from x₀ = 0 with
// η = StepFrac/L for T steps.
type ConvexCase struct {
	N, D     int // 2…10 each
	Logistic bool
	LogMu    float64 // log₁₀ μ ∈ [−2, 0]
	StepFrac float64 // ηL: (0, 1] for the claim, > 2 for the control
	Seed     uint64
	// Fault names an engine fault planted in the run (package faults).
	Fault string
}

func (c ConvexCase) String() string {
	loss := "squared"
	if c.Logistic {
		loss = "logistic"
	}
	return fmt.Sprintf("%s n=%d d=%d μ=%.3g ηL=%.3g seed=%d", loss, c.N, c.D, math.Pow(10, c.LogMu), c.StepFrac, c.Seed) + properties.FaultSuffix(c.Fault)
}

func (c ConvexCase) WithFault(name string) any { c.Fault = name; return c }

// FaultActs: f′'s branch fault acts on the margin (logistic) loss only,
// heavy ball's on heavy ball (never: the runs are GD); the weights are
// never uniform and the regularizer's centre never 0.
func (c ConvexCase) FaultActs(name string) bool {
	switch name {
	case "fprime-branch":
		return c.Logistic
	case "momentum-misindexed":
		return false
	}
	return true
}

// convexSteps is T of ZD-T10's runs: long enough for the O(1/T) bound to
// become tight where it can, and for a run that is not GD on f to settle
// near its wrong limit, where the proof's per-step inequality fails (at
// 300 steps the slowest cases — ηL ≈ 0.05, μ ≈ 0.01 — had not, and a
// wrong regularizer gradient or a dropped sample was caught on 17–19 of
// 20 cases; at 1000, on 24–25 of 25 at seeds 1–3); short enough for the
// quick budget (≈ 0.15 s for the claim's 100 cases).
const convexSteps = 1000

// convexSettle is the contraction (1 − ημ)^T a fault control's run is
// given to settle at its wrong limit x′. Under a planted fault the run is
// GD on another μ-strongly convex f′ (the regularizer is untouched) with
// η ≤ 1/L′, so ‖x_t − x′‖ shrinks at least by (1 − ημ) per step; the
// per-step inequality's right side (‖x_t − x*‖² − ‖x_{t+1} − x*‖²)/(2η)
// shrinks with it while its left side f(x_{t+1}) − f* tends to
// f(x′) − f* > 0, so the check sees the fault once the contraction is
// below the excess relative to the run's scale. At 1000 steps the
// slowest cases (ημ ≈ 4e-4: 0.42 of one e-fold) had not settled (soak
// seed 1795881297960328: a quadratic with f(x_T) − f* = 0.028 still
// falling, and a logistic case whose excess is 2.9e-6, its dropped
// sample nearly without loss gradient at x*, settled only after ≈ 2000
// steps, 10/(ημ)). 1e-6 (T = 13.8/(ημ)) sees an excess down to ≈ 1e-6
// of the scale of f. The claim's runs keep convexSteps: the bound and
// the per-step inequality hold at every T on a correct engine, so a
// longer run changes no claim status, only the fault control's power.
const convexSettle = 1e-6

// steps returns T for the case: convexSteps, or for a fault control at
// least ln(1/convexSettle)/(ημ) steps (convexSettle).
func (c ConvexCase) steps(eta, mu float64) int {
	if c.Fault == "" {
		return convexSteps
	}
	return max(convexSteps, int(math.Ceil(math.Log(1/convexSettle)/(eta*mu))))
}

// Run trains the case and returns the check's input.
func (c ConvexCase) Run() (regressionth.GDRateCase, error) {
	n, d := min(max(c.N, 2), 10), min(max(c.D, 2), 10)
	r := rand.New(rand.NewPCG(c.Seed, 41))
	ds := &dataset.Dataset{N: n, D: d, X: make([]float64, n*d), Y: make([]float64, n)}
	for i := range ds.X {
		ds.X[i] = r.NormFloat64()
	}
	for i := range ds.Y {
		if c.Logistic {
			ds.Y[i] = float64(2*r.IntN(2) - 1)
		} else {
			ds.Y[i] = r.NormFloat64()
		}
	}
	q := make([]float64, n)
	for i := range q {
		q[i] = 0.2 + r.Float64()
	}
	q, _ = train.NormalizeWeights(q)
	center := make([]float64, d)
	for j := range center {
		center[j] = r.NormFloat64()
	}
	mu := math.Pow(10, c.LogMu)
	// L = λ_max(XᵀQX)·ℓ'' + μ, with ℓ'' = 1 (squared) or ≤ ¼ (logistic),
	// and λ_max(XᵀQX) = λ_max(SXXᵀS), S = Q^{½}.
	g := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			g.SetSym(i, j, math.Sqrt(q[i]*q[j])*floats.Dot(ds.Row(i), ds.Row(j)))
		}
	}
	var es mat.EigenSym
	if !es.Factorize(g, false) {
		return regressionth.GDRateCase{}, fmt.Errorf("eigenvalues failed")
	}
	lmax := es.Values(nil)[n-1]
	var loss losses.Loss = losses.Squared{}
	var xstar []float64
	var fstar float64
	var err error
	if c.Logistic {
		loss = losses.NewBinary(losses.Logistic{})
		lmax /= 4
		xstar, fstar, err = numerics.LogisticRidge(ds.X, n, d, ds.Y, q, center, mu)
	} else {
		xstar, err = numerics.RegularizedInterpolator(ds.X, n, d, ds.Y, center, q, mu)
		if err == nil {
			for i := 0; i < n; i++ {
				rr := floats.Dot(ds.Row(i), xstar) - ds.Y[i]
				fstar += q[i] * 0.5 * rr * rr
			}
			var reg float64
			for j := range xstar {
				reg += (xstar[j] - center[j]) * (xstar[j] - center[j])
			}
			fstar += 0.5 * mu * reg
		}
	}
	if err != nil {
		return regressionth.GDRateCase{}, err
	}
	L := lmax + mu
	eta := c.StepFrac / L
	fault, err := faults.Lookup(c.Fault)
	if err != nil {
		return regressionth.GDRateCase{}, err
	}
	model, err := models.NewLinear(d, 1)
	if err != nil {
		return regressionth.GDRateCase{}, err
	}
	obj, err := train.NewObjective(fault.Model(model), fault.Loss(loss), ds)
	if err != nil {
		return regressionth.GDRateCase{}, err
	}
	obj.Reg = train.L2{Mu: mu, Theta0: center}
	fault.Objective(obj) // before SetWeights: a reweighting fault rewrites them there
	if err := obj.SetWeights(q); err != nil {
		return regressionth.GDRateCase{}, err
	}
	gd, err := train.NewGD(eta)
	if err != nil {
		return regressionth.GDRateCase{}, err
	}
	theta := make([]float64, d)
	tr, err := train.Run(obj, fault.Optimizer(gd), theta, train.Config{Steps: c.steps(eta, mu), KeepTheta: true})
	diverged := errors.Is(err, train.ErrNonFinite) && tr != nil && len(tr.Records) > 0
	if err != nil && !diverged {
		return regressionth.GDRateCase{}, err
	}
	// f(x_t) is computed here from the recorded iterates, not read from the
	// engine's log 𝓛: an objective that evaluates itself wrongly (weights
	// applied wrongly) would otherwise report the values of another f.
	f := make([]float64, len(tr.Records))
	distSq := make([]float64, len(tr.Records))
	steps := make([]float64, len(tr.Records)-1)
	for i, rec := range tr.Records {
		f[i] = convexValue(ds, q, center, mu, c.Logistic, rec.Theta)
		distSq[i] = floats.Distance(rec.Theta, xstar, 2)
		distSq[i] *= distSq[i]
		if i > 0 {
			steps[i-1] = floats.Distance(rec.Theta, tr.Records[i-1].Theta, 2)
		}
	}
	if diverged {
		// The iterate after the last record overflowed: f = ∞ there.
		inf := math.Inf(1)
		f, distSq, steps = append(f, inf), append(distSq, inf), append(steps, inf)
	}
	return regressionth.GDRateCase{F: f, FStar: fstar, Dist0Sq: floats.Dot(xstar, xstar), Eta: eta, L: L, Terms: n + d,
		DistSq: distSq, StepNorm: steps, XStarError: convexXStarError * (1 + floats.Norm(xstar, 2)), D: d}, nil
}

// convexXStarError bounds ‖x̂* − x*‖/(1 + ‖x*‖) for the computed minimizer:
// the quadratic's is a Cholesky solve of XᵀQX + μI with κ ≤ (λ_max + μ)/μ
// ≲ 1e3 for the generated cases (relative error ≲ d·κ·ε ≈ 1e-12); the
// logistic Newton stops at λ² ≤ 1e-28(1 + |F|), so ‖x̂* − x*‖ ≤ λ/√μ
// ≤ 1e-13 for μ ≥ 0.01 and |F| ≤ 100 (numerics.LogisticRidge). 1e-10
// leaves a factor 100.
const convexXStarError = 1e-10

// GenConvex generates ZD-T10 cases with ηL in the given range; logistic
// selects regularized logistic regression instead of quadratics (both
// when both is set).
func GenConvex(stepLo, stepHi float64, quadratic, logistic bool) properties.Gen[ConvexCase] {
	var lg gopter.Gen
	switch {
	case quadratic && logistic:
		lg = gen.Bool()
	default:
		lg = gen.Const(logistic)
	}
	return properties.StructOf[ConvexCase](map[string]gopter.Gen{
		"N":        gen.IntRange(2, 10),
		"D":        gen.IntRange(2, 10),
		"Logistic": lg,
		"LogMu":    gen.Float64Range(-2, 0),
		"StepFrac": gen.Float64Range(stepLo, stepHi),
		"Seed":     gen.UInt64(),
	})
}

// convexValue returns f(θ) = Σ_i q_i ℓ(⟨θ, x_i⟩; y_i) + (μ/2)‖θ − c‖² in
// plain code: ℓ = ½(s − y)², or log(1 + e^{−ys}) =
// max(−m, 0) + log1p(e^{−|m|}) with m = ys for the logistic loss.
func convexValue(ds *dataset.Dataset, q, center []float64, mu float64, logistic bool, theta []float64) float64 {
	var f float64
	for i := 0; i < ds.N; i++ {
		s := floats.Dot(ds.Row(i), theta)
		if logistic {
			m := ds.Y[i] * s
			f += q[i] * (math.Max(-m, 0) + math.Log1p(math.Exp(-math.Abs(m))))
		} else {
			f += q[i] * 0.5 * (s - ds.Y[i]) * (s - ds.Y[i])
		}
	}
	var reg float64
	for j := range theta {
		reg += (theta[j] - center[j]) * (theta[j] - center[j])
	}
	return f + 0.5*mu*reg
}
