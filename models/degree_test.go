package models_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/implicitbias/implicitbias/models"
)

// Expected degrees are derived by hand from the rule of THEOREMS.md: a
// bias-free layer adds 1 to the degree of its input in its own block, an
// activation of degree k multiplies every block's degree by k, pooling keeps
// it. So for an activation of degree k the layer-h block has degree k^{H−h}
// and L_{h+1} = 1 + k·L_h.
var homogeneousTests = []struct {
	spec   string
	in     int
	blocks []float64
	str    string
}{
	{"linear", 3, []float64{1}, "L=1 (blocks 1)"},
	{"linear/3", 3, []float64{1}, "L=1 (blocks 1)"},
	// Φ = Wx + b: both summands have degree 1.
	{"linear+bias", 3, []float64{1}, "L=1 (blocks 1)"},
	{"deeplinear:3", 3, []float64{1, 1, 1}, "L=3 (blocks 1+1+1)"},
	{"deeplinear:5x2", 3, []float64{1, 1, 1, 1, 1}, "L=5 (blocks 1+1+1+1+1)"},
	{"mlp:relu:2x8", 3, []float64{1, 1}, "L=2 (blocks 1+1)"},
	{"mlp:relu:4x8", 3, []float64{1, 1, 1, 1}, "L=4 (blocks 1+1+1+1)"},
	{"mlp:lrelu0.2:3x4", 3, []float64{1, 1, 1}, "L=3 (blocks 1+1+1)"},
	{"mlp:relu:5-3/4", 3, []float64{1, 1, 1}, "L=3 (blocks 1+1+1)"},
	// k = 2: L = 1 → 1+2·1 = 3 → 1+2·3 = 7; blocks 2², 2, 1.
	{"mlp:relu2:3x4", 3, []float64{4, 2, 1}, "L=7 (blocks 4+2+1)"},
	{"mlp:quad:2x5", 3, []float64{2, 1}, "L=3 (blocks 2+1)"},
	{"mlp:quad:3x5", 3, []float64{4, 2, 1}, "L=7 (blocks 4+2+1)"},
	// k = 3: L = 1 → 4 → 13; blocks 3², 3, 1.
	{"mlp:relu3:3x4", 3, []float64{9, 3, 1}, "L=13 (blocks 9+3+1)"},
	{"mlp:relu3:2x4", 3, []float64{3, 1}, "L=4 (blocks 3+1)"},
	// k = 2, four layers: 8+4+2+1 = 15.
	{"mlp:relu2:4x3", 2, []float64{8, 4, 2, 1}, "L=15 (blocks 8+4+2+1)"},
	// A bias in the first layer sees only the raw input: W₁x + b₁ is still
	// of degree 1 in block 1.
	{"mlp:relu:3x8+bias@1", 3, []float64{1, 1, 1}, "L=3 (blocks 1+1+1)"},
	{"mlp:relu2:3x4+bias@1", 3, []float64{4, 2, 1}, "L=7 (blocks 4+2+1)"},
	{"deeplinear:3+bias@1", 3, []float64{1, 1, 1}, "L=3 (blocks 1+1+1)"},
	// A one-layer "MLP" has no activation at all.
	{"mlp:tanh:1x8", 3, []float64{1}, "L=1 (blocks 1)"},
	// Pooling has degree 1.
	{"cnn:relu:4c3-max2,4c3-avg2:8", 16, []float64{1, 1, 1, 1}, "L=4 (blocks 1+1+1+1)"},
	{"cnn:id:2c1-avg2", 5, []float64{1, 1}, "L=2 (blocks 1+1)"},
	{"cnn:quad:2c3-max2/3", 9, []float64{2, 1}, "L=3 (blocks 2+1)"},
	// conv → relu² → avg → dense → relu² → dense: 1 → 2 → 2 → 1+2·2... per
	// block: conv 2·2 = 4, dense 2, output 1.
	{"cnn:relu2:2c2-avg2:3", 8, []float64{4, 2, 1}, "L=7 (blocks 4+2+1)"},
	{"cnn:relu3:2c2s2-max2:3@2", 16, []float64{9, 3, 1}, "L=13 (blocks 9+3+1)"},
	{"cnn:relu:2c2:3+bias@1", 6, []float64{1, 1, 1}, "L=3 (blocks 1+1+1)"},
	// 2-D convolutions are bias-free affine maps like dense layers; 2-D
	// pooling keeps the degree; padding and stride do not change it. LL's
	// CNN (App. J): four blocks of degree 1, a bias in layer 1 only.
	{"cnn2d:28x28x1:relu:32c5-max2,64c3-max2:1024:10+bias@1", 784, []float64{1, 1, 1, 1}, "L=4 (blocks 1+1+1+1)"},
	{"cnn2d:6x6x2:relu:3c3-valid-avg2,2c2s2:4:3", 72, []float64{1, 1, 1, 1}, "L=4 (blocks 1+1+1+1)"},
	// relu²: conv 2·2 = 4, dense 2, output 1, as for cnn:relu2 above.
	{"cnn2d:6x6x1:relu2:2c3-max2:3", 36, []float64{4, 2, 1}, "L=7 (blocks 4+2+1)"},
	{"cnn2d:6x6x1:quad:2c3-avg3", 36, []float64{2, 1}, "L=3 (blocks 2+1)"},
	{"cnn2d:5x5x1:id:2c3s2-valid::2+bias@1", 25, []float64{1, 1}, "L=2 (blocks 1+1)"},
}

func TestDegreeHomogeneous(t *testing.T) {
	for _, tc := range homogeneousTests {
		m, err := models.Parse(tc.spec, tc.in)
		require.NoError(t, err, tc.spec)
		d := m.Degree()
		require.True(t, d.Homogeneous, "%s: %s", tc.spec, d.Reason)
		assert.Equal(t, tc.blocks, d.Blocks, tc.spec)
		assert.Equal(t, floats.Sum(tc.blocks), d.Order, tc.spec)
		assert.Empty(t, d.Reason, tc.spec)
		assert.Len(t, m.Blocks(), len(tc.blocks), tc.spec)
		assert.Equal(t, tc.str, d.String(), tc.spec)
	}
}

func TestDegreeNonHomogeneous(t *testing.T) {
	for _, tc := range []struct {
		spec   string
		in     int
		reason string
	}{
		// Layer 2: W₂σ(W₁x) has degree 1+1 = 2, b₂ degree 1.
		{"mlp:relu:3x8+bias", 3, "bias term of layer 2 has degree 1 but its weight term has degree 2"},
		{"mlp:relu:3x8+bias@2", 3, "bias term of layer 2 has degree 1 but its weight term has degree 2"},
		{"mlp:relu:3x8+bias@3", 3, "bias term of layer 3 has degree 1 but its weight term has degree 3"},
		// relu²: W₂σ(W₁x) has degree 2+1 = 3.
		{"mlp:relu2:3x4+bias@2", 3, "bias term of layer 2 has degree 1 but its weight term has degree 3"},
		{"deeplinear:2+bias@2", 3, "bias term of layer 2"},
		{"linear/2+bias@1+bias@1", 3, ""}, // control: still homogeneous
		{"cnn:relu:2c2:3+bias@2", 6, "bias term of layer 2"},
		{"cnn:relu:2c2-max2,2c2+bias@2", 8, "bias term of layer 2"},
		{"mlp:tanh:2x8", 3, "activation tanh is not homogeneous"},
		{"mlp:softplus:3x4", 3, "activation softplus is not homogeneous"},
		{"cnn:tanh:2c2", 6, "activation tanh"},
		{"cnn:softplus:2c2-max2:3", 8, "activation softplus"},
		// LL's "CNN with bias" (App. J): the second conv's bias has degree
		// 1 against 2 for its weight term.
		{"cnn2d:8x8x1:relu:2c5-max2,3c3-max2:4:2+bias", 64, "bias term of layer 2 has degree 1 but its weight term has degree 2"},
		{"cnn2d:8x8x1:relu:2c5-max2:4:2+bias@3", 64, "bias term of layer 3 has degree 1 but its weight term has degree 3"},
		{"cnn2d:8x8x1:tanh:2c3-avg2:4:2", 64, "activation tanh is not homogeneous"},
		{"cnn2d:8x8x1:tanh:2c3-avg2:4:2+bias@1", 64, "activation tanh is not homogeneous"},
		{"cnn2d:8x8x1:relu:2c3-max2::2+bias@1+bias@1", 64, ""}, // control: still homogeneous
		// The first problem met is reported.
		{"mlp:tanh:2x8+bias@2", 3, "activation tanh"},
	} {
		m, err := models.Parse(tc.spec, tc.in)
		require.NoError(t, err, tc.spec)
		d := m.Degree()
		if tc.reason == "" {
			assert.True(t, d.Homogeneous, tc.spec)
			continue
		}
		assert.False(t, d.Homogeneous, tc.spec)
		assert.Contains(t, d.Reason, tc.reason, tc.spec)
		assert.Equal(t, "not homogeneous: "+d.Reason, d.String(), tc.spec)
		assert.Nil(t, d.Blocks, tc.spec)
		assert.Zero(t, d.Order, tc.spec)
	}
}

// TestDegreeScaling is a cheap numerical sanity check of the symbolic
// degrees (package properties has the thorough version): Φ(cθ) = c^L Φ(θ),
// and scaling block i alone by c gives c^{k_i} Φ (LL-B2a, LL-B3m).
// Scaling changes only the rounding: each output is a sum of products of
// L + 1 factors, so the relative error is a few ulps times the depth and
// widths; 1e-12 (the tolerance of LL-B2a) is far above that, relative to
// the largest output of the batch so that cancellation in one output does
// not count.
func TestDegreeScaling(t *testing.T) {
	const (
		n   = 4
		tol = 1e-12
	)
	for _, spec := range []struct {
		spec string
		in   int
	}{
		{"mlp:relu2:3x4", 3},
		{"mlp:relu3:3x4", 3},
		{"mlp:relu:3x8+bias@1", 3},
		{"cnn:relu:4c3-max2,4c3-avg2:8", 16},
		{"cnn:quad:2c3-max2/3", 9},
		{"cnn2d:8x8x1:relu:2c5-max2,3c3-max2::2+bias@1", 64},
		{"cnn2d:6x6x1:relu2:2c3s2-avg2:3", 36},
	} {
		m, err := models.Parse(spec.spec, spec.in)
		require.NoError(t, err, spec.spec)
		r := rand.New(rand.NewPCG(1, 1))
		theta := make([]float64, m.NumParams())
		m.Init(r, theta)
		x := randVec(r, n*spec.in)
		ws := m.NewWorkspace(n)
		y := append([]float64(nil), m.Forward(ws, theta, x, n)...)
		scaled := make([]float64, len(theta))
		check := func(c, k float64, what string) {
			yc := m.Forward(ws, scaled, x, n)
			ck := math.Pow(c, k)
			scale := ck * maxAbs(y)
			for i := range y {
				assert.True(t, scalar.EqualWithinAbsOrRel(yc[i], ck*y[i], tol*scale, tol),
					"%s: %s, c=%g: Φ(cθ)=%v, c^%g·Φ(θ)=%v", spec.spec, what, c, yc[i], k, ck*y[i])
			}
		}
		d := m.Degree()
		for _, c := range []float64{0.37, 2.5} {
			floats.ScaleTo(scaled, c, theta)
			check(c, d.Order, "all of θ")
			for b, blk := range m.Blocks() {
				copy(scaled, theta)
				floats.Scale(c, scaled[blk.Offset:blk.Offset+blk.Len])
				check(c, d.Blocks[b], blk.Name)
			}
		}
	}
}

// TestDegreeScalingNegativeControl checks that a model declared
// non-homogeneous is indeed not: log|Φ(cθ)/Φ(θ)|/log c, the apparent
// degree, changes with c. At c = 1e-3 the bias (degree 1) or the linear part
// of tanh/softplus dominates, at c = 1e3 the weights (degree 2) or the
// saturation do, so the two apparent degrees differ by O(1).
func TestDegreeScalingNegativeControl(t *testing.T) {
	for _, spec := range []string{"mlp:relu:2x6+bias@2", "mlp:tanh:2x6", "mlp:softplus:2x6",
		"cnn2d:1x3x1:tanh:2c3:6"} { // (a cnn2d bias starts at 0, LL App. J: no control at Init)
		m, err := models.Parse(spec, 3)
		require.NoError(t, err)
		require.False(t, m.Degree().Homogeneous, spec)
		r := rand.New(rand.NewPCG(1, 1))
		theta := make([]float64, m.NumParams())
		m.Init(r, theta)
		x := randVec(r, 3)
		g := models.NewGrader(m)
		phi := g.Value(theta, x, 0)
		apparent := func(c float64) float64 {
			scaled := make([]float64, len(theta))
			floats.ScaleTo(scaled, c, theta)
			return math.Log(math.Abs(g.Value(scaled, x, 0)/phi)) / math.Log(c)
		}
		assert.Greater(t, math.Abs(apparent(1e-3)-apparent(1e3)), 0.1, spec)
	}
}

// TestEuler checks ⟨θ, ∇Φ⟩ = L·Φ and, per block, ⟨w_i, ∇_{w_i}Φ⟩ = k_i Φ
// (LL-B3, LL-B3m) with the tolerance 1e-10 of the catalog.
func TestEuler(t *testing.T) {
	const tol = 1e-10
	for _, spec := range []struct {
		spec string
		in   int
	}{
		{"mlp:relu2:3x4", 3},
		{"mlp:lrelu0.2:3x5/2", 3},
		{"cnn:relu3:2c2s2-max2:3@2", 16},
		{"cnn2d:8x8x1:relu:2c5-max2,3c3-max2::2+bias@1", 64},
		{"cnn2d:6x6x2:relu2:2c3-valid-avg2:3", 72},
	} {
		m, err := models.Parse(spec.spec, spec.in)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(1, 1))
		theta := make([]float64, m.NumParams())
		m.Init(r, theta)
		x := randVec(r, spec.in)
		g := models.NewGrader(m)
		grad := make([]float64, m.NumParams())
		d := m.Degree()
		for k := 0; k < m.Out(); k++ {
			phi := g.Grad(theta, x, k, grad)
			euler := floats.Dot(theta, grad)
			assert.True(t, scalar.EqualWithinAbsOrRel(euler, d.Order*phi, tol, tol),
				"%s: ⟨θ,∇Φ⟩ = %v, L·Φ = %v", spec.spec, euler, d.Order*phi)
			for b, blk := range m.Blocks() {
				s := blk.Offset
				e := floats.Dot(theta[s:s+blk.Len], grad[s:s+blk.Len])
				assert.True(t, scalar.EqualWithinAbsOrRel(e, d.Blocks[b]*phi, tol, tol),
					"%s: block %s: %v vs %v", spec.spec, blk.Name, e, d.Blocks[b]*phi)
			}
		}
	}
}
