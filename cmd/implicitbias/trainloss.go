package main

import (
	"fmt"
	"strings"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/symbolic"
	"github.com/implicitbias/implicitbias/theorems/lossassumptions"
)

// checkExprLoss runs the hypothesis checks of 'implicitbias loss' on a
// --loss expr:FORMULA before training with it, and refuses a loss that is
// not positive, finite and non-increasing everywhere
// (lossassumptions.LossReport.TrainRefusal): the engine works with f = −log ℓ,
// which is NaN or ±Inf where ℓ is not positive or has a pole, and a loss
// that increases somewhere is "minimized" by driving margins to −∞ while
// the output looks like a converged run (issue 21: 'exp(q)' printed
// separated: true with q_min −3.78). Other names pass unchanged.
func checkExprLoss(name string) error {
	formula, ok := strings.CutPrefix(name, losses.ExprPrefix)
	if !ok {
		return nil
	}
	fm, err := symbolic.NewFormula(formula)
	if err != nil {
		return err
	}
	r := lossassumptions.ValidateLoss(fm, nil)
	if why, refused := r.TrainRefusal(); refused {
		return fmt.Errorf("--loss %s: %s (see implicitbias loss '%s')", name, why, formula)
	}
	return nil
}
