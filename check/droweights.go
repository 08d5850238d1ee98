package check

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// The weights of CVaR-DRO follow the losses at θ_t (ZD §3; train's
// CVaRDRO). A user's run computed its losses in its own
// framework, so the weights cannot be recomputed bit for bit as for our
// engine's runs (theorems/weightwitness); what can be decided is whether
// the recorded q is the scheme's maximizer of Σ q_i ℓ_i over its set for
// some losses within the losses' error bars: the maximizer's optimality
// conditions, which the scheme's closed forms solve, with every ℓ_i known
// to ±δ_i (lossBars) and every q_i to its rounding. A recorded q that no
// such losses make optimal is not the scheme's weights.
//
// For CVaR-DRO at level α (cap c = 1/(αn)) that is: q in the simplex,
// q_i ≤ c, and no weight on a sample while a sample of clearly larger loss
// is under its cap (ℓ_i − δ_i > ℓ_j + δ_j, q_i < c, q_j > 0 is
// impossible). χ²-DRO's weights q_i = (ℓ_i − η)₊/S are pinned by the radius
// alone (D_χ²(q‖1/n) = ρ; as ρ → 0 they tend to ERM's), which a run's
// solver for η holds to its own tolerance, unknown here: not witnessed
// yet.

// lossBars returns the per-sample losses ℓ_i at θ computed here from the
// model and loss, divided by the largest (the schemes' weights depend on
// the losses' ratios only: train's byLoss), and their error bars δ_i
// against the losses the user's framework computed, in the same units:
// the scores differ from ours by at most MappingTolerance·max|s| (what
// check requires of a file's recorded outputs; a file without outputs is
// assumed to meet it), which moves ℓ_i by at most ‖∂ℓ/∂s‖₁ times that, and
// the framework's loss formula rounds its few terms of size at most
// |s|_∞ + ℓ_i (log-sum-exp or BCE with logits: max(s, 0) − s·y +
// log1p(e^{−|s|}), whose cancellation leaves an absolute error of ε|s|: why
// float64 PyTorch's losses are exactly 0 from margin 37, docs/engines.md)
// by lossFormulaUlps units of ε/2.
func (r *recorded) lossBars(theta []float64) (l, delta []float64) {
	model, d, loss := r.obj.Model, r.obj.Data, r.obj.Loss
	k := model.Out()
	sc := model.Forward(model.NewWorkspace(d.N), theta, d.X, d.N)
	var smaxAll float64
	for _, s := range sc {
		smaxAll = math.Max(smaxAll, math.Abs(s))
	}
	ds := MappingTolerance * smaxAll
	l, delta = make([]float64, d.N), make([]float64, d.N)
	top := math.Inf(-1)
	for n := 0; n < d.N; n++ {
		l[n] = loss.LogLoss(sc[n*k:(n+1)*k], d.Y[n])
		top = math.Max(top, l[n])
	}
	scale := math.Exp(-top) // e^{−top}: ∞ when every loss underflows, and the bars say so
	g := make([]float64, k)
	for n := 0; n < d.N; n++ {
		row := sc[n*k : (n+1)*k]
		l[n] = math.Exp(l[n] - top)
		loss.ScaledGrad(g, row, d.Y[n], top)
		var g1, smax float64
		for j := range g {
			g1 += math.Abs(g[j])
			smax = math.Max(smax, math.Abs(row[j]))
		}
		delta[n] = g1*ds + lossFormulaUlps*0x1p-53*(smax*scale+l[n])
	}
	return l, delta
}

// informative reports whether the bars leave some order among the losses:
// two samples whose losses differ by more than their bars. Otherwise any
// weights the scheme's set holds are optimal for some losses in the bars,
// and the record decides nothing.
func informative(l, delta []float64) bool {
	hiLo, loHi := math.Inf(-1), math.Inf(1) // the largest lower end, the smallest upper end
	for i := range l {
		hiLo = math.Max(hiLo, l[i]-delta[i])
		loHi = math.Min(loHi, l[i]+delta[i])
	}
	return hiLo > loHi
}

// lossFormulaUlps is the rounding budget, in units of ε/2, of a framework's
// per-sample loss: a BCE-with-logits or log-sum-exp formula has four
// operations (a max, a product, an exp or log1p, a sum), each rounding
// once, on terms of at most |s|_∞ + ℓ; doubled for libm's exp and log1p
// being within one ulp rather than half.
const lossFormulaUlps = 16

// droWeightsOptimal checks one record's weights q (normalized to sum 1)
// against the scheme w at losses l ± delta; tol is the relative rounding
// of q. It returns "" when q is the scheme's for some losses within the
// bars, else why not.
func droWeightsOptimal(w train.Weighting, q, l, delta []float64, tol float64) string {
	switch w := w.(type) {
	case *train.CVaRDRO:
		return cvarOptimal(w.Alpha, q, l, delta, tol)
	}
	return fmt.Sprintf("%T has no optimality witness", w)
}

func cvarOptimal(alpha float64, q, l, delta []float64, tol float64) string {
	n := len(q)
	c := 1 / (alpha * float64(n))
	eps := tol * c
	// best is the largest certain loss among the samples under their cap.
	best, at := math.Inf(-1), -1
	for i, v := range q {
		if v > c+eps || v < -eps {
			return fmt.Sprintf("sample %d has weight %.6g outside [0, 1/(αn)] = [0, %.6g]", i, v, c)
		}
		if v < c-eps && l[i]-delta[i] > best {
			best, at = l[i]-delta[i], i
		}
	}
	for j, v := range q {
		if v > eps && j != at && l[j]+delta[j] < best {
			return fmt.Sprintf("sample %d (loss %.6g) has weight %.6g while sample %d of larger loss %.6g is under the cap %.6g", j, l[j], v, at, l[at], c)
		}
	}
	return ""
}

// droWitness runs droWeightsOptimal at every record with θ and weights.
func (r *recorded) droWitness(w train.Weighting) (theorems.Verdict, bool) {
	tol := schemeRounding(r.obj.Data.N) + droUpdateRounding(r.obj.Data.N)
	checked, vague := 0, 0
	for i, th := range r.t.Theta {
		if th == nil || r.t.Weights[i] == nil {
			continue
		}
		q, err := train.NormalizeWeights(r.t.Weights[i])
		if err != nil {
			return theorems.Undecided("weights not witnessed: record %d: %v", i, err), false
		}
		l, delta := r.lossBars(th)
		if !informative(l, delta) {
			vague++
			continue
		}
		if why := droWeightsOptimal(w, q, l, delta, tol); why != "" {
			return theorems.Compare(math.Inf(1), 1, fmt.Sprintf("step %d: the recorded weights are not the scheme's (%s): %s", r.t.Steps[i], r.t.Scheme, why)), false
		}
		checked++
	}
	if checked == 0 {
		if vague > 0 {
			return theorems.Undecided("weights not witnessed: at each of the %d records the losses' error bars overlap (their float64 values round to the same within MappingTolerance of the outputs): record earlier steps, while the losses still differ", vague), false
		}
		return theorems.Undecided("weights not witnessed: no record has both θ and weights (record θ beside the weights)"), false
	}
	return theorems.Verdict{}, true
}

// droUpdateRounding is the relative rounding of the scheme's own update:
// a running remainder and a normalization (a sum of n terms and a
// quotient), (n + 2)ε.
func droUpdateRounding(n int) float64 { return float64(n+2) * 0x1p-52 }
