package losses

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/implicitbias/implicitbias/internal/bigref"
)

// Budgets of Batch.LogLosses in units of ε·(|F| + S) (internal/bigref):
//
//   - logistic log ℓ: t = e^{−|q|} (1 ulp), a = log1p(t) (2 ulp, and t's
//     error passed on with factor t/((1+t)a) ≤ 1), ℓ = |q| + a (½), then
//     log (1 ulp, plus ℓ's relative error on the scale of |log ℓ| + S): 5.
//   - logistic d log ℓ/ds = −y·f′(q): t/a or 1/((1+t)ℓ) from those, a
//     quotient and a product more (1 ulp): 6.
//   - cross-entropy log ℓ: z as ceLogit (4 units for K ≤ 5, numerics'
//     LogSumExp budget) through the logistic log-loss above (5): 9.
//   - cross-entropy ∂ log ℓ/∂s_j: e_j (1 ulp from an exact difference of
//     the top scores, or ε·|s_j − s_c| of the difference's rounding, which
//     S covers), 1/(1+Σ) (1), f′(−z) (6 at −z, whose error z's 4 units
//     pass on), two products (1): 12; the entry for c sums K − 1 of them.
const (
	budgetBatchLogistic     = 5
	budgetBatchLogisticDLog = 6
	budgetBatchCE           = 9
	budgetBatchCEDLog       = 12
)

// ceRefDLog returns ∂ log ℓ/∂s_i = (∂ℓ/∂s_i)/ℓ of the cross-entropy.
func ceRefDLog(c, i int) bigref.FuncN {
	return func(r bigref.Ref, s []*big.Float) *big.Float {
		w := r.W()
		sum := ceSum(w, s, c)
		var num *big.Float
		if i == c {
			num = w.Neg(sum)
		} else {
			num = w.Exp(new(big.Float).SetPrec(2200).Sub(s[i], s[c]))
		}
		return r.Quo(num, w.Mul(w.AddF(sum, 1), w.Log1p(sum)))
	}
}

// marginRefDLog returns d log ℓ(y·s)/ds = −y·f′(y·s).
func marginRefDLog(m marginRef, y float64) bigref.Func {
	return func(r bigref.Ref, s *big.Float) *big.Float {
		w := r.W()
		return r.Mul(w.F(-y), m.fPrime(w, w.Mul(w.F(y), s)))
	}
}

// marginRefLogLoss returns log ℓ(y·s).
func marginRefLogLoss(m marginRef, y float64) bigref.Func {
	return func(r bigref.Ref, s *big.Float) *big.Float {
		w := r.W()
		return m.logLoss(r, w.Mul(w.F(y), s))
	}
}

// TestBatchBinary evaluates every binary loss on one batch of scores from
// −50 to 1e6 (LL App. K's margins) with both labels, and compares log ℓ and
// d log ℓ/ds with the references; the margins must be y·s exactly and the
// exponential loss's values exact.
func TestBatchBinary(t *testing.T) {
	t.Parallel()
	scores := []float64{-50, -37.5, -1, -0.54, 0, 1e-300, 1e-8, 0.5, 1, 18.5, 20, 36.9, 37, 38, 745, 1e4, 1e6}
	var s, y []float64
	for _, v := range scores {
		for _, l := range []float64{1, -1} {
			s, y = append(s, v), append(y, l)
		}
	}
	n := len(y)
	for _, c := range []struct {
		name               string
		m                  Margin
		ref                marginRef
		budget, budgetDLog float64
	}{
		{"exponential", Exponential{}, exponentialRef, 0, 0},
		{"logistic", Logistic{}, logisticRef, budgetBatchLogistic, budgetBatchLogisticDLog},
		// The polynomial tail calls its own methods per sample: their
		// budgets (margin_test.go) and one product.
		{"poly", ZDPolyTail(), polyTailRef(1, 0), 6, 6},
		{"poly(2,0.5)", PolyTail{Alpha: 2, Beta: 0.5}, polyTailRef(2, 0.5), 6, 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			logLoss, q, dlog, work := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, 2*n)
			NewBinary(c.m).LogLosses(logLoss, q, dlog, s, y, work)
			var w, wd bigref.Worst
			for i := range n {
				if q[i] != y[i]*s[i] {
					t.Errorf("q[%d] = %v, want %v", i, q[i], y[i]*s[i])
				}
				what := fmt.Sprintf("%s batch at s=%v, y=%v", c.name, s[i], y[i])
				check(t, &w, what+": log ℓ", fmt.Sprintf("batch.LogLoss/%s/%v", c.name, y[i]), logLoss[i],
					marginRefLogLossN(c.ref, y[i]), c.budget, s[i])
				check(t, &wd, what+": d log ℓ/ds", fmt.Sprintf("batch.DLog/%s/%v", c.name, y[i]), dlog[i],
					marginRefDLogN(c.ref, y[i]), c.budgetDLog, s[i])
			}
			t.Logf("worst log ℓ %.3g units (budget %g), d log ℓ/ds %.3g (budget %g)", w.Units, c.budget, wd.Units, c.budgetDLog)
		})
	}
}

func marginRefLogLossN(m marginRef, y float64) bigref.FuncN {
	f := marginRefLogLoss(m, y)
	return func(r bigref.Ref, x []*big.Float) *big.Float { return f(r, x[0]) }
}

func marginRefDLogN(m marginRef, y float64) bigref.FuncN {
	f := marginRefDLog(m, y)
	return func(r bigref.Ref, x []*big.Float) *big.Float { return f(r, x[0]) }
}

// TestBatchCrossEntropy evaluates the cross-entropy cases of
// crossentropy_test.go as one batch per K and compares log ℓ and every
// ∂ log ℓ/∂s_j with the references; the margins must be the objective's
// s_c − max_{j≠c} s_j exactly.
func TestBatchCrossEntropy(t *testing.T) {
	t.Parallel()
	byK := map[int][]ceCase{}
	for _, c := range ceCases() {
		byK[len(c.s)] = append(byK[len(c.s)], c)
	}
	var w, wd bigref.Worst
	for k, cases := range byK {
		n := len(cases)
		s, y := make([]float64, 0, n*k), make([]float64, n)
		for i, c := range cases {
			s = append(s, c.s...)
			y[i] = float64(c.c)
		}
		logLoss, q, dlog, work := make([]float64, n), make([]float64, n), make([]float64, n*k), make([]float64, 2*n)
		CrossEntropy{}.LogLosses(logLoss, q, dlog, s, y, work)
		for i, c := range cases {
			if want := c.s[c.c] - ceBest(c.s, c.c); q[i] != want {
				t.Errorf("%v, c=%d: q = %v, want %v", c.s, c.c, q[i], want)
			}
			what := fmt.Sprintf("ce batch at %v, c=%d", c.s, c.c)
			check(t, &w, what+": log ℓ", fmt.Sprintf("ce.LogLoss/%d", c.c), logLoss[i], ceRefLogLoss(c.c), budgetBatchCE, c.s...)
			for j := range c.s {
				budget := float64(budgetBatchCEDLog)
				if j == c.c {
					budget *= float64(k - 1)
				}
				check(t, &wd, fmt.Sprintf("%s: ∂ log ℓ/∂s_%d", what, j), fmt.Sprintf("batch.ce.DLog/%d/%d", c.c, j),
					dlog[i*k+j], ceRefDLog(c.c, j), budget, c.s...)
			}
		}
	}
	t.Logf("worst log ℓ %.3g units (budget %d), ∂ log ℓ/∂s %.3g (budget %d per entry)", w.Units, budgetBatchCE, wd.Units, budgetBatchCEDLog)
}

// TestBatchCrossEntropyOverflow: a score difference beyond MaxFloat64 gives
// log ℓ = +Inf (the objective's error) or −Inf (ℓ = 0) with a zero gradient,
// as the scalar LogLoss does, and leaves the other samples alone.
func TestBatchCrossEntropyOverflow(t *testing.T) {
	s := []float64{-1e308, 1e308, 1e308, -1e308, 1, 2}
	y := []float64{0, 0, 0}
	logLoss, q, dlog, work := make([]float64, 3), make([]float64, 3), make([]float64, 6), make([]float64, 6)
	CrossEntropy{}.LogLosses(logLoss, q, dlog, s, y, work)
	for i, want := range []float64{math.Inf(1), math.Inf(-1), CrossEntropy{}.LogLoss(s[4:], 0)} {
		if scalar := (CrossEntropy{}).LogLoss(s[2*i:2*i+2], 0); !bigref.Same(scalar, want) && i < 2 {
			t.Errorf("scalar LogLoss of sample %d = %v, want %v", i, scalar, want)
		}
		if !bigref.Within(logLoss[i], want, 0, 9) {
			t.Errorf("sample %d: log ℓ = %v, want %v", i, logLoss[i], want)
		}
	}
	if dlog[2] != 0 || dlog[3] != 0 || dlog[4] >= 0 || dlog[5] <= 0 {
		t.Errorf("dlog = %v", dlog)
	}
}

// BenchmarkBatch times LogLosses on a tiny property case (n = 30) and on
// W2's batch (n = 1000), against the per-sample methods it replaces (log ℓ
// and the scaled gradient at shift log ℓ).
func BenchmarkBatch(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{30, 1000} {
		for _, c := range []struct {
			name string
			l    Loss
			k    int
		}{
			{"exp", NewBinary(Exponential{}), 1},
			{"logistic", NewBinary(Logistic{}), 1},
			{"poly", NewBinary(ZDPolyTail()), 1},
			{"ce", CrossEntropy{}, 3},
		} {
			s, y := make([]float64, n*c.k), make([]float64, n)
			for i := range s {
				s[i] = 4 * r.NormFloat64()
			}
			for i := range y {
				if c.k == 1 {
					y[i] = float64(1 - 2*r.IntN(2))
				} else {
					y[i] = float64(r.IntN(c.k))
				}
			}
			logLoss, q, dlog, work := make([]float64, n), make([]float64, n), make([]float64, n*c.k), make([]float64, 2*n)
			bl := c.l.(Batch)
			b.Run(fmt.Sprintf("%s/batch/n=%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					bl.LogLosses(logLoss, q, dlog, s, y, work)
				}
			})
			b.Run(fmt.Sprintf("%s/scalar/n=%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					for i := range n {
						sc := s[i*c.k : (i+1)*c.k]
						logLoss[i] = c.l.LogLoss(sc, y[i])
						c.l.ScaledGrad(dlog[i*c.k:(i+1)*c.k], sc, y[i], logLoss[i])
					}
				}
			})
		}
	}
}

// TestPolyTailLogLossFPrime checks that the batch's fused per-sample call
// gives LogLoss's and FPrime's bits on both sides of β, at the kink, far
// left (where leftExcess takes its log-domain form) and at NaN.
func TestPolyTailLogLossFPrime(t *testing.T) {
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
	}
	for _, p := range []PolyTail{ZDPolyTail(), HalfPolyTail(), {Alpha: 2, Beta: 1.5}} {
		for _, q := range []float64{-800, -40, -3, -1e-300, 0, 1e-300, 0.5, 1.5, 2, 1e10, math.Inf(1), math.Inf(-1), math.NaN()} {
			ll, fp := p.logLossFPrime(q)
			if want := p.LogLoss(q); !same(ll, want) {
				t.Errorf("%v: LogLoss(%v) = %v, fused %v", p, q, want, ll)
			}
			if want := p.FPrime(q); !same(fp, want) {
				t.Errorf("%v: FPrime(%v) = %v, fused %v", p, q, want, fp)
			}
		}
	}
}
