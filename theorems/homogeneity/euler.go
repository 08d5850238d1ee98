package homogeneity

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
)

// LL-B3 and LL-B3m read the same single-sample gradients ∇Φ_k(θ; x_n), one
// backward pass each; eulerCheck and multiCheck take them one at a time,
// so that PointIdentities decides both from one pass (on LL's CNN the
// gradients are the whole cost of both claims).

// EulerIdentity checks LL-B3, ⟨θ, ∇Φ(θ; x)⟩ = L·Φ(θ; x) at every input and
// output, with |⟨θ,∇Φ⟩ − LΦ| ≤ EulerBound·‖θ‖‖∇Φ‖.
func EulerIdentity(c PointCase) theorems.Verdict {
	e, bad := newEulerCheck(&c)
	if bad != nil {
		return *bad
	}
	if v := pointGrads(&c, c.Theta, e.add); v != nil {
		return *v
	}
	return e.verdict()
}

// MultiHomogeneity checks LL-B3m, ⟨w_i, ∇_{w_i}Φ⟩ = k_i·Φ for every
// parameter block w_i, with the error of each block relative to ‖θ‖‖∇Φ‖ ≤
// EulerBound.
func MultiHomogeneity(c PointCase) theorems.Verdict {
	m, bad := newMultiCheck(&c)
	if bad != nil {
		return *bad
	}
	if v := pointGrads(&c, c.Theta, m.add); v != nil {
		return *v
	}
	return m.verdict()
}

// eulerCheck accumulates LL-B3's worst relative error.
type eulerCheck struct {
	c      *PointCase
	L, rho float64
	worst  float64
	detail string
}

func newEulerCheck(c *PointCase) (*eulerCheck, *theorems.Verdict) {
	if err := c.validate(); err != nil {
		v := theorems.Invalid(err)
		return nil, &v
	}
	L, bad := c.degree()
	if bad != nil {
		return nil, bad
	}
	return &eulerCheck{c: c, L: L, rho: floats.Norm(c.Theta, 2)}, nil
}

func (e *eulerCheck) add(n, k int, phi, gnorm float64, grad []float64) {
	scale := e.rho * gnorm
	if scale == 0 {
		return
	}
	lhs := floats.Dot(e.c.Theta, grad)
	r := math.Abs(lhs-e.L*phi) / scale
	if r > e.worst || math.IsNaN(r) {
		e.worst = r
		e.detail = fmt.Sprintf("input %d output %d: ⟨θ,∇Φ⟩ = %.17g but L·Φ = %.17g (L = %g, ⟨θ,∇Φ⟩/Φ = %.10g)", e.c.First+n, k, lhs, e.L*phi, e.L, lhs/phi)
	}
}

func (e *eulerCheck) verdict() theorems.Verdict {
	return theorems.Compare(e.worst, EulerBound, e.detail)
}

// multiCheck accumulates LL-B3m's worst relative error over the blocks.
type multiCheck struct {
	c      *PointCase
	blocks []models.Block
	ks     []float64
	rho    float64
	worst  float64
	detail string
}

func newMultiCheck(c *PointCase) (*multiCheck, *theorems.Verdict) {
	if err := c.validate(); err != nil {
		v := theorems.Invalid(err)
		return nil, &v
	}
	blocks := c.Model.Blocks()
	ks := c.BlockDegrees
	if ks == nil {
		d := c.Model.Degree()
		if !d.Homogeneous {
			v := theorems.Assumption("(A2) multi-homogeneity: model %s is %s", c.Model, d)
			return nil, &v
		}
		ks = d.Blocks
	}
	if len(ks) != len(blocks) {
		v := theorems.Invalid(fmt.Errorf("theorems: %d block degrees declared for %d blocks", len(ks), len(blocks)))
		return nil, &v
	}
	return &multiCheck{c: c, blocks: blocks, ks: ks, rho: floats.Norm(c.Theta, 2)}, nil
}

func (m *multiCheck) add(n, k int, phi, gnorm float64, grad []float64) {
	scale := m.rho * gnorm
	if scale == 0 {
		return
	}
	for i, b := range m.blocks {
		w := m.c.Theta[b.Offset : b.Offset+b.Len]
		lhs := floats.Dot(w, grad[b.Offset:b.Offset+b.Len])
		r := math.Abs(lhs-m.ks[i]*phi) / scale
		if r > m.worst || math.IsNaN(r) {
			m.worst = r
			m.detail = fmt.Sprintf("input %d output %d block %q: ⟨w,∇_wΦ⟩ = %.17g but k·Φ = %.17g (k = %g)", m.c.First+n, k, b.Name, lhs, m.ks[i]*phi, m.ks[i])
		}
	}
}

func (m *multiCheck) verdict() theorems.Verdict {
	return theorems.Compare(m.worst, EulerBound, m.detail)
}

// PointIdentities returns EulerIdentity(c) and MultiHomogeneity(c), the
// same verdicts, from one pass over the single-sample gradients (half the
// backward passes of the two calls) when both apply; the two calls
// otherwise.
func PointIdentities(c PointCase) (euler, multi theorems.Verdict) {
	e, badE := newEulerCheck(&c)
	m, badM := newMultiCheck(&c)
	if badE != nil || badM != nil {
		return EulerIdentity(c), MultiHomogeneity(c)
	}
	if v := pointGrads(&c, c.Theta, func(n, k int, phi, gnorm float64, grad []float64) {
		e.add(n, k, phi, gnorm, grad)
		m.add(n, k, phi, gnorm, grad)
	}); v != nil {
		return *v, *v
	}
	return e.verdict(), m.verdict()
}
