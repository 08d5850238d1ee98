package train

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/integrate/quad"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
)

// LogSmoothedMargin returns log γ̃ = log g(log 1/𝓛) − L log ρ (LL Def. A.3),
// the form the monotonicity checks difference. It is NaN when g(log 1/𝓛) ≤ 0
// (the data are not separated: 𝓛 ≥ ℓ(b_f) with b_f = 0).
func LogSmoothedMargin(m losses.Margin, logLoss, rho, L float64) float64 {
	gu := m.G(-logLoss)
	if !(gu > 0) {
		return math.NaN()
	}
	return math.Log(gu) - L*math.Log(rho)
}

// LogBlockScale returns Σ_i k_i log ρ_i = log Π_i ‖w_i‖^{k_i}, the scale of a
// (k_1, …, k_m)-homogeneous model (LL §4.4 eq. (4)); −Inf if a block with
// k_i > 0 is zero.
func LogBlockScale(theta []float64, blocks []models.Block, k []float64) float64 {
	var s float64
	for i, b := range blocks {
		if k[i] == 0 {
			continue
		}
		s += k[i] * math.Log(floats.Norm(theta[b.Offset:b.Offset+b.Len], 2))
	}
	return s
}

// LogBlockSmoothedMargin returns log γ̃ for a multi-homogeneous model (LL
// Def. G.1, G.3): γ̃ = g(log 1/𝓛)/Π_i ‖w_i‖^{k_i}. For cross-entropy m is the
// logistic loss (losses.MarginOf). NaN when not separated.
func LogBlockSmoothedMargin(m losses.Margin, logLoss float64, theta []float64, blocks []models.Block, k []float64) float64 {
	gu := m.G(-logLoss)
	if !(gu > 0) {
		return math.NaN()
	}
	return math.Log(gu) - LogBlockScale(theta, blocks, k)
}

// GDMargin is the smoothed normalized margin of gradient descent for the
// exponential loss (LL App. E.2),
//
//	γ̂(θ) = e^{φ(𝓛)}/ρ^L,   φ(x) = log log(1/x) + I(x),
//	I(x) = ∫₀ˣ (φ′(w) + 1/(w log(1/w))) dw,
//	φ′(x) = −sup{ r(w) : w ∈ [x, 𝓛(t₀)] },  r(w) = (1 + 2(1 + λ(w))μ(w))/(w log(1/w)),
//
// with the constants of LL App. E.1:
//
//	μ(x) = log(1/𝓛(t₀))/(2 log(1/x)),   λ(x) = (1/L) κ(x)⁻¹ x (log 1/x)^{1−2/L},
//	κ(x) = x (log 1/x)^{2−2/L}  (L ≤ 1, or x ≤ e^{2/L−2}),   κ_max = e^{(2−2/L)(ln(2−2/L)−1)} otherwise.
//
// (C_η, the smoothness constant, enters only the learning-rate condition,
// not γ̂.) So log γ̂ = log γ̃ + I(𝓛) with I < 0: γ̂ < γ̃ (LL Lemma E.1(a)).
//
// In the variable s = log(1/w) (s₀ = log(1/𝓛(t₀)), u = log(1/x)),
//
//	I(u) = ∫_u^∞ (1/s − e^{H(s) − s}) ds,   H(s) = max_{s′∈[s₀,s]} h(s′),
//	h(s) = s + log R(s),   R(s) = w·r(w) = 1/s + (1 + λ(s)) s₀/s².
//
// Where H = h the integrand is −(1 + λ)s₀/s², and for λ = 1/(Ls) its
// integral is closed-form; where H is a plateau c (h below its running
// maximum) the integrand 1/s − e^{c−s} is closed-form too. h is increasing
// for s ≥ 3 (−R′/R ≤ 3/s there, each term of R being a power of 1/s of
// degree ≤ 3), so the plateaus lie in [s₀, max(s₀, 3)] plus the last one's
// end, found by bisection; the local maxima of h in [s₀, 3] are located on a
// grid of 4096 points and refined by golden-section search (h is smooth and
// has at most a few extrema there). Only the pieces with H = h and
// s < 2 − 2/L (κ = κ_max, λ = e^{−s}s^{1−2/L}/(Lκ_max)) need quadrature:
// Gauss–Legendre with 20 and 40 nodes, whose difference is returned as the
// error estimate (it is at rounding level, ~1e-16, for these smooth
// integrands on intervals shorter than 2).
type GDMargin struct {
	// L is the homogeneity order, S0 = log(1/𝓛(t₀)) > 0.
	L, S0 float64

	kappaS, kappaMax float64 // 2 − 2/L and κ_max (L > 1)
	pieces           []gdPiece
	sC               float64 // H = h and λ = 1/(Ls) on [sC, ∞)
}

// gdPiece is an interval [a, b] of s on which H is the plateau c
// (plateau) or equal to h.
type gdPiece struct {
	a, b    float64
	plateau bool
	c       float64
}

// NewGDMargin returns γ̂ for t₀ with log 𝓛(t₀) = logLoss0 < 0 (LL (A4):
// 𝓛(t₀) < 1) and homogeneity order L > 0.
func NewGDMargin(logLoss0, L float64) (*GDMargin, error) {
	if !(logLoss0 < 0) || math.IsInf(logLoss0, -1) {
		return nil, fmt.Errorf("train: γ̂ needs 0 < 𝓛(t₀) < 1 (LL (A4)), got log 𝓛(t₀) = %v", logLoss0)
	}
	if !(L > 0) || math.IsInf(L, 0) {
		return nil, fmt.Errorf("train: γ̂ needs a homogeneity order L > 0, got %v", L)
	}
	g := &GDMargin{L: L, S0: -logLoss0}
	if L > 1 {
		g.kappaS = 2 - 2/L
		g.kappaMax = math.Exp(g.kappaS * (math.Log(g.kappaS) - 1))
	}
	g.build()
	return g, nil
}

// lambda returns λ at s.
func (g *GDMargin) lambda(s float64) float64 {
	if g.L <= 1 || s >= g.kappaS {
		return 1 / (g.L * s)
	}
	return math.Exp(-s) * math.Pow(s, 1-2/g.L) / (g.L * g.kappaMax)
}

// h returns s + log R(s).
func (g *GDMargin) h(s float64) float64 {
	return s + math.Log(1/s+(1+g.lambda(s))*g.S0/(s*s))
}

// build finds the pieces of H on [s₀, sC].
func (g *GDMargin) build() {
	s0 := g.S0
	end := math.Max(s0, 3) // h is increasing beyond 3
	// Local maxima of h in (s₀, end), refined.
	const n = 4096
	var peaks []float64
	if end > s0 {
		ds := (end - s0) / n
		prev, cur := g.h(s0), g.h(s0+ds)
		for i := 1; i < n; i++ {
			next := g.h(s0 + float64(i+1)*ds)
			if cur >= prev && cur > next {
				peaks = append(peaks, g.goldenMax(s0+float64(i-1)*ds, s0+float64(i+1)*ds))
			}
			prev, cur = cur, next
		}
	}
	// Walk from s₀: H = h while h is at its running maximum; after a peak
	// (or at s₀ if h starts decreasing) H is a plateau until h climbs back.
	a, cm := s0, g.h(s0)
	onH := g.h(math.Min(s0+1e-9*(1+s0), end)) >= cm && end > s0
	if end == s0 {
		onH = true // s₀ ≥ 3: h is increasing from the start
	}
	pk := 0
	for {
		if onH {
			// Up to the next peak, if any; otherwise H = h for ever.
			for pk < len(peaks) && peaks[pk] <= a {
				pk++
			}
			if pk == len(peaks) {
				break
			}
			b := peaks[pk]
			g.pieces = append(g.pieces, gdPiece{a: a, b: b})
			a, cm, onH = b, g.h(b), false
			continue
		}
		// Plateau at cm from a until h(s) = cm again.
		b := g.climb(a, cm)
		g.pieces = append(g.pieces, gdPiece{a: a, b: b, plateau: true, c: cm})
		a, onH = b, true
	}
	g.sC = a
	// A piece with H = h that starts before 2 − 2/L and ends after it is
	// split so that each piece has one formula for λ.
	if g.L > 1 {
		var out []gdPiece
		for _, p := range g.pieces {
			if !p.plateau && p.a < g.kappaS && p.b > g.kappaS {
				out = append(out, gdPiece{a: p.a, b: g.kappaS}, gdPiece{a: g.kappaS, b: p.b})
				continue
			}
			out = append(out, p)
		}
		if g.sC < g.kappaS {
			out = append(out, gdPiece{a: g.sC, b: g.kappaS})
			g.sC = g.kappaS
		}
		g.pieces = out
	}
}

// goldenMax returns the maximizer of h on [lo, hi] by golden-section search
// to 1e-13 relative.
func (g *GDMargin) goldenMax(lo, hi float64) float64 {
	const r = 0.6180339887498949
	for hi-lo > 1e-13*(1+math.Abs(hi)) {
		x1, x2 := hi-r*(hi-lo), lo+r*(hi-lo)
		if g.h(x1) < g.h(x2) {
			lo = x1
		} else {
			hi = x2
		}
	}
	return 0.5 * (lo + hi)
}

// climb returns the first s > a with h(s) ≥ c: it scans in steps of
// 1e-3(1 + a) below 3 and doubles beyond (h is increasing there), then
// bisects to 1e-14 relative.
func (g *GDMargin) climb(a, c float64) float64 {
	// h is below c just after a; find a bracket [lo, hi] with h(hi) ≥ c.
	lo, step := a, 1e-3*(1+a)
	hi := a + step
	for g.h(hi) < c {
		lo = hi
		if hi < 3 {
			hi += step
		} else {
			hi *= 2
		}
	}
	for hi-lo > 1e-14*(1+hi) {
		mid := 0.5 * (lo + hi)
		if g.h(mid) < c {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// tail returns ∫_a^∞ −(1 + 1/(Ls)) s₀/s² ds = −s₀(1/a + 1/(2La²)).
func (g *GDMargin) tail(a float64) float64 { return -g.S0 * (1/a + 1/(2*g.L*a*a)) }

// piece returns ∫ over [a, b] ⊆ p of the integrand, and an error estimate.
func (g *GDMargin) piece(p gdPiece, a, b float64) (float64, float64) {
	switch {
	case p.plateau:
		// ∫ 1/s − e^{c−s} ds = log(b/a) − e^{c−a}(1 − e^{a−b}).
		return math.Log(b/a) - math.Exp(p.c-a)*-math.Expm1(a-b), 0
	case g.L <= 1 || a >= g.kappaS:
		return g.tail(a) - g.tail(b), 0
	}
	f := func(s float64) float64 { return -(1 + g.lambda(s)) * g.S0 / (s * s) }
	q20, q40 := quad.Fixed(f, a, b, 20, quad.Legendre{}, 0), quad.Fixed(f, a, b, 40, quad.Legendre{}, 0)
	return q40, math.Abs(q40 - q20)
}

// I returns I at u = log(1/𝓛) ≥ s₀ and an estimate of its quadrature error.
func (g *GDMargin) I(u float64) (float64, float64) {
	if u >= g.sC {
		return g.tail(u), 0
	}
	v, e := g.tail(g.sC), 0.0
	for _, p := range g.pieces {
		if p.b <= u {
			continue
		}
		pv, pe := g.piece(p, math.Max(p.a, u), p.b)
		v += pv
		e += pe
	}
	return v, e
}

// ErrAboveT0 reports a loss above 𝓛(t₀), where γ̂ is not defined.
var ErrAboveT0 = errors.New("train: γ̂ is defined only for 𝓛 ≤ 𝓛(t₀)")

// LogGammaHat returns log γ̂ = log log(1/𝓛) + I(𝓛) − L log ρ and the
// quadrature error estimate of I. It fails for 𝓛 > 𝓛(t₀).
func (g *GDMargin) LogGammaHat(logLoss, rho float64) (float64, float64, error) {
	u := -logLoss
	if !(u >= g.S0) {
		return math.NaN(), 0, fmt.Errorf("%w: log 𝓛 = %.6g > log 𝓛(t₀) = %.6g", ErrAboveT0, logLoss, -g.S0)
	}
	i, e := g.I(u)
	return math.Log(u) + i - g.L*math.Log(rho), e, nil
}
