package cases

import (
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"

	"github.com/implicitbias/implicitbias/properties"
)

// Variant selects what a generated architecture breaks.
type Variant int

const (
	// Homogeneous cases meet (A2).
	Homogeneous Variant = iota
	// WithBias adds a bias term to every layer (depth ≥ 2, so that the model
	// is not homogeneous).
	WithBias
	// NonHomogeneousAct uses tanh or softplus (depth ≥ 2).
	NonHomogeneousAct
)

// GenArch generates architectures: depth 1–5, widths 1–64, every
// homogeneous activation, linear, deep linear, MLP, 1-D CNN and 2-D CNN
// families (archcase.go, spec2D: 4×4…8×8 images of 1–3 channels, stride, padding,
// max and average pooling, as in LL's MNIST network), scalar or
// multi-class outputs. The variants are the negative controls.
func GenArch(v Variant) properties.Gen[ArchCase] {
	fam, depth := gen.IntRange(0, numFamilies-1), gen.IntRange(1, 5)
	if v != Homogeneous {
		// A bias in a one-layer model, or tanh on the raw input, keeps
		// homogeneity: the controls need at least two layers.
		fam, depth = gen.IntRange(FamDeepLinear, numFamilies-1), gen.IntRange(2, 5)
	}
	if v == NonHomogeneousAct {
		fam = gen.IntRange(FamMLP, numFamilies-1)
	}
	return properties.StructOf[ArchCase](map[string]gopter.Gen{
		"Family":         fam,
		"Depth":          depth,
		"Width":          gen.IntRange(1, 64),
		"Act":            gen.IntRange(0, len(homogeneousActs)-1),
		"In":             gen.IntRange(1, 12),
		"Outputs":        gen.IntRange(1, 4),
		"Samples":        gen.IntRange(1, 5),
		"Conv":           gen.IntRange(1, 2),
		"Seed":           gen.UInt64(),
		"Bias":           gen.Const(v == WithBias),
		"NonHomogeneous": gen.Const(v == NonHomogeneousAct),
	})
}

// ScaledCase is an architecture with a scale s = 10^LogScale (LL-B2a/B2b).
type ScaledCase struct {
	Arch     ArchCase
	LogScale float64
}

// GenScaled generates architectures with log₁₀ s ∈ [−3, 3] (catalog:
// c ∈ [1e-3, 1e3]); away from 0 when away is set, so that a control is not
// run at s ≈ 1, where every model is homogeneous.
func GenScaled(v Variant, away bool) properties.Gen[ScaledCase] {
	ls := gen.Float64Range(-3, 3)
	if away {
		ls = gen.OneGenOf(gen.Float64Range(-3, -0.3), gen.Float64Range(0.3, 3))
	}
	return properties.StructOf[ScaledCase](map[string]gopter.Gen{
		"Arch":     gopter.Gen(GenArch(v)),
		"LogScale": ls,
	})
}
