package models_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkCNN2DForwardBackward: forward + backward of 2-D CNNs on a
// workspace, 0 allocs/op. The last is LL's MNIST CNN (App. J) at full
// width on a batch of 100, the step of bench's workload W5.
func BenchmarkCNN2DForwardBackward(b *testing.B) {
	for _, bc := range []struct {
		spec string
		n, d int
	}{
		{"cnn2d:16x16x1:relu:16c5-max2,16c3-avg2:32:10+bias@1", 100, 256},
		{"cnn2d:28x28x1:relu:32c5-max2,64c3-max2:1024:10+bias@1", 100, 784},
	} {
		b.Run(fmt.Sprintf("%s/n=%d", bc.spec, bc.n), func(b *testing.B) {
			benchForwardBackward(b, bc.spec, bc.n, bc.d)
		})
	}
}

// TestCNN2DNoAllocs: after the workspace is made, forward and backward do
// not allocate (the products' packing buffers are pooled; a first pass
// fills the pool).
func TestCNN2DNoAllocs(t *testing.T) {
	const n = 4
	m, theta, x := setup(t, "cnn2d:8x8x2:relu:4c3-max2,4c3s2-avg2:8:3+bias@1", 128, n)
	r := rand.New(rand.NewPCG(2, 2))
	gOut := randVec(r, n*m.Out())
	grad := make([]float64, m.NumParams())
	ws := m.NewWorkspace(n)
	step := func() {
		m.Forward(ws, theta, x, n)
		m.Backward(ws, theta, gOut, grad)
	}
	step()
	if a := testing.AllocsPerRun(20, step); a != 0 {
		t.Errorf("forward + backward allocates %v times per step", a)
	}
}
