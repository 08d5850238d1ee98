package symbolic_test

import (
	"fmt"

	"github.com/implicitbias/implicitbias/symbolic"
)

// A loss formula, its stable f = −log ℓ and f′, and log ℓ where ℓ itself
// underflows.
func ExampleNewFormula() {
	fm, err := symbolic.NewFormula("log(1+exp(-q))")
	if err != nil {
		fmt.Println(err)
		return
	}
	p := fm.Pieces[0]
	fmt.Println("f  =", p.F)
	fmt.Println("f′ =", p.F1)
	fmt.Println("ℓ(1e6) =", fm.Loss(1e6), " log ℓ(1e6) =", fm.LogLoss(1e6))
	fmt.Printf("g(f(3)) = %.15g\n", fm.Inverse(fm.F(3), 0))
	// Output:
	// f  = -logsoftplus(-q)
	// f′ = dlogsoftplus(-q)
	// ℓ(1e6) = 0  log ℓ(1e6) = -1e+06
	// g(f(3)) = 3
}

// Parse errors give the position of the problem.
func ExampleParseError() {
	_, err := symbolic.NewFormula("exp(-q) + log(1 - 2)")
	fmt.Println(err)
	_, err = symbolic.NewFormula("exp(-2q)")
	fmt.Println(err)
	// Output:
	// bad formula at position 11: log of a non-positive number: log(1 - 2) (position 11)
	// bad formula at position 7: expected ')' to close exp(, found "q" (write multiplication with *)
}

// Interval arithmetic with outward rounding: the enclosure contains the
// true value e = 2.71828182845904523536…; exp's bounds move 4 ulps out
// (libULPs), an exact sum does not move at all.
func ExampleIExp() {
	fmt.Println(symbolic.IExp(symbolic.Point(1)))
	fmt.Println(symbolic.IAdd(symbolic.Point(0.5), symbolic.Point(0.25)))
	// Output:
	// [2.7182818284590433, 2.7182818284590469]
	// [0.75, 0.75]
}
