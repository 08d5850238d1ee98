package kkt

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/train"
)

// constraintGrads measures what MFCQ (LL-C7) reads at θ — q_min, L, the
// margins q_n(θ̃) and the constraint gradients ∇q_n(θ̃) of (P) at
// θ̃ = θ/q_min^{1/L} — without the multipliers MeasureKKT also solves for
// (an NNLS and an SVM on the P×N gradients, O(P·N²) each): N single-sample
// gradients, O(N·P) time and memory. The fields it leaves unset are zero.
func constraintGrads(obj *train.Objective, theta []float64, L float64) (*KKT, error) {
	_, L, bad := kktSetting(obj, L)
	if bad != nil {
		return nil, &assumptionError{bad.Detail}
	}
	d, N, P := obj.Data, obj.Data.N, obj.Model.NumParams()
	if len(theta) != P {
		return nil, fmt.Errorf("theorems: θ has %d entries, model %s needs %d", len(theta), obj.Model, P)
	}
	ev, err := obj.Evaluate(theta, false)
	if err != nil {
		return nil, err
	}
	if !(ev.QMin > 0) {
		return nil, &assumptionError{fmt.Sprintf("%v (q_min = %.6g): t < t0", ErrNotSeparated, ev.QMin)}
	}
	k := &KKT{L: L, QMin: ev.QMin, LogLoss: ev.LogLoss, Rho: floats.Norm(theta, 2), Margins: make([]float64, N)}
	scaled := make([]float64, P)
	floats.ScaleTo(scaled, math.Pow(ev.QMin, -1/L), theta)
	// Column n of the P×N matrix, filled through its transpose's rows.
	gt := make([]float64, N*P)
	g := models.NewGrader(obj.Model)
	for n := 0; n < N; n++ {
		row := gt[n*P : (n+1)*P]
		phi := g.Grad(scaled, d.Row(n), 0, row)
		y := d.Y[n]
		k.Margins[n] = y * phi
		floats.Scale(y, row)
	}
	k.Grads = mat.DenseCopyOf(mat.NewDense(N, P, gt).T())
	return k, nil
}
