package regression

import (
	"fmt"

	"github.com/implicitbias/implicitbias/theorems"
)

// ReferenceBound is the agreement asked between the project's θ* and an
// independent reference solution (../shared/reference, numpy): 1e-9
// relative, the criterion; both solve systems with κ(X) ≤ 1e3, so
// they differ by about 1e-13.
const ReferenceBound = 1e-9

// SchemeEnd is where one GRW run ended.
type SchemeEnd struct {
	Scheme string
	Theta  []float64
}

// SameInterpolator checks ZD-F1 (Fig. 1): GRW runs on the same data from the
// same θ₀ all end at the interpolator θ* (each as in Interpolator, against
// InterpolatorBound), and θ* agrees with an independently computed
// reference to ReferenceBound (skipped when reference is nil). The verdict
// is the worst of these (Worst: by status, then by statistic/bound).
func SameInterpolator(c RegressionCase, reference []float64, ends []SchemeEnd) theorems.Verdict {
	r, v := c.prepare()
	if v != nil {
		return *v
	}
	if len(ends) == 0 {
		return theorems.Invalid(fmt.Errorf("theorems: ZD-F1 needs at least one run"))
	}
	var vs []theorems.Verdict
	if reference != nil {
		if len(reference) != c.D {
			return theorems.Invalid(fmt.Errorf("theorems: reference θ* has %d entries, want %d", len(reference), c.D))
		}
		d := relDist(r.star, reference)
		vs = append(vs, theorems.Compare(d, ReferenceBound, fmt.Sprintf("θ* differs from the reference by %.3g relative", d)))
	}
	for _, e := range ends {
		if len(e.Theta) != c.D {
			return theorems.Invalid(fmt.Errorf("theorems: run %s has θ of %d entries, want %d", e.Scheme, len(e.Theta), c.D))
		}
		v := r.interpolator(e.Theta)
		v.Detail = e.Scheme + ": " + v.Detail
		vs = append(vs, v)
	}
	return theorems.Worst(vs...)
}
