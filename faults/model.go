package faults

import (
	"github.com/implicitbias/implicitbias/models"
)

// faultyModel forwards everything to the model it wraps except what the
// fault changes; it keeps models.Kinked when the inner model has it.
type faultyModel struct {
	models.Model
	// gradScale multiplies the first block's gradient (0: untouched).
	gradScale float64
	// batchMean divides the batched gradient by the batch size when the
	// batch has more than one sample (single-sample gradients stay right).
	batchMean bool
	// degreeShift is added to the declared degree (order and first block).
	degreeShift float64
	name        string
}

func (m faultyModel) Backward(ws models.Workspace, theta, gOut, grad []float64) {
	m.Model.Backward(ws, theta, gOut, grad)
	if n := len(gOut) / m.Model.Out(); m.batchMean && n > 1 {
		for i := range grad {
			grad[i] /= float64(n)
		}
	}
	if m.gradScale != 0 {
		b := m.Model.Blocks()[0]
		for i := b.Offset; i < b.Offset+b.Len; i++ {
			grad[i] *= m.gradScale
		}
	}
}

func (m faultyModel) Degree() models.Degree {
	d := m.Model.Degree()
	if m.degreeShift != 0 && d.Homogeneous {
		d.Order += m.degreeShift
		if len(d.Blocks) > 0 {
			d.Blocks = append([]float64(nil), d.Blocks...)
			d.Blocks[0] += m.degreeShift
		}
	}
	return d
}

type kinkedFaultyModel struct {
	faultyModel
	k models.Kinked
}

func (m kinkedFaultyModel) Pattern(ws models.Workspace, dst []byte) []byte {
	return m.k.Pattern(ws, dst)
}

func wrapModel(m models.Model, f faultyModel) models.Model {
	f.Model = m
	if k, ok := m.(models.Kinked); ok {
		return kinkedFaultyModel{f, k}
	}
	return f
}
