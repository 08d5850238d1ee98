package losses

import (
	"math"

	"github.com/implicitbias/implicitbias/numerics"
)

// CrossEntropy is the multi-class cross-entropy of K scores s and a class c
// (LL App. F):
//
//	ℓ(s; c) = log(1 + Σ_{j≠c} e^{−(s_c − s_j)}) = LSE(s) − s_c.
//
// With z = LSE_{j≠c}(s_j − s_c) it is log(1 + e^z), so log ℓ = log log(1+e^z)
// stays finite for margins s_c − max_{j≠c} s_j up to any size. Its smoothed
// margin is the logistic one (LL Remark A.4, App. F): see MarginLoss.
type CrossEntropy struct{}

// Name returns "ce".
func (CrossEntropy) Name() string { return "ce" }

// Kind returns MultiClass.
func (CrossEntropy) Kind() Kind { return MultiClass }

// MarginLoss returns the logistic loss, whose g defines the smoothed margin
// of the cross-entropy (LL App. F).
func (CrossEntropy) MarginLoss() Margin { return Logistic{} }

// ceLogit returns z = LSE_{j≠c}(s_j − s_c) = log Σ_{j≠c} e^{−(s_c − s_j)}, as
// m + log1p(Σ_{j≠c,k} e^{s_j − s_c − m}) with m = s_k − s_c the largest
// term (see numerics.LogSumExp), so that ℓ = log(1 + e^z).
func ceLogit(s []float64, c int) float64 {
	// k is set whenever m is raised above −Inf; otherwise m = −Inf returns
	// before k is used.
	m := math.Inf(-1)
	var k int
	for j, v := range s {
		if j != c && v-s[c] > m {
			m, k = v-s[c], j
		}
	}
	if math.IsInf(m, 0) {
		return m
	}
	var sum float64
	for j, v := range s {
		if j != c && j != k {
			sum += math.Exp(v - s[c] - m)
		}
	}
	return m + math.Log1p(sum)
}

// LogLoss returns log ℓ(s; c) with c = int(y).
func (CrossEntropy) LogLoss(s []float64, y float64) float64 {
	return numerics.LogLog1pExp(ceLogit(s, int(y)))
}

// ScaledGrad writes e^{−shift}·∂ℓ/∂s: ∂ℓ/∂s_j = softmax_j(s) for j ≠ c and
// −Σ_{j≠c} softmax_j(s) for j = c. Each softmax_j·e^{−shift} is formed as
//
//	exp((s_j − M) − log1p(Σ_{i≠k} e^{s_i − M}) − shift),  M = s_k = max_i s_i,
//
// so that it survives when it is below 1e-308 (ℓ tiny, shift = log ℓ very
// negative), and so that no large number cancels inside the exponent: s_j − M
// is exact for the scores near the top, and only the shift, which the caller
// rounded, can be large. (Forming it as s_j − s_c − ℓ − shift instead loses
// ε·|s_c| when the true class's score is far below the others.)
//
// If every score is −Inf, it writes zeros.
func (CrossEntropy) ScaledGrad(dst, s []float64, y float64, shift float64) {
	c := int(y)
	m := math.Inf(-1)
	k := -1
	for i, v := range s {
		if v > m {
			m, k = v, i
		}
	}
	if k < 0 {
		for j := range dst[:len(s)] {
			dst[j] = 0
		}
		return
	}
	var sum float64
	for i, v := range s {
		if i != k {
			sum += math.Exp(v - m)
		}
	}
	t := math.Log1p(sum) + shift // log Σ_i e^{s_i − M} + shift
	var tot float64
	for j, v := range s {
		if j == c {
			continue
		}
		dst[j] = numerics.Exp(v - m - t)
		tot += dst[j]
	}
	dst[c] = -tot
}
