package models_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/implicitbias/implicitbias/models"
)

// sink keeps the benchmarks' results alive so the compiler cannot drop the
// work.
var sink float64

// benchForwardBackward times one full-batch forward and backward pass of
// spec on n samples of dimension d, after a warm-up pass.
func benchForwardBackward(b *testing.B, spec string, n, d int) {
	m, err := models.Parse(spec, d)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	theta := make([]float64, m.NumParams())
	m.Init(r, theta)
	x := randVec(r, n*d)
	gOut := randVec(r, n*m.Out())
	grad := make([]float64, m.NumParams())
	ws := m.NewWorkspace(n)
	m.Forward(ws, theta, x, n)
	m.Backward(ws, theta, gOut, grad)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		y := m.Forward(ws, theta, x, n)
		m.Backward(ws, theta, gOut, grad)
		sink += y[0] + grad[0]
	}
}

// BenchmarkMLPForwardBackward: full-batch forward + backward of ReLU MLPs,
// the inner loop of gradient descent.
func BenchmarkMLPForwardBackward(b *testing.B) {
	for _, bc := range []struct {
		spec string
		n, d int
	}{
		{"mlp:relu:2x64", 200, 20},
		{"mlp:relu:4x128", 1000, 50},
	} {
		b.Run(fmt.Sprintf("%s/n=%d/d=%d", bc.spec, bc.n, bc.d), func(b *testing.B) {
			benchForwardBackward(b, bc.spec, bc.n, bc.d)
		})
	}
}

// BenchmarkCNNForwardBackward: a two-stage CNN with pooling on signals of
// 64 positions.
func BenchmarkCNNForwardBackward(b *testing.B) {
	for _, bc := range []struct {
		spec string
		n, d int
	}{
		{"cnn:relu:8c5-max2,16c3-avg2:32", 200, 64},
		{"cnn:relu:16c4s2:32@2", 200, 128},
	} {
		b.Run(fmt.Sprintf("%s/n=%d/d=%d", bc.spec, bc.n, bc.d), func(b *testing.B) {
			benchForwardBackward(b, bc.spec, bc.n, bc.d)
		})
	}
}

// BenchmarkGrader: one Jacobian row, as Euler and KKT checks use.
func BenchmarkGrader(b *testing.B) {
	m, err := models.Parse("mlp:relu:3x64", 20)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	theta := make([]float64, m.NumParams())
	m.Init(r, theta)
	x := randVec(r, 20)
	g := models.NewGrader(m)
	grad := make([]float64, m.NumParams())
	g.Grad(theta, x, 0, grad)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		sink += g.Grad(theta, x, 0, grad)
	}
}
