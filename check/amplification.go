package check

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// How much a gap's k gradient steps amplify a rounding-size difference.
// The gap's map θ₀ ↦ θ_k has the linearization J = J_{k−1}⋯J_0, where
// J_s = I − η∇²𝓛(θ_s) is the Jacobian of step s: symmetric (a Hessian),
// so Jᵀ = J_0⋯J_{k−1} is the same steps applied in reverse order. Its
// largest singular value σ₁(J) = ‖J‖₂ is the worst amplification of a
// difference made at the first step over all directions; one direction
// (the earlier (1, …, 1)/√P) sees only its component along J's top
// singular vector and can miss a strongly amplified coordinate by a factor
// up to √P.
//
// σ₁ is found by power iteration on JᵀJ (Golub & Van Loan §8.2.1): from
// v₀ = (1, …, 1)/√P, v_{j+1} = JᵀJv_j / ‖JᵀJv_j‖, each estimate
// σ_j = √‖JᵀJv_j‖ ≤ σ₁ (Cauchy–Schwarz), converging to σ₁ as
// (σ₂/σ₁)^{2j}. J_s·w is never formed as a matrix: it is the step's
// difference quotient (step(θ_s + δw) − θ_{s+1})/δ, w renormalized after
// every step. δ = 2¹⁶·tol₀ (amplificationDelta times the first step's
// rounding bound, ≈ 10⁻¹⁰‖θ‖): at δ = tol₀ itself each quotient carries
// its own rounding, ≈ u‖θ‖/δ ≈ 6% of it, which compounds over the 2k steps
// of a pass (measured on TestGapAmplification: 24.0 for σ₁ = 22.6); at
// 2¹⁶·tol₀ it is ≈ 10⁻⁶ per step. A ReLU kink within δ of the path flips in
// the quotient and shows up as a large amplification (the gap is then
// undecided): every kink a rounding-size change could flip is among them.
//
// Stopping rule: stop when two successive estimates agree to
// amplificationRelTol (1%) or after amplificationMaxIter (8) iterations,
// and take the largest estimate seen (each is a lower bound of σ₁).
//
// Cost: the gap's θ_s are kept (k·P floats) when that fits
// gapPathFloats; otherwise every √k-th is kept and the others recomputed
// for each pass. One iteration is a forward and a reverse pass: 2k
// gradient evaluations (3k recomputing), O(k × samples × parameters), no
// P×P matrix.
const (
	amplificationRelTol  = 0.01
	amplificationMaxIter = 8
	gapPathFloats        = 1 << 24 // 128 MB of θ_s
	amplificationDelta   = 1 << 16
)

// stepMap takes one step of the gap in place and returns its rounding
// bound.
type stepMap func(th []float64) (tol float64, err error)

// gapPath gives θ_s along a gap of k steps from θ₀, keeping checkpoints
// every m steps and the states of one segment at a time.
type gapPath struct {
	step  stepMap
	k, m  int
	marks [][]float64 // θ at s = 0, m, 2m, …, and θ_k last
	seg   int         // the segment held in states (−1: none)
	held  [][]float64 // θ at s = seg·m + j
	tols  float64     // Σ_s tol_s of the first pass
	tol0  float64
}

// newGapPath replays the gap once from th0 and keeps what the passes need:
// every θ_s when k·P ≤ maxFloats, every √k-th otherwise.
func newGapPath(step stepMap, th0 []float64, k, maxFloats int) (*gapPath, error) {
	P := len(th0)
	m := k
	if (k+1)*P > maxFloats {
		m = max(1, int(math.Ceil(math.Sqrt(float64(k)))))
	}
	p := &gapPath{step: step, k: k, m: m, seg: -1}
	x := append([]float64(nil), th0...)
	for s := 0; s < k; s++ {
		if s%m == 0 {
			p.marks = append(p.marks, append([]float64(nil), x...))
		}
		if m == k {
			p.held = append(p.held, append([]float64(nil), x...))
		}
		tol, err := step(x)
		if err != nil {
			return nil, err
		}
		if s == 0 {
			p.tol0 = tol
		}
		p.tols += tol
	}
	if m == k {
		p.seg = 0
	}
	p.marks = append(p.marks, x)
	return p, nil
}

// end is θ_k.
func (p *gapPath) end() []float64 { return p.marks[len(p.marks)-1] }

// at returns θ_s, 0 ≤ s ≤ k (read only).
func (p *gapPath) at(s int) ([]float64, error) {
	if s == p.k {
		return p.end(), nil
	}
	seg := s / p.m
	if seg != p.seg {
		p.held = p.held[:0]
		x := append([]float64(nil), p.marks[seg]...)
		for j := seg * p.m; j < min(p.k, (seg+1)*p.m); j++ {
			p.held = append(p.held, append([]float64(nil), x...))
			if _, err := p.step(x); err != nil {
				return nil, err
			}
		}
		p.seg = seg
	}
	return p.held[s-seg*p.m], nil
}

// apply replaces w (unit) by J_s·w/‖J_s·w‖, the difference quotient of
// step s along δw, and returns ‖J_s·w‖.
func (p *gapPath) apply(s int, w, work []float64) (float64, error) {
	th, err := p.at(s)
	if err != nil {
		return 0, err
	}
	next, err := p.at(s + 1)
	if err != nil {
		return 0, err
	}
	delta := amplificationDelta * p.tol0
	copy(work, th)
	floats.AddScaled(work, delta, w)
	if _, err := p.step(work); err != nil {
		return 0, err
	}
	floats.SubTo(w, work, next)
	n := floats.Norm(w, 2)
	if n > 0 && !math.IsInf(n, 0) {
		floats.Scale(1/n, w)
	}
	return n / delta, nil
}

// amplification returns σ₁ of the gap's linearized map by power iteration
// (the stopping rule above) and the iterations taken; NaN when a step's
// difference vanished or overflowed (no estimate: the gap is undecided).
func (p *gapPath) amplification() (sigma float64, iters int, err error) {
	P := len(p.marks[0])
	w := make([]float64, P)
	work := make([]float64, P)
	for i := range w {
		w[i] = 1 / math.Sqrt(float64(P))
	}
	pass := func(s int) (float64, error) {
		n, err := p.apply(s, w, work)
		if err != nil || !(n > 0) || math.IsInf(n, 0) {
			return math.NaN(), err
		}
		return math.Log(n), nil
	}
	prev := 0.0
	for iters = 1; ; iters++ {
		logNorm := 0.0
		for s := 0; s < p.k; s++ { // J·v
			l, err := pass(s)
			if err != nil {
				return 0, iters, err
			}
			logNorm += l
		}
		for s := p.k - 1; s >= 0; s-- { // Jᵀ·(Jv): J_sᵀ = J_s
			l, err := pass(s)
			if err != nil {
				return 0, iters, err
			}
			logNorm += l
		}
		if math.IsNaN(logNorm) {
			return math.NaN(), iters, nil
		}
		est := math.Exp(logNorm / 2) // √‖JᵀJv‖ ≤ σ₁
		sigma = math.Max(sigma, est)
		if math.Abs(est-prev) <= amplificationRelTol*est || iters == amplificationMaxIter {
			return sigma, iters, nil
		}
		prev = est
	}
}
