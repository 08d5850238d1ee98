package margins

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// MarginRounding is the relative rounding of the quantities the margin
// checks are built from: u = log(1/𝓛) is a LogSumExp of N per-sample
// log-losses, each from one forward pass whose relative rounding is at most
// H·W·ε ≈ 4e-14 of the magnitude of its terms (see EulerBound); ρ and the
// block norms are Euclidean norms (≤ √P·ε ≈ 1.4e-14 relative for P ≤ 16 000).
// 1e-12 leaves a factor 25 for the exponentials and logarithms on the way.
const MarginRounding = 1e-12

// FlowInequalityBound is LL-5.1's relative bound: both sides of the
// inequality are sums of three terms, each from one forward and backward
// pass (relative rounding ≈ 4e-14, EulerBound), compared relative to the sum
// of the terms' magnitudes. It is the bound of the exact identities, 1e-10.
const FlowInequalityBound = 1e-10

// MarginCase is a training objective at one parameter vector: the case of
// the pointwise margin checks (LL-A5, LL-5.1, Lemma G.2).
type MarginCase struct {
	Obj   *train.Objective
	Theta []float64
	// Degree is the declared homogeneity order L; 0 derives it from the
	// model (a model that is not symbolically homogeneous then fails the
	// assumption). A nonzero value is used as declared.
	Degree float64
	// Margin is the loss whose f, g define the margins; nil takes it from
	// the objective's loss (losses.MarginOf). Setting it is how a wrong g is
	// tested.
	Margin losses.Margin
	// MultiHomogeneous uses the multi-homogeneous forms of LL App. G
	// (γ̃ = g(log 1/𝓛)/Π‖w_i‖^{k_i}) with BlockDegrees (nil: derived).
	MultiHomogeneous bool
	BlockDegrees     []float64
}

// setup returns the margin loss, the blocks and their degrees (one block,
// all of θ, with degree L unless MultiHomogeneous), or a verdict.
func (c *MarginCase) setup() (losses.Margin, []models.Block, []float64, *theorems.Verdict) {
	fail := func(v theorems.Verdict) (losses.Margin, []models.Block, []float64, *theorems.Verdict) {
		return nil, nil, nil, &v
	}
	if c.Obj == nil || len(c.Theta) != c.Obj.Model.NumParams() {
		return fail(theorems.Invalid(fmt.Errorf("theorems: margin case needs an objective and θ of its model's size")))
	}
	for _, v := range c.Theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fail(theorems.Invalid(fmt.Errorf("theorems: θ has a non-finite entry")))
		}
	}
	if c.Obj.Reg != nil {
		return fail(theorems.Assumption("LL's margin results are stated for the unregularized loss; the objective has a regularizer"))
	}
	m := c.Margin
	if m == nil {
		var ok bool
		if m, ok = losses.MarginOf(c.Obj.Loss); !ok {
			return fail(theorems.Assumption("(B3) needs a margin loss ℓ = e^{−f}; %s is a regression loss", c.Obj.Loss.Name()))
		}
	}
	d := c.Obj.Model.Degree()
	if !c.MultiHomogeneous {
		L := c.Degree
		if L == 0 {
			if !d.Homogeneous {
				return fail(theorems.Assumption("(A2) homogeneity: model %s is %s", c.Obj.Model, d))
			}
			L = d.Order
		}
		return m, []models.Block{{Name: "θ", Offset: 0, Len: len(c.Theta)}}, []float64{L}, nil
	}
	ks := c.BlockDegrees
	if ks == nil {
		if !d.Homogeneous {
			return fail(theorems.Assumption("(A2) multi-homogeneity: model %s is %s", c.Obj.Model, d))
		}
		ks = d.Blocks
	}
	blocks := c.Obj.Model.Blocks()
	if len(ks) != len(blocks) {
		return fail(theorems.Invalid(fmt.Errorf("theorems: %d block degrees declared for %d blocks", len(ks), len(blocks))))
	}
	return m, blocks, ks, nil
}

// separated returns an AssumptionFailed verdict unless 𝓛 < ℓ(b_f) (LL (B4)).
func separated(m losses.Margin, logLoss float64) *theorems.Verdict {
	if th := losses.LogThreshold(m); !(logLoss < th) {
		v := theorems.Assumption("(B4) separability: log 𝓛 = %.6g is not below log ℓ(b_f) = %.6g", logLoss, th)
		return &v
	}
	return nil
}

// supGPrime returns sup g′ over [a, b]: the larger of the end values and of
// 31 interior points. For every loss of the family here g′ is monotone (exp:
// constant; logistic: decreasing; polynomial tail: increasing), so the end
// values are the supremum; the interior points guard a user's loss.
func supGPrime(m losses.Margin, a, b float64) float64 {
	s := math.Max(m.GPrime(a), m.GPrime(b))
	for i := 1; i < 32; i++ {
		s = math.Max(s, m.GPrime(a+(b-a)*float64(i)/32))
	}
	return s
}

// MarginApproximation checks LL-A5 (Lemma A.5) at a separated point of a
// binary margin loss ℓ = e^{−f}: with u = log(1/𝓛),
//
//	(a) f(q_min) − log N ≤ u ≤ f(q_min),
//	(b) γ̄ − g′(ξ)·log N/ρ^L ≤ γ̃ ≤ γ̄ for some ξ ∈ (max(f(b_f), f(q_min) − log N), f(q_min)).
//
// (b) is checked with sup g′ over that interval (the ξ exists iff the gap
// fits under it), multiplied through by ρ^L: 0 ≤ q_min − g(u) ≤ sup g′·log N.
// The statistic is the worst excess over the four inequalities, in units of
// the rounding tolerance 8(N + 4)·ε·(1 + |q_min| + u)·max(1, sup g′) of
// these LogSumExp-based quantities; it holds at ≤ 1.
//
// f, g and g′ are those of the loss the objective declares (losses.DeclaredMargin:
// a planted fault's wrapper is seen through), not the engine's instance of it, and u is also recomputed from the engine's
// per-sample margins, u′ = −LSE_n(log ℓ(q_n)), which must agree with the
// engine's log(1/𝓛) to the same tolerance (a fifth inequality, |u − u′|):
// an engine whose loss leaves log domain (faults' loss-underflow: ℓ floored
// at 5e-324, so past u ≈ 745 every log ℓ_n reads the floor) moves u and
// its own f(q_min) together, and only a check that keeps the loss's
// definition and the margins apart sees it.
func MarginApproximation(c MarginCase) theorems.Verdict {
	m, blocks, ks, bad := c.setup()
	if bad != nil {
		return *bad
	}
	if c.Margin == nil {
		if def, ok := losses.DeclaredMargin(c.Obj.Loss); ok {
			m = def
		}
	}
	if c.Obj.Loss.Kind() != losses.Binary {
		return theorems.Assumption("LL-A5 is stated for binary margin losses (B3); %s is %s", c.Obj.Loss.Name(), c.Obj.Loss.Kind())
	}
	ev, err := c.Obj.Evaluate(c.Theta, false)
	if err != nil {
		return theorems.Invalid(err)
	}
	if v := separated(m, ev.LogLoss); v != nil {
		return *v
	}
	if v := weightsBelowOne(c.Obj); v != nil {
		return *v
	}
	n := float64(c.Obj.Data.N)
	logN := math.Log(weightTotal(c.Obj)) // log N unweighted (weightedmargin.go)
	u := -ev.LogLoss
	fq := m.F(ev.QMin)
	lo := math.Max(m.F(m.BF()), fq-logN)
	gsup := supGPrime(m, lo, fq)
	gap := ev.QMin - m.G(u) // (γ̄ − γ̃)·ρ^L
	tol := 8 * (n + 4) * 0x1p-52 * (1 + math.Abs(ev.QMin) + math.Abs(u)) * math.Max(1, gsup)
	recomputed := math.Inf(-1) // −u′ = LSE_n log ℓ(q_n)
	for i, q := range ev.Margins {
		recomputed = numerics.LogAddExp(recomputed, c.Obj.LogWeight(i)+m.LogLoss(q))
	}
	excess := []struct {
		v    float64
		what string
	}{
		{math.Abs(u + recomputed), "log(1/𝓛) = −LSE_n log ℓ(q_n), recomputed from the margins"},
		{fq - logN - u, "(a) f(q_min) − log N ≤ log(1/𝓛)"},
		{u - fq, "(a) log(1/𝓛) ≤ f(q_min)"},
		{-gap, "(b) γ̃ ≤ γ̄"},
		{gap - gsup*logN, "(b) γ̄ − sup g′·log N/ρ^L ≤ γ̃"},
	}
	worst, what := math.Inf(-1), ""
	for _, e := range excess {
		if e.v/tol > worst || math.IsNaN(e.v) {
			worst, what = e.v/tol, e.what
		}
	}
	rhoL := math.Exp(train.LogBlockScale(c.Theta, blocks, ks)) // ρ^L, or Π‖w_i‖^{k_i}
	return theorems.Compare(worst, 1, fmt.Sprintf("worst: %s; γ̄ = %.12g, γ̃ = %.12g, γ̄ − γ̃ = %.6g vs sup g′·log N/ρ^L = %.6g (sup g′ = %.6g on [%.6g, %.6g], %s, N = %g, log 𝓛 = %.6g)",
		what, ev.QMin/rhoL, m.G(u)/rhoL, gap/rhoL, gsup*logN/rhoL, gsup, lo, fq, m.Name(), n, ev.LogLoss))
}

// FlowInequality checks LL-5.1 (Lemma 5.1 / B.1; with MultiHomogeneous,
// Lemma G.2) at one differentiable, separated θ, exactly (no time stepping):
// under gradient flow dθ/dt = −∇𝓛, for every block w_i of degree k_i,
//
//	d/dt log ρ_i = ⟨w_i, −∇_{w_i}𝓛⟩/ρ_i² > 0,
//	d/dt log γ̃ = (g′(u)/g(u))·‖∇𝓛‖²/𝓛 − Σ_i k_i d/dt log ρ_i
//	           ≥ Σ_i k_i (d/dt log ρ_i)⁻¹ ‖dŵ_i/dt‖²,
//	‖dŵ_i/dt‖² = ‖(I − ŵ_iŵ_iᵀ)∇_{w_i}𝓛‖²/ρ_i²,   u = log(1/𝓛),
//
// (one block, θ itself with k = L, for Lemma 5.1). Everything is divided by
// 𝓛 (∇𝓛 = 𝓛·Dir), so it holds at any loss. The statistic is the deficit
// (RHS − LHS) relative to the sum of the terms' magnitudes; it holds at
// ≤ FlowInequalityBound.
//
// LHS − RHS = ‖Dir‖²(g′/g − L/⟨θ, −Dir⟩) for one block, and ⟨θ, −Dir⟩ = L·ν/𝓛
// by Euler: the slack is Lemma B.5's ν ≥ (g/g′)𝓛. A declared L that is too
// small only widens it (the inequality then still holds); one that is too
// large breaks it once ν·g′/(g𝓛) < L′/L, which for the exponential loss
// (ν/𝓛 = u + H(p), H the entropy of p_n = e^{−q_n}/𝓛) is any point with
// u > L·log N.
func FlowInequality(c MarginCase) theorems.Verdict {
	m, blocks, ks, bad := c.setup()
	if bad != nil {
		return *bad
	}
	ev, err := c.Obj.Evaluate(c.Theta, true)
	if err != nil {
		return theorems.Invalid(err)
	}
	if v := separated(m, ev.LogLoss); v != nil {
		return *v
	}
	dir := ev.Dir
	g2 := floats.Dot(dir, dir)
	if g2 == 0 {
		return theorems.Undecided("degenerate point: ∇𝓛 = 0")
	}
	if v := eulerPremise(c.Obj, c.Theta, ev, blocks, ks); v != nil {
		return *v
	}
	u := -ev.LogLoss
	gp := m.GPrime(u) / m.G(u)
	// Per block: a_i = ⟨w_i, −Dir_i⟩/ρ_i² (= d/dt log ρ_i / 𝓛) and the
	// tangential part t_i = ‖(I − ŵŵᵀ)Dir_i‖² (formed from the projected
	// vector, not as a difference of squares).
	lhs, rhs := gp*g2, 0.0
	scale := gp * g2
	for i, b := range blocks {
		w := c.Theta[b.Offset : b.Offset+b.Len]
		d := dir[b.Offset : b.Offset+b.Len]
		rho2 := floats.Dot(w, w)
		if rho2 == 0 {
			return theorems.Undecided("block %q is zero: ρ_i = 0", b.Name)
		}
		a := -floats.Dot(w, d) / rho2
		if !(a > 0) {
			return theorems.Verdict{Status: theorems.Violated, Statistic: math.Inf(1), Bound: FlowInequalityBound,
				Detail: fmt.Sprintf("d/dt log ρ = %.6g·𝓛 ≤ 0 for block %q (LL Lemma B.1 says > 0 once 𝓛 < ℓ(b_f); log 𝓛 = %.6g)", a, b.Name, ev.LogLoss)}
		}
		var tan float64
		proj := floats.Dot(w, d) / rho2
		for j, x := range d {
			r := x - proj*w[j]
			tan += r * r
		}
		lhs -= ks[i] * a
		r := ks[i] * tan / (a * rho2)
		rhs += r
		scale += math.Abs(ks[i]*a) + math.Abs(r)
	}
	stat := (rhs - lhs) / scale
	return theorems.Compare(stat, FlowInequalityBound, fmt.Sprintf("d/dt log γ̃ = %.12g·𝓛, bound L(d/dt log ρ)⁻¹‖dθ̂/dt‖² = %.12g·𝓛 (degrees %v, %s, log 𝓛 = %.6g)",
		lhs, rhs, ks, m.Name(), ev.LogLoss))
}
