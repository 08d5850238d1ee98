package experiment

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/implicitbias/implicitbias/models"
)

// TestNormalizedMarginInvariant: γ̄ is q_min/Π‖w_i‖ computed directly,
// and rescaling one block by c rescales q_min by c (degree 1) and leaves γ̄
// unchanged to a few ulps (the threshold 1e-12 relative is rounding of a
// few logs and exps, false-alarm rate 0). Fault caught: a norm over the
// whole θ, or blocks that leave the first layer's bias out, which change
// γ̄ under the rescaling.
func TestNormalizedMarginInvariant(t *testing.T) {
	m, err := models.Parse(tinySpec, 64)
	if err != nil {
		t.Fatal(err)
	}
	theta := make([]float64, m.NumParams())
	m.Init(rand.New(rand.NewPCG(1, 2)), theta)
	// The bias of layer 1 is zero at θ₀: give it a value, so that leaving it
	// out of the block would show.
	b0 := m.Blocks()[0]
	for j := b0.Offset + b0.Len - 3; j < b0.Offset+b0.Len; j++ {
		theta[j] = 0.5
	}
	const q = 0.37
	want := q
	for _, b := range m.Blocks() {
		ss := 0.0
		for _, v := range theta[b.Offset : b.Offset+b.Len] {
			ss += v * v
		}
		want /= math.Sqrt(ss)
	}
	got, err := NormalizedMargin(m, theta, q)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-want) > 1e-12*want {
		t.Fatalf("γ̄ = %v, direct formula %v", got, want)
	}
	for i, b := range m.Blocks() {
		scaled := append([]float64(nil), theta...)
		c := 1e3 * float64(i+1)
		for j := b.Offset; j < b.Offset+b.Len; j++ {
			scaled[j] *= c
		}
		g, err := NormalizedMargin(m, scaled, q*c)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(g-got) > 1e-12*got {
			t.Errorf("block %s ×%g: γ̄ %v, want %v", b.Name, c, g, got)
		}
	}
	if g, _ := NormalizedMargin(m, theta, -q); g != -got {
		t.Errorf("negative margin: γ̄ %v, want %v", g, -got)
	}
	// Huge θ: the direct product (1e100)⁴ would overflow; the log domain
	// adds 4·log 1e100.
	huge := append([]float64(nil), theta...)
	for j := range huge {
		huge[j] *= 1e100
	}
	l0, err0 := LogNormProduct(m, theta)
	l1, err1 := LogNormProduct(m, huge)
	if err0 != nil || err1 != nil || math.Abs(l1-l0-4*100*math.Ln10) > 1e-12*l1 {
		t.Errorf("θ×1e100: log Π‖w_i‖ %v (%v), want %v + %v", l1, err1, l0, 4*100*math.Ln10)
	}
	zero := append([]float64(nil), theta...)
	b := m.Blocks()[1]
	clear(zero[b.Offset : b.Offset+b.Len])
	if _, err := NormalizedMargin(m, zero, q); !errors.Is(err, errZeroBlock) {
		t.Errorf("zero block: err %v", err)
	}
	if _, err := NormalizedMargin(m, theta[1:], q); err == nil {
		t.Error("short θ: no error")
	}
	if _, err := NormalizedMargin(m, theta, math.NaN()); err == nil {
		t.Error("NaN margin: no error")
	}
}
