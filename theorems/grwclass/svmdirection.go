package grwclass

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/limits"
	"github.com/implicitbias/implicitbias/train"
)

// LinResidualGrowth bounds the growth of r(t) = θ(t) − ŵ·log T in the
// growth test that ZD-B, ZD-T8's GD part and XY-P2 still use
// (ResidualGrowth): for a loss with an exponential tail, r stays bounded
// (Soudry et al. 2018, Thm 3; at worst it grows like log log T when some
// support vector has a zero multiplier), so from T^{1/2} to T it may not
// double. A direction that does not converge to ŵ makes r grow like
// ‖θ‖ — a power of T for the polynomial tail, but only like log T (a
// factor 2 over that span: the bound sits on the fault's signature) for a
// wrong limit direction under an exponential tail, which this test cannot
// see; LL-lin, ZD-T7 and XY-P1 decide by the computed limit instead
// (LinearLimit).
const LinResidualGrowth = 2

// SVMDirection checks LL-lin on a GD trajectory of the linear model
// Φ(θ; x) = ⟨θ, x⟩ (L = 1): θ̂(t) tends to the direction of the hard-margin
// SVM without intercept ŵ (the unique KKT point of (P)) with angle
// O(1/log t). It checks the sharper statement behind that rate, Soudry et
// al.'s θ(T) = ŵ log T + r̃ + o(1) with r̃ computed from the data: the
// distance of θ − ŵ log T from r̃ must contract as the theory's flow
// contracts it, and the run must follow GD's flow towards it (LinearLimit,
// LinLimitBound). ŵ is the project's own SVM solver's
// (numerics.HardMarginSVM).
func SVMDirection(data *dataset.Dataset, tr *train.Trajectory) theorems.Verdict {
	if tr.Degree != 1 {
		return theorems.Assumption("LL-lin is about the linear model (L = 1); the trajectory's model %s has L = %v", tr.Model, tr.Degree)
	}
	if err := data.ValidateBinary(); err != nil {
		return theorems.Invalid(err)
	}
	sol, err := numerics.HardMarginSVM(mat.NewDense(data.N, data.D, data.X), data.Y, nil)
	if errors.Is(err, numerics.ErrNotSeparable) {
		return theorems.Assumption("the data are not linearly separable: %v", err)
	}
	if err != nil {
		return theorems.Undecided("SVM: %v", err)
	}
	return limits.LinearLimit(sol, signedRows(data), nil, tr, fmt.Sprintf("SVM margin %.6g", sol.Margin))
}

// ResidualGrowth is the core of LL-lin and of the GRW checks of section E:
// with ŵ a max-margin solution (w, not normalized: θ(t) ≈ ŵ log T for the
// exponential tail, Soudry et al. 2018 Thm 3), r(t) = Pθ(t) − ŵ·log T must
// stay bounded along tr; P is a projection applied to θ first (nil: the
// identity; XY Prop. 2 projects on span(D_nonsep)^⊥). The statistic is
// ‖r‖ at the last record with θ and T > 1 over its largest value at the
// records with 0 < log T ≤ log T_end/2, compared with LinResidualGrowth;
// note is appended to the detail.
func ResidualGrowth(w []float64, tr *train.Trajectory, project func(dst, theta []float64), note string) theorems.Verdict {
	v, _ := residualGrowth(w, tr, project, nil, note)
	return v
}

// residualGrowth is ResidualGrowth, also returning the first half's largest
// residual (0 when undecided before it is known). With om set, the end is
// compared with the larger of the first half and the residual's computed
// limit (ResidualLimit), and a growth beyond the bound is undecided when a
// pull of the samples off the margin, decaying as the theory says, explains
// it (pullGrowth from the first half's last record): the run is then too
// short to tell a bounded residual from a growing one.
func residualGrowth(w []float64, tr *train.Trajectory, project func(dst, theta []float64), om *offMargin, note string) (theorems.Verdict, float64) {
	var last *train.Record
	for i := range tr.Records {
		r := &tr.Records[i]
		if r.Theta != nil && r.LogT > 0 && !math.IsInf(r.LogT, 0) {
			if len(r.Theta) != len(w) {
				return theorems.Invalid(fmt.Errorf("θ has %d entries, the max-margin solution %d", len(r.Theta), len(w))), 0
			}
			last = r
		}
	}
	if last == nil {
		return theorems.Undecided("no record with θ and T > 1"), 0
	}
	d := make([]float64, len(w))
	proj := func(r *train.Record) []float64 {
		if project == nil {
			copy(d, r.Theta)
		} else {
			project(d, r.Theta)
		}
		return d
	}
	resid := func(r *train.Record) float64 {
		p := proj(r)
		floats.AddScaled(p, -r.LogT, w)
		return floats.Norm(p, 2)
	}
	var midRec *train.Record
	for i := range tr.Records {
		if r := &tr.Records[i]; r.Theta != nil && r.LogT > 0 && r.LogT <= last.LogT/2 {
			midRec = r
		}
	}
	if midRec == nil {
		return theorems.Undecided("no record with 0 < log T ≤ log T_end/2 = %.3g: record earlier", last.LogT/2), 0
	}
	midAngle, a := numerics.Angle(proj(midRec), w), numerics.Angle(proj(last), w)
	if note != "" {
		note = "; " + note
	}
	limit, limitNote := 0.0, ""
	if om != nil {
		rMid := append([]float64(nil), proj(midRec)...)
		floats.AddScaled(rMid, -midRec.LogT, w)
		q := om.weights(tr.Weights)
		if q == nil {
			q = om.weights(om.q)
		}
		if lim, err := limits.ResidualLimit(om.z, q, w, rMid); err == nil {
			limit = floats.Norm(lim, 2)
			limitNote = fmt.Sprintf("; limit %.4g", limit)
		}
	}
	v, mid := doubling(tr, last, resid, limit, w, om)
	v.Detail = fmt.Sprintf("‖θ − ŵ log T‖: %s%s; ∠(θ, ŵ) %.4g → %.4g rad, ∠·log T = %.4g%s", v.Detail, limitNote, midAngle, a, a*last.LogT, note)
	return v, mid
}

// doubling is the test of ResidualGrowth on the series f along tr: f at
// last over the larger of its largest value at the records with 0 < log T ≤
// log T_last/2 and limit (its computed limit, 0 if none), against
// LinResidualGrowth. With om set, a
// growth beyond the bound is undecided when a pull of the samples off the
// margin decaying as the theory says (pullGrowth) explains it. It returns
// the verdict, whose detail gives the values, and the first half's largest
// value.
func doubling(tr *train.Trajectory, last *train.Record, f func(*train.Record) float64, limit float64, w []float64, om *offMargin) (theorems.Verdict, float64) {
	mid := 0.0
	var midRec, prevRec *train.Record
	for i := range tr.Records {
		r := &tr.Records[i]
		if r.Theta != nil && r.LogT > 0 && r.LogT <= last.LogT/2 {
			mid = math.Max(mid, f(r))
			if midRec != nil && r.LogT > midRec.LogT {
				prevRec = midRec
			}
			midRec = r
		}
	}
	end := f(last)
	ratio := end / math.Max(mid, limit)
	if end == 0 {
		ratio = 0 // θ on ŵ log T exactly: bounded (0/0 otherwise)
	}
	v := theorems.Compare(ratio, LinResidualGrowth, fmt.Sprintf("%.4g (max for log T ≤ %.3g) → %.4g at log T = %.3g", mid, midRec.LogT, end, last.LogT))
	if v.Status == theorems.Violated && om != nil && prevRec != nil {
		// f's rate of growth at the first half's last record, from the
		// record before it: f there plus the decaying pull's growth must
		// fall short of the end for the growth to count as violated.
		fk := f(midRec)
		rate := (fk - f(prevRec)) / (midRec.LogT - prevRec.LogT)
		g := om.minGap(w, midRec)
		if grow := pullGrowth(rate, g, midRec.LogT, last.LogT); !(end > fk+grow) {
			return theorems.Undecided("grew (%s), but at log T = %.3g it was growing at %.3g per unit of log T, and a pull from the samples off the margin (smallest gap %.3g) decaying at that gap's rate adds up to %.3g by the end (pullGrowth), which covers the growth: run longer",
				v.Detail, midRec.LogT, rate, g, grow), mid
		}
	}
	return v, mid
}
