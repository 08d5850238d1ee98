package homogeneity

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
)

// PointCase is a model at one parameter vector with a batch of inputs: the
// case of the exact identities of section A, which hold pointwise.
type PointCase struct {
	Model models.Model
	// Degree is the declared homogeneity order L. Zero means "derive it from
	// the architecture": a model that is not symbolically homogeneous then
	// fails the assumption. A nonzero value is tested as declared, which is
	// how a wrong L (or a bias term the declarer forgot) is caught.
	Degree float64
	// BlockDegrees are the declared per-block degrees k_i for LL-B3m; nil
	// means derive them.
	BlockDegrees []float64
	Theta        []float64
	X            []float64 // N×Model.In()
	N            int
	// First is the index in the data set of X's first input (X a block of
	// it), so that a detail names the input as the data number it.
	First int
}

// degree returns the L to test, or an AssumptionFailed verdict.
func (c *PointCase) degree() (float64, *theorems.Verdict) {
	if c.Degree != 0 {
		return c.Degree, nil
	}
	d := c.Model.Degree()
	if !d.Homogeneous {
		v := theorems.Assumption("(A2) homogeneity: model %s is %s", c.Model, d)
		return 0, &v
	}
	return d.Order, nil
}

func (c *PointCase) validate() error {
	if c.Model == nil || c.N < 1 {
		return fmt.Errorf("theorems: point case needs a model and at least one input")
	}
	if len(c.Theta) != c.Model.NumParams() || len(c.X) != c.N*c.Model.In() {
		return fmt.Errorf("theorems: point case shape mismatch: θ has %d entries (want %d), X has %d (want %d)",
			len(c.Theta), c.Model.NumParams(), len(c.X), c.N*c.Model.In())
	}
	for _, v := range c.Theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("theorems: θ has a non-finite entry")
		}
	}
	return nil
}

// sample returns input i.
func (c *PointCase) sample(i int) []float64 {
	d := c.Model.In()
	return c.X[i*d : (i+1)*d]
}
