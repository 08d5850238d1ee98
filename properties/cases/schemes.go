package cases

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/implicitbias/implicitbias/train"
)

// GRW schemes of the generated cases (ZD §3). The schedules are the random
// dynamic GRWs: A1 satisfies Assumption 1 (q^{(t)} → q, min q > 0), A3
// only Assumption 3 (liminf q_i > 0, periodic, no limit), and vanishing
// breaks both (one q_i → 0 geometrically: the negative control of ZD-T2).
const (
	SchemeERM = iota
	SchemeIW
	SchemeStatic
	SchemeGroupDRO
	SchemeChiSquare
	SchemeCVaR
	SchemeScheduleA1
	SchemeScheduleA3
	NumSchemes
	// SchemeVanishing is not drawn by GenRegression unless asked for.
	SchemeVanishing = NumSchemes
)

var SchemeNames = []string{"erm", "iw", "static", "gdro", "chi2", "cvar", "schedule-A1", "schedule-A3", "vanishing"}

// NewScheme returns GRW scheme number scheme with its parameter p ∈ [0, 1]
// mapped to the scheme's range and its random parts drawn from seed, for n
// samples (shared by the regression and classification cases).
func NewScheme(scheme int, param float64, seed uint64, n int) (train.Weighting, error) {
	p := math.Min(math.Max(param, 0), 1)
	r := rand.New(rand.NewPCG(seed, 22))
	switch scheme {
	case SchemeERM:
		return &train.ERM{}, nil
	case SchemeIW:
		return &train.ImportanceWeighting{}, nil
	case SchemeStatic:
		w := make([]float64, n)
		for i := range w {
			w[i] = 0.2 + r.Float64()
		}
		return &train.Static{W: w}, nil
	case SchemeGroupDRO:
		return train.NewGroupDRO(0.01+p, nil) // ν ∈ [0.01, 1]
	case SchemeChiSquare:
		return train.NewChiSquareDRO(math.Pow(10, -1+2*p)) // ρ ∈ [0.1, 10]
	case SchemeCVaR:
		return train.NewCVaRDRO(0.2 + 0.8*p) // α ∈ [0.2, 1]
	case SchemeScheduleA1:
		return scheduleA1(r, n, p), nil
	case SchemeScheduleA3:
		return scheduleA3(r, n, p), nil
	case SchemeVanishing:
		return scheduleVanishing(r, n, p), nil
	}
	return nil, fmt.Errorf("unknown scheme %d", scheme)
}

// scheduleA1 is q^{(t)} ∝ q + (q₀ − q)·ρ^t·(1 + cos ωt)/2 with random q,
// q₀ in [0.2, 1]^n (so every q^{(t)} lies between them) and ρ ∈
// [0.9, 0.999]: it converges to q/Σq, whose entries are ≥ 0.2/n (ZD
// Assumption 1).
func scheduleA1(r *rand.Rand, n int, p float64) *train.Schedule {
	lim, start := make([]float64, n), make([]float64, n)
	for i := range lim {
		lim[i], start[i] = 0.2+0.8*r.Float64(), 0.2+0.8*r.Float64()
	}
	rho, omega := 0.9+0.099*p, 0.5*r.Float64()
	return &train.Schedule{Kind: train.ScheduleA1, At: func(t int, q []float64) {
		f := math.Pow(rho, float64(t)) * (1 + math.Cos(omega*float64(t))) / 2
		for i := range q {
			q[i] = lim[i] + (start[i]-lim[i])*f
		}
	}}
}

// scheduleA3 alternates between two random weight vectors in [0.2, 1]^n
// with period 2…11: liminf q_i > 0 (ZD Assumption 3) but no limit, so
// Assumption 1 fails.
func scheduleA3(r *rand.Rand, n int, p float64) *train.Schedule {
	a, b := make([]float64, n), make([]float64, n)
	for i := range a {
		a[i], b[i] = 0.2+0.8*r.Float64(), 0.2+0.8*r.Float64()
	}
	a[0], b[0] = 1, 0.2 // the two vectors differ
	period := 2 + int(10*p)
	if period > 11 {
		period = 11
	}
	return &train.Schedule{Kind: train.ScheduleA3, At: func(t int, q []float64) {
		src := a
		if (t/period)%2 == 1 {
			src = b
		}
		copy(q, src)
	}}
}

// scheduleVanishing sends the weight of one random sample to 0 as c·ρ^t,
// ρ ∈ [0.5, 0.9], the others fixed in [0.2, 1]: Σ_t q_i^{(t)} < ∞, so
// sample i is never fitted (breaks Assumptions 1 and 3).
func scheduleVanishing(r *rand.Rand, n int, p float64) *train.Schedule {
	w := make([]float64, n)
	for i := range w {
		w[i] = 0.2 + 0.8*r.Float64()
	}
	gone := r.IntN(n)
	rho := 0.5 + 0.4*p
	return &train.Schedule{Kind: train.VanishingSchedule, At: func(t int, q []float64) {
		copy(q, w)
		q[gone] = w[gone] * math.Pow(rho, float64(t))
	}}
}

func Anys(xs []int) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// grwSchemes lists every scheme of GenRegression; a1Schemes those that
// satisfy ZD Assumption 1 (q^{(t)} → q with min q > 0): static schemes with
// positive weights, Group DRO (whose weights converge, ZD-GDRO) and the
// A1 schedules. χ²-DRO and CVaR-DRO may put weight 0 on samples (CVaR
// always does for α < 1), so they are in ZD-T1's claim (risk → 0 holds for
// them too) but not in ZD-T2's.
var (
	A1Schemes  = []int{SchemeERM, SchemeIW, SchemeStatic, SchemeGroupDRO, SchemeScheduleA1}
	RegSchemes = []int{SchemeERM, SchemeIW, SchemeStatic}
)
