package cases

import (
	"errors"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/proptest"
)

// TestGenDataSeparable: a separable dataset is classified correctly by its
// teacher with the margin asked for, and has the requested shape.
func TestGenDataSeparable(t *testing.T) { genDataSeparable(t, proptest.Seed(t)) }

func genDataSeparable(t *testing.T, seed int64) {
	params := gopter.DefaultTestParametersWithSeed(seed)
	props := gopter.NewProperties(params)
	props.Property("teacher separates its data", prop.ForAll(func(c DataCase) *gopter.PropResult {
		d, m, theta, err := c.Build()
		if errors.Is(err, ErrDegenerate) {
			// A dead or one-class teacher: every check counts the case
			// as undecided (undecidedOr); so does this test.
			return &gopter.PropResult{Status: gopter.PropUndecided}
		}
		if err != nil {
			t.Log(err)
			return gopter.NewPropResult(false, err.Error())
		}
		return gopter.NewPropResult(separates(c, d, m, theta), "")
	}, gopter.Gen(GenData(true))))
	props.TestingRun(t)
}

// separates reports whether the teacher (m, θ) labels every sample of d
// correctly with a positive margin, on unit inputs of the requested shape.
func separates(c DataCase, d *dataset.Dataset, m models.Model, theta []float64) bool {
	if d.Validate() != nil || d.N != c.n() || m.In() != d.D {
		return false
	}
	out := m.Forward(m.NewWorkspace(d.N), theta, d.X, d.N)
	k := m.Out()
	for i := 0; i < d.N; i++ {
		mg, label := TeacherMargin(out[i*k : (i+1)*k])
		if label != d.Y[i] || mg <= 0 {
			return false
		}
		if n := floats.Norm(d.Row(i), 2); n < 1-1e-12 || n > 1+1e-12 {
			return false
		}
	}
	if c.NumClasses() == 2 {
		return d.ValidateBinary() == nil
	}
	return d.ValidateClasses(c.NumClasses()) == nil
}

// TestGenDataNoisy: noisy datasets disagree with their teacher somewhere
// (for all but tiny samples).
func TestGenDataNoisy(t *testing.T) {
	flipped := 0
	cases := properties.Sample(GenData(false), 3, 50)
	for _, dc := range cases {
		d, m, theta, err := dc.Build()
		if err != nil {
			t.Fatal(err)
		}
		out := m.Forward(m.NewWorkspace(d.N), theta, d.X, d.N)
		for i := 0; i < d.N; i++ {
			if _, label := TeacherMargin(out[i*m.Out() : (i+1)*m.Out()]); label != d.Y[i] {
				flipped++
			}
		}
	}
	if flipped == 0 {
		t.Fatal("no noisy dataset flipped a label")
	}
}
