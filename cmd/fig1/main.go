// Command fig1 prints the reproduction of ZD Fig. 1 (ERM, importance
// weighting and Group DRO on six digits reach the same interpolator) as the
// Markdown table shown in README.md:
//
//	go run ./cmd/fig1
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/implicitbias/implicitbias/fixtures"
	"github.com/implicitbias/implicitbias/properties/regression"
	"gonum.org/v1/gonum/floats"
)

func main() {
	if err := writeFig1Table(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fig1:", err)
		os.Exit(1)
	}
}

// writeFig1Table runs Fig1 on the pair of digits6.json (0, 1) for
// regression.Fig1TableSteps steps with GD and, as the control, with Adam (ERM
// weights), and writes the reproduction of ZD Fig. 1 as a Markdown table:
// scheme, steps, final distance to the interpolator θ* (absolute and
// relative), final ERM training risk, ‖θ_T‖.
func writeFig1Table(w io.Writer) error {
	rows, rc, _, err := regression.Fig1(regression.DigitPair{A: 0, B: 1}, regression.OptGD, regression.Fig1TableSteps)
	if err != nil {
		return err
	}
	adam, _, _, err := regression.Fig1(regression.DigitPair{A: 0, B: 1}, regression.OptAdam, regression.Fig1TableSteps)
	if err != nil {
		return err
	}
	star, err := rc.Interpolator()
	if err != nil {
		return err
	}
	ref, err := fixtures.LoadDigits6()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Six digits (images %v of sklearn's digits: five 0s, one 1), linear model, squared loss, θ₀ = 0.\n", ref.Indices)
	fmt.Fprintf(w, "‖θ*‖ = %.6f; θ* vs digits6.json theta_star: %.1e relative.\n\n", floats.Norm(star, 2), floats.Distance(star, ref.ThetaStar, 2)/floats.Norm(ref.ThetaStar, 2))
	fmt.Fprintln(w, "| scheme | optimizer | steps | ‖θ_T − θ*‖ | ‖θ_T − θ*‖/‖θ*‖ | training risk R̂(θ_T) | ‖θ_T‖ |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | gd | %d | %.1e | %.1e | %.1e | %.6f |\n", r.Scheme, r.Steps, r.Distance, r.RelDistance, r.Risk, r.Norm)
	}
	r := adam[0]
	fmt.Fprintf(w, "| %s (control) | adam | %d | %.2g | %.2g | %.1e | %.6f |\n", r.Scheme, r.Steps, r.Distance, r.RelDistance, r.Risk, r.Norm)
	if g := rows[2].Weights; len(g) == 2 {
		fmt.Fprintf(w, "\nGroup DRO's final group weights (digit 0, digit 1): %.4f, %.4f.\n", g[0], g[1])
	}
	return nil
}
