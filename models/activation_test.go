package models

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"
)

var actPoints = []float64{-2, -0.5, 0, 0.5, 2}

// Values and derivatives at actPoints. The piecewise-polynomial ones are
// exact in binary floating point (compared with ==). At the kink z = 0 the
// convention is the left derivative: ReLU'(0) = 0, LeakyReLU'(0) = α,
// (ReLU^k)'(0) = 0.
var actTests = []struct {
	act        Activation
	spell      string
	val, deriv []float64
	degree     float64
	homog      bool
	kinked     bool
}{
	{ActReLU, "relu", []float64{0, 0, 0, 0.5, 2}, []float64{0, 0, 0, 1, 1}, 1, true, true},
	{ActLeaky(0.25), "lrelu0.25", []float64{-0.5, -0.125, 0, 0.5, 2}, []float64{0.25, 0.25, 0.25, 1, 1}, 1, true, true},
	{ActReLUPow(2), "relu2", []float64{0, 0, 0, 0.25, 4}, []float64{0, 0, 0, 1, 4}, 2, true, true},
	{ActReLUPow(3), "relu3", []float64{0, 0, 0, 0.125, 8}, []float64{0, 0, 0, 0.75, 12}, 3, true, false},
	{ActReLUPow(5), "relu5", []float64{0, 0, 0, 0.03125, 32}, []float64{0, 0, 0, 0.3125, 80}, 5, true, false},
	{ActQuadratic, "quad", []float64{4, 0.25, 0, 0.25, 4}, []float64{-4, -1, 0, 1, 4}, 2, true, false},
	{ActIdentity, "id", []float64{-2, -0.5, 0, 0.5, 2}, []float64{1, 1, 1, 1, 1}, 1, true, false},
	{ActTanh, "tanh", nil, nil, 0, false, false},
	{ActSoftplus, "softplus", nil, nil, 0, false, false},
}

func TestActivationValues(t *testing.T) {
	for _, tc := range actTests {
		val, deriv := tc.val, tc.deriv
		exact := val != nil
		if !exact {
			// From the definitions, by other formulas than the package's:
			// tanh' = 1/cosh², softplus = log(1 + e^z), softplus' = e^z/(1 + e^z).
			for _, z := range actPoints {
				switch tc.act.Kind {
				case Tanh:
					val = append(val, math.Tanh(z))
					deriv = append(deriv, 1/(math.Cosh(z)*math.Cosh(z)))
				case Softplus:
					val = append(val, math.Log(1+math.Exp(z)))
					deriv = append(deriv, math.Exp(z)/(1+math.Exp(z)))
				}
			}
		}
		dst := make([]float64, len(actPoints))
		dd := make([]float64, len(actPoints))
		tc.act.apply(dst, dd, actPoints)
		for i, z := range actPoints {
			if exact {
				assert.Equal(t, val[i], dst[i], "%s(%g)", tc.spell, z)
				assert.Equal(t, deriv[i], dd[i], "%s'(%g)", tc.spell, z)
			} else {
				// A few ulps: the formulas differ in rounding only.
				assert.True(t, scalar.EqualWithinAbsOrRel(dst[i], val[i], 1e-15, 1e-15), "%s(%g) = %v, want %v", tc.spell, z, dst[i], val[i])
				assert.True(t, scalar.EqualWithinAbsOrRel(dd[i], deriv[i], 1e-15, 1e-15), "%s'(%g) = %v, want %v", tc.spell, z, dd[i], deriv[i])
			}
		}
		// Without a derivative buffer the values are the same.
		dst2 := make([]float64, len(actPoints))
		tc.act.apply(dst2, nil, actPoints)
		assert.Equal(t, dst, dst2, tc.spell)

		// Derivative against central differences away from the kink.
		// Error h²/6·|σ'''| + ε|σ|/h ≈ 1e-11 for h = 1e-5 at these points.
		const h = 1e-5
		for _, z := range []float64{-1.3, -0.2, 0.3, 1.7} {
			var p, m, v, d [1]float64
			tc.act.apply(p[:], nil, []float64{z + h})
			tc.act.apply(m[:], nil, []float64{z - h})
			tc.act.apply(v[:], d[:], []float64{z})
			assert.InDelta(t, (p[0]-m[0])/(2*h), d[0], 1e-8, "%s'(%g)", tc.spell, z)
		}

		assert.Equal(t, tc.spell, tc.act.String())
		back, err := ParseActivation(tc.spell)
		require.NoError(t, err, tc.spell)
		assert.Equal(t, tc.act, back, tc.spell)

		k, ok := tc.act.Degree()
		assert.Equal(t, tc.homog, ok, tc.spell)
		assert.Equal(t, tc.degree, k, tc.spell)
		assert.Equal(t, tc.kinked, tc.act.kinked(), tc.spell)
	}
}

// TestActivationHomogeneous checks σ(cz) = c^k σ(z) exactly for c a power of
// two, where scaling is exact in floating point.
func TestActivationHomogeneous(t *testing.T) {
	for _, tc := range actTests {
		k, ok := tc.act.Degree()
		if !ok {
			continue
		}
		for _, c := range []float64{0.25, 8} {
			z := make([]float64, len(actPoints))
			for i, v := range actPoints {
				z[i] = c * v
			}
			a := make([]float64, len(z))
			b := make([]float64, len(z))
			tc.act.apply(a, nil, z)
			tc.act.apply(b, nil, actPoints)
			for i := range a {
				assert.Equal(t, math.Pow(c, k)*b[i], a[i], "%s at %g·%g", tc.spell, c, actPoints[i])
			}
		}
	}
}

func TestSoftplusExtremes(t *testing.T) {
	z := []float64{-800, -40, 40, 800}
	dst := make([]float64, len(z))
	dd := make([]float64, len(z))
	ActSoftplus.apply(dst, dd, z)
	// log(1+e^z) = z + log1p(e^{−z}): e^{−40} ≈ 4e-18 is below half an ulp
	// of 40, so softplus(40) rounds to 40; softplus(−40) = log1p(e^{−40}) ≈
	// e^{−40}; at ±800 a naive formula would overflow.
	assert.Equal(t, []float64{0, math.Exp(-40), 40, 800}, dst)
	assert.Equal(t, 0.0, dd[0])
	assert.InDelta(t, math.Exp(-40), dd[1], 1e-30)
	assert.Equal(t, []float64{1, 1}, dd[2:])
}

func TestParseActivation(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want Activation
	}{
		{"relu", ActReLU},
		{"relu1", ActReLU},
		{"relu8", ActReLUPow(8)},
		{"lrelu", ActLeaky(0.1)},
		{"lrelu0.01", ActLeaky(0.01)},
		{"lrelu.5", ActLeaky(0.5)},
		{"lrelu1e-3", ActLeaky(1e-3)},
		{"quad", ActQuadratic},
		{"id", ActIdentity},
		{"linear", ActIdentity},
		{"tanh", ActTanh},
		{"softplus", ActSoftplus},
	} {
		got, err := ParseActivation(tc.s)
		require.NoError(t, err, tc.s)
		assert.Equal(t, tc.want, got, tc.s)
		back, err := ParseActivation(got.String())
		require.NoError(t, err, tc.s)
		assert.Equal(t, got, back, tc.s)
	}
	// An irrational-looking slope survives the round trip exactly
	// (shortest representation that parses back to the same float64).
	a := ActLeaky(1 / 3.0)
	back, err := ParseActivation(a.String())
	require.NoError(t, err)
	assert.Equal(t, a, back)

	for _, tc := range []struct{ s, msg string }{
		{"", "unknown activation"},
		{"sigmoid", `unknown activation "sigmoid"`},
		{"RELU", "unknown activation"},
		{"lrelu2", "leaky slope must be a number in (0, 1)"},
		{"lrelu1", "leaky slope"},
		{"lrelu0", "leaky slope"},
		{"lrelu-0.1", "leaky slope"},
		{"lreluNaN", "leaky slope"},
		{"lrelux", "leaky slope"},
		{"relu0", "ReLU power must be an integer in [1, 8]"},
		{"relu9", "ReLU power"},
		{"relu-2", "ReLU power"},
		{"relu2.0", "ReLU power"},
		{"relux", "ReLU power"},
	} {
		_, err := ParseActivation(tc.s)
		if assert.Error(t, err, tc.s) {
			assert.Contains(t, err.Error(), tc.msg, tc.s)
		}
	}
	assert.Equal(t, "unknown", Activation{Kind: ActKind(99)}.String())
	assert.Panics(t, func() { Activation{Kind: ActKind(99)}.apply(make([]float64, 1), nil, []float64{1}) })
}

// TestGELUValues checks the exact GELU σ(z) = zΦ(z) and σ′(z) = Φ(z) + zφ(z)
// against values computed by mpmath with 40 digits (ncdf, npdf), and σ′
// against central differences; the spelling round-trips and GELU is neither
// homogeneous nor kinked.
func TestGELUValues(t *testing.T) {
	want := []float64{-0.04550026389635841440056527, -0.1542687693629934481811477, 0, 0.3457312306370065518188523, 1.954499736103641585599435}
	wantD := []float64{-0.08523180107819689670084576, 0.1325048753438371574749552, 0.5, 0.8674951246561628425250448, 1.085231801078196896700846}
	dst := make([]float64, len(actPoints))
	dd := make([]float64, len(actPoints))
	ActGELU.apply(dst, dd, actPoints)
	for i, z := range actPoints {
		// erfc and exp are within an ulp or two; the products add one
		// rounding each.
		assert.True(t, scalar.EqualWithinAbsOrRel(dst[i], want[i], 1e-16, 1e-15), "gelu(%g) = %v, want %v", z, dst[i], want[i])
		assert.True(t, scalar.EqualWithinAbsOrRel(dd[i], wantD[i], 1e-16, 1e-15), "gelu'(%g) = %v, want %v", z, dd[i], wantD[i])
	}
	const h = 1e-5
	for _, z := range []float64{-3.1, -1.3, -0.2, 0.3, 1.7, 4} {
		var p, m, v, d [1]float64
		ActGELU.apply(p[:], nil, []float64{z + h})
		ActGELU.apply(m[:], nil, []float64{z - h})
		ActGELU.apply(v[:], d[:], []float64{z})
		assert.InDelta(t, (p[0]-m[0])/(2*h), d[0], 1e-8, "gelu'(%g)", z)
	}
	// Far tails: σ(−40) underflows to −0 (40·Φ(−40) ≈ 1e-348), σ(40) = 40.
	ActGELU.apply(dst[:2], dd[:2], []float64{-40, 40})
	assert.Equal(t, 0.0, dst[0])
	assert.Equal(t, 40.0, dst[1])
	assert.Equal(t, 1.0, dd[1])
	back, err := ParseActivation("gelu")
	require.NoError(t, err)
	assert.Equal(t, ActGELU, back)
	assert.Equal(t, "gelu", ActGELU.String())
	_, ok := ActGELU.Degree()
	assert.False(t, ok)
	assert.False(t, ActGELU.kinked())
}
