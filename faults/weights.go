package faults

import "github.com/implicitbias/implicitbias/train"

// ignoreWeights applies uniform weights whatever the scheme wrote: every
// GRW scheme silently runs as ERM (issue 18's second finding).
func ignoreWeights(q []float64) {
	s := 0.0
	for _, v := range q {
		s += v
	}
	for i := range q {
		q[i] = s / float64(len(q))
	}
}

// squareWeights applies q_i² rescaled to the same total: the weights'
// ratios are squared.
func squareWeights(q []float64) {
	s, s2 := 0.0, 0.0
	for _, v := range q {
		s += v
		s2 += v * v
	}
	if s2 == 0 {
		return
	}
	for i, v := range q {
		q[i] = v * v * s / s2
	}
}

// dropFirst applies weight 0 to sample 0 (one group of one sample lost on
// the way to the objective: an off-by-one in a group index).
func dropFirst(q []float64) {
	if len(q) > 1 {
		q[0] = 0
	}
}

// uncentred is the L2 regularizer (μ/2)‖θ − θ₀‖² whose gradient forgets
// the centre: Value is right, AddGrad adds μθ. Gradient descent then
// converges to the regularized problem centred at 0.
type uncentred struct{ train.L2 }

func (u uncentred) AddGrad(dst []float64, scale float64, theta []float64) {
	train.L2{Mu: u.Mu}.AddGrad(dst, scale, theta)
}

func withUncentredGradient(r train.Regularizer) train.Regularizer {
	if l2, ok := r.(train.L2); ok && l2.Theta0 != nil {
		return uncentred{l2}
	}
	return r
}
