package numerics

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// JackknifeSE returns the delete-one jackknife standard error of a
// statistic from its leave-one-out values b_(k), k = 1…S (b_(k) computed
// without observation k):
//
//	SE² = (S−1)/S · Σ_k (b_(k) − b̄)²,   b̄ the mean of the b_(k)
//
// (Efron & Tibshirani 1993, eq. 11.5). NaN for S < 2.
func JackknifeSE(b []float64) float64 {
	S := len(b)
	if S < 2 {
		return math.NaN()
	}
	mean := stat.Mean(b, nil)
	var ss float64
	for _, v := range b {
		ss += (v - mean) * (v - mean)
	}
	return math.Sqrt(ss * float64(S-1) / float64(S))
}
