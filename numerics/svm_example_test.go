package numerics_test

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/numerics"
)

// The non-negative least-squares problem min ‖Ax − b‖ s.t. x ≥ 0: the
// unconstrained solution (1, −1) is cut to the boundary x₂ = 0.
func ExampleNNLS() {
	a := mat.NewDense(3, 2, []float64{
		1, 0,
		0, 1,
		1, 1,
	})
	b := []float64{1, -1, 0}
	res, err := numerics.NNLS(a, b, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("x = %.4f, residual %.4f, passive set %v\n", res.X, res.Residual, res.Passive)
	// Output:
	// x = [0.5000 0.0000], residual 1.2247, passive set [0]
}

// The hard-margin SVM without intercept on four points of the plane: the
// maximal margin is 1/√2, attained by w = (1, 1) with the two points nearest
// the line x + y = 0 as support vectors.
func ExampleHardMarginSVM() {
	x := mat.NewDense(4, 2, []float64{
		1, 0,
		0, 1,
		-2, 0,
		1, -3,
	})
	y := []float64{1, 1, -1, -1}
	sol, err := numerics.HardMarginSVM(x, y, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("w = %.4f, margin %.4f, dual %.4f, support %v\n", sol.W, sol.Margin, sol.Alpha, sol.Support)

	// Data that no line through the origin separates: the error carries the
	// certificate u ≥ 0, Σu = 1, Σ u_n y_n x_n = 0.
	_, err = numerics.HardMarginSVM(mat.NewDense(2, 2, []float64{1, 1, 1, 1}), []float64{1, -1}, nil)
	var ns *numerics.NotSeparableError
	if errors.As(err, &ns) {
		fmt.Printf("%v\ncertificate %.2f\n", err, ns.Certificate)
	}
	// Output:
	// w = [1.0000 1.0000], margin 0.7071, dual [1.0000 1.0000 0.0000 0.0000], support [0 1]
	// data are not separable by a hyperplane through the origin (certificate: a convex combination of the signed samples with norm 0 of the largest)
	// certificate [0.50 0.50]
}

// The kernel SVM sees only K_nm = ⟨φ(x_n), φ(x_m)⟩; with the linear kernel
// of the points above it finds the same dual and margin.
func ExampleKernelSVM() {
	k := mat.NewSymDense(4, []float64{
		1, 0, -2, 1,
		0, 1, 0, -3,
		-2, 0, 4, -2,
		1, -3, -2, 10,
	})
	y := []float64{1, 1, -1, -1}
	sol, err := numerics.KernelSVM(k, y, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("margin %.4f, dual %.4f, decision values %.4f\n", sol.Margin, sol.Alpha, sol.Decision)
	// Output:
	// margin 0.7071, dual [1.0000 1.0000 0.0000 0.0000], decision values [1.0000 1.0000 -2.0000 -2.0000]
}
