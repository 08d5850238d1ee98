package models

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestConv2DBlocksBitIdentical: running the conv layers one sample at a
// time (blocks of 1) gives the outputs, the pooling's argmax, the
// parameter gradient and the input gradient of one block over the whole
// batch, bit for bit (the weight gradient's chains continue across blocks); with
// several filters (the forward product on Wᵀ packed once) and with one
// (a matrix times a vector).
func TestConv2DBlocksBitIdentical(t *testing.T) {
	for _, tc := range []struct {
		spec string
		in   int
	}{
		{"cnn2d:9x7x2:relu:4c3-max2,3c2s2-valid:6:3+bias", 9 * 7 * 2},
		{"cnn2d:9x7x2:relu:1c3-max2,3c2s2-valid:6:3+bias", 9 * 7 * 2},
		// Both stages conv+ReLU+2×2 max pooling (poolOut).
		{"cnn2d:8x6x2:relu:4c3-max2,3c2-max2:6:3+bias@1", 8 * 6 * 2},
		// 108 ReLU outputs a sample: blocks of one start inside a byte of
		// the pattern.
		{"cnn2d:6x6x1:relu:3c3-max2,1c3-max2:4:2", 6 * 6},
	} {
		t.Run(tc.spec, func(t *testing.T) { testConv2DBlocks(t, tc.spec, tc.in) })
	}
}

func testConv2DBlocks(t *testing.T, spec string, in int) {
	const n = 5
	m, err := Parse(spec, in)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	normals := func(k int) []float64 {
		v := make([]float64, k)
		for i := range v {
			v[i] = r.NormFloat64()
		}
		return v
	}
	theta, x, gOut := normals(m.NumParams()), normals(n*m.In()), normals(n*m.Out())
	run := func(blockBytes int) (y, g, aux []float64, pat []byte) {
		convs := 0
		for _, l := range m.layers {
			if c, ok := l.(*conv2d); ok {
				c.blockBytes = blockBytes
				convs++
				if got := c.blockSamples(); blockBytes == 1 && got != 1 {
					t.Fatalf("blockSamples = %d with 1-byte blocks", got)
				}
			}
		}
		if convs != 2 {
			t.Fatalf("%d conv layers, want 2", convs)
		}
		ws := m.NewWorkspace(n)
		y = append([]float64(nil), m.Forward(ws, theta, x, n)...)
		pat = m.Pattern(ws, nil)
		g = make([]float64, m.NumParams())
		m.Backward(ws, theta, gOut, g)
		for _, a := range ws.(*netWorkspace).aux {
			aux = append(aux, a...)
		}
		return y, g, aux, pat
	}
	y1, g1, a1, p1 := run(1)
	yn, gn, an, pn := run(colBlockBytes)
	if string(p1) != string(pn) {
		t.Fatalf("kink pattern in blocks of one sample %x, in one block %x", p1, pn)
	}
	defer run(colBlockBytes)
	for _, c := range []struct {
		name      string
		one, many []float64
	}{{"output", y1, yn}, {"∂θ", g1, gn}, {"argmax", a1, an}} {
		for i := range c.one {
			if math.Float64bits(c.one[i]) != math.Float64bits(c.many[i]) {
				t.Fatalf("%s[%d]: %v in blocks of one sample, %v in one block", c.name, i, c.one[i], c.many[i])
			}
		}
	}
}
