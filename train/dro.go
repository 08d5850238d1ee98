package train

import (
	"fmt"
	"math"
	"sort"

	"github.com/implicitbias/implicitbias/dataset"
)

// Dynamic GRW schemes from distributionally robust optimization. Group DRO
// updates group weights by exponentiated gradient (ZD eq. 4); χ²- and
// CVaR-DRO take, at every step, the worst-case weights of their
// uncertainty set at the current losses, whose gradient is the gradient of
// the DRO risk by Danskin's theorem (ZD §3).

// GroupDRO is Group DRO (Sagawa et al. 2020a; ZD eq. 4): group weights
//
//	g_k ← g_k·exp(ν R̂_k) / Σ_j g_j·exp(ν R̂_j),   R̂_k = (1/n_k) Σ_{i∈k} ℓ_i,
//
// starting from g_k = 1/K, and q_i = g_k/n_k for sample i in group k (so
// Σ_i q_i = Σ_k g_k = 1). The update at step t uses the losses at θ_t and
// the step from θ_t uses the updated weights, as in Sagawa et al.'s
// Algorithm 1 (ZD's eq. 4 writes the same recursion with the losses one
// index earlier). log g_k is carried, so no weight underflows.
type GroupDRO struct {
	Nu     float64
	Groups []int // nil: the data's grouping
	g      Grouping
	logG   []float64
	m, s   []float64 // running LSE per group
}

// NewGroupDRO returns Group DRO with step ν > 0.
func NewGroupDRO(nu float64, groups []int) (*GroupDRO, error) {
	if !(nu > 0) || math.IsInf(nu, 0) {
		return nil, fmt.Errorf("train: Group DRO needs a finite step ν > 0, got %v", nu)
	}
	return &GroupDRO{Nu: nu, Groups: groups}, nil
}

// Scheme returns GroupDROScheme with ν.
func (w *GroupDRO) Scheme() Scheme { return Scheme{Kind: GroupDROScheme, Param: w.Nu} }

// Start sets g_k = 1/K.
func (w *GroupDRO) Start(d *dataset.Dataset) error {
	if !(w.Nu > 0) || math.IsInf(w.Nu, 0) {
		return fmt.Errorf("train: Group DRO needs a finite step ν > 0, got %v", w.Nu)
	}
	g, err := groupsFor(w.Groups, d)
	if err != nil {
		return err
	}
	w.g = g
	k := g.K()
	w.logG = make([]float64, k)
	for i := range w.logG {
		w.logG[i] = -math.Log(float64(k))
	}
	w.m, w.s = make([]float64, k), make([]float64, k)
	return nil
}

// Grouping returns the groups in use (after Start).
func (w *GroupDRO) Grouping() Grouping { return w.g }

// GroupWeights writes g_k into dst (len K).
func (w *GroupDRO) GroupWeights(dst []float64) {
	for k, lg := range w.logG {
		dst[k] = math.Exp(lg)
	}
}

// Update applies eq. 4 with the losses at θ_t and writes q_i = g_k/n_k.
func (w *GroupDRO) Update(t int, logLoss, q []float64) error {
	for k := range w.m {
		w.m[k], w.s[k] = math.Inf(-1), 0
	}
	for i, ll := range logLoss {
		k := w.g.Of[i]
		switch {
		case ll == math.Inf(-1):
		case ll > w.m[k]:
			w.s[k] = w.s[k]*math.Exp(w.m[k]-ll) + 1
			w.m[k] = ll
		default:
			w.s[k] += math.Exp(ll - w.m[k])
		}
	}
	top := math.Inf(-1)
	for k := range w.logG {
		r := 0.0
		if w.s[k] > 0 {
			r = math.Exp(w.m[k] + math.Log(w.s[k]) - math.Log(float64(w.g.Size[k])))
		}
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return fmt.Errorf("train: Group DRO step %d: risk of group %d is %v", t, k, r)
		}
		w.logG[k] += w.Nu * r
		top = max(top, w.logG[k])
	}
	// Normalize: log g_k −= LSE_j log g_j.
	var z float64
	for _, lg := range w.logG {
		z += math.Exp(lg - top)
	}
	lz := top + math.Log(z)
	for k := range w.logG {
		w.logG[k] -= lz
	}
	// q_i = g_k/n_k is the same for a group's samples: one exponential per
	// group (w.s is free again), not per sample.
	for k, lg := range w.logG {
		w.s[k] = math.Exp(lg) / float64(w.g.Size[k])
	}
	for i, k := range w.g.Of {
		q[i] = w.s[k]
	}
	return nil
}

// byLoss orders sample indices by decreasing loss, ties by index: a total
// order, so the worst-case weights are deterministic.
type byLoss struct {
	idx []int
	l   []float64
}

func (b *byLoss) Len() int      { return len(b.idx) }
func (b *byLoss) Swap(i, j int) { b.idx[i], b.idx[j] = b.idx[j], b.idx[i] }
func (b *byLoss) Less(i, j int) bool {
	li, lj := b.l[b.idx[i]], b.l[b.idx[j]]
	return li > lj || li == lj && b.idx[i] < b.idx[j]
}

// sortLosses fills b.l with ℓ_i/max_j ℓ_j (so in [0, 1]; the worst-case
// weights below depend only on loss ratios) and sorts b.idx by it. It
// reports false when every loss is 0.
func (b *byLoss) sortLosses(logLoss []float64) (bool, error) {
	top := math.Inf(-1)
	for i, ll := range logLoss {
		if math.IsNaN(ll) || ll == math.Inf(1) {
			return false, fmt.Errorf("train: log-loss of sample %d is %v", i+1, ll)
		}
		top = max(top, ll)
	}
	if top == math.Inf(-1) {
		return false, nil
	}
	for i, ll := range logLoss {
		b.l[i] = math.Exp(ll - top)
		b.idx[i] = i
	}
	if len(b.idx) > insertionMax {
		sort.Sort(b)
		return true, nil
	}
	// A tiny case's n: insertion sort without an interface call per
	// comparison. The order is total, so any sort gives the same indices.
	idx, l := b.idx, b.l
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0; j-- {
			a, c := idx[j], idx[j-1]
			if !(l[a] > l[c] || l[a] == l[c] && a < c) {
				break
			}
			idx[j], idx[j-1] = c, a
		}
	}
	return true, nil
}

// insertionMax is the largest sample count sortLosses sorts by insertion
// (at most n²/2 comparisons, fewer than pdqsort's calls cost up to here).
const insertionMax = 32

func newByLoss(n int) *byLoss { return &byLoss{idx: make([]int, n), l: make([]float64, n)} }

// ChiSquareDRO is χ²-DRO: at every step the weights maximizing Σ q_i ℓ_i
// over the χ²-ball around the uniform distribution,
//
//	{q ∈ simplex : D_χ²(q‖1/n) = (1/2n) Σ_i (n q_i − 1)² ≤ ρ}
//
// (Namkoong & Duchi 2017; Duchi & Namkoong 2021, whose D_χ² carries the ½).
// The maximizer has the closed form (KKT conditions of the concave
// program) q_i = (ℓ_i − η)₊ / Σ_j (ℓ_j − η)₊, with η the unique solution of
//
//	R(η) = n Σ_i (ℓ_i − η)₊² / (Σ_i (ℓ_i − η)₊)² = 1 + 2ρ,
//
// R increasing from 1 (η → −∞) to n/c (η → max ℓ, c ties at the maximum).
// If the k largest losses are the active ones, with mean m_k and variance
// v_k, R(η) = 1 + 2ρ is a quadratic in η whose root below m_k is
//
//	η = m_k − √(n v_k / ((1 + 2ρ)k − n)),   valid iff ℓ_(k+1) ≤ η < ℓ_(k),
//
// so one pass over the sorted losses finds η. If n/c ≤ 1 + 2ρ the ball
// contains the uniform distribution on the largest losses, which is then
// the maximizer. Update does not allocate.
type ChiSquareDRO struct {
	Rho float64
	b   *byLoss
}

// NewChiSquareDRO returns χ²-DRO with radius ρ > 0.
func NewChiSquareDRO(rho float64) (*ChiSquareDRO, error) {
	if !(rho > 0) || math.IsInf(rho, 0) {
		return nil, fmt.Errorf("train: χ²-DRO needs a finite radius ρ > 0, got %v", rho)
	}
	return &ChiSquareDRO{Rho: rho}, nil
}

// Scheme returns ChiSquareScheme with ρ.
func (w *ChiSquareDRO) Scheme() Scheme { return Scheme{Kind: ChiSquareScheme, Param: w.Rho} }

// Start allocates the buffers.
func (w *ChiSquareDRO) Start(d *dataset.Dataset) error {
	if !(w.Rho > 0) || math.IsInf(w.Rho, 0) {
		return fmt.Errorf("train: χ²-DRO needs a finite radius ρ > 0, got %v", w.Rho)
	}
	w.b = newByLoss(d.N)
	return nil
}

// Update writes the worst-case weights at the given losses.
func (w *ChiSquareDRO) Update(_ int, logLoss, q []float64) error {
	ok, err := w.b.sortLosses(logLoss)
	if err != nil {
		return err
	}
	n := len(q)
	if !ok {
		uniform(q)
		return nil
	}
	l, idx := w.b.l, w.b.idx
	a := 1 + 2*w.Rho
	eta := math.NaN()
	// Welford's running mean and sum of squared deviations of the top k.
	var mean, m2 float64
	for k := 1; k <= n; k++ {
		x := l[idx[k-1]]
		delta := x - mean
		mean += delta / float64(k)
		m2 += delta * (x - mean)
		if a*float64(k) <= float64(n) || m2 <= 0 {
			continue
		}
		e := mean - math.Sqrt(float64(n)*(m2/float64(k))/(a*float64(k)-float64(n)))
		next := math.Inf(-1)
		if k < n {
			next = l[idx[k]]
		}
		if e < x && e >= next {
			eta = e
			break
		}
	}
	if math.IsNaN(eta) {
		// No root: n/c ≤ 1 + 2ρ (up to rounding at the boundary), and the
		// uniform distribution on the largest losses is the maximizer.
		top := l[idx[0]]
		for i := range q {
			q[i] = 0
			if l[i] == top {
				q[i] = 1
			}
		}
		normalize(q)
		return nil
	}
	for i := range q {
		q[i] = max(l[i]-eta, 0)
	}
	normalize(q)
	return nil
}

// CVaRDRO is CVaR-DRO at level α ∈ (0, 1]: at every step the weights
// maximizing Σ q_i ℓ_i over {q ∈ simplex : q_i ≤ 1/(αn)} (Rockafellar &
// Uryasev 2000), the average of the top α-fraction of the losses. The
// maximizer fills the largest losses first: q = 1/(αn) on the ⌊αn⌋ largest,
// the remainder 1 − ⌊αn⌋/(αn) on the next, 0 elsewhere (ties by index).
// α = 1 is ERM. Update does not allocate.
type CVaRDRO struct {
	Alpha float64
	b     *byLoss
}

// NewCVaRDRO returns CVaR-DRO at level α ∈ (0, 1].
func NewCVaRDRO(alpha float64) (*CVaRDRO, error) {
	if !(alpha > 0 && alpha <= 1) {
		return nil, fmt.Errorf("train: CVaR-DRO needs a level α in (0, 1], got %v", alpha)
	}
	return &CVaRDRO{Alpha: alpha}, nil
}

// Scheme returns CVaRScheme with α.
func (w *CVaRDRO) Scheme() Scheme { return Scheme{Kind: CVaRScheme, Param: w.Alpha} }

// Start allocates the buffers.
func (w *CVaRDRO) Start(d *dataset.Dataset) error {
	if !(w.Alpha > 0 && w.Alpha <= 1) {
		return fmt.Errorf("train: CVaR-DRO needs a level α in (0, 1], got %v", w.Alpha)
	}
	w.b = newByLoss(d.N)
	return nil
}

// Update writes the worst-case weights at the given losses.
func (w *CVaRDRO) Update(_ int, logLoss, q []float64) error {
	ok, err := w.b.sortLosses(logLoss)
	if err != nil {
		return err
	}
	if !ok {
		uniform(q)
		return nil
	}
	limit := 1 / (w.Alpha * float64(len(q)))
	left := 1.0
	for _, i := range w.b.idx {
		v := min(limit, max(left, 0))
		q[i] = v
		left -= v
	}
	normalize(q) // absorbs the rounding of the running remainder
	return nil
}

func uniform(q []float64) {
	for i := range q {
		q[i] = 1 / float64(len(q))
	}
}

func normalize(q []float64) {
	var s float64
	for _, v := range q {
		s += v
	}
	for i := range q {
		q[i] /= s
	}
}
