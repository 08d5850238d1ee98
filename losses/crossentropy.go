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

// logits returns z = LSE_{j≠c}(s_j − s_c).
func ceLogit(s []float64, c int) float64 {
	m := math.Inf(-1)
	for j, v := range s {
		if j != c && v-s[c] > m {
			m = v - s[c]
		}
	}
	if math.IsInf(m, 0) {
		return m
	}
	var sum float64
	for j, v := range s {
		if j != c {
			sum += math.Exp(v - s[c] - m)
		}
	}
	return m + math.Log(sum)
}

// LogLoss returns log ℓ(s; c) with c = int(y).
func (CrossEntropy) LogLoss(s []float64, y float64) float64 {
	return numerics.LogLog1pExp(ceLogit(s, int(y)))
}

// ScaledGrad writes e^{−shift}·∂ℓ/∂s: ∂ℓ/∂s_j = softmax_j(s) for j ≠ c and
// −Σ_{j≠c} softmax_j(s) for j = c. Each softmax_j is formed as
// exp(s_j − s_c − log(1+e^z) − shift), so it survives when it is below 1e-308.
func (CrossEntropy) ScaledGrad(dst, s []float64, y float64, shift float64) {
	c := int(y)
	lse := numerics.Log1pExp(ceLogit(s, c)) // LSE(s) − s_c
	var tot float64
	for j, v := range s {
		if j == c {
			continue
		}
		dst[j] = math.Exp(v - s[c] - lse - shift)
		tot += dst[j]
	}
	dst[c] = -tot
}
