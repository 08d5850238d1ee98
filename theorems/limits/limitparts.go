package limits

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// The parts of the linear-limit statistic (LinLimitBound) that depend on
// the geometry of the data and not on the loss: the residual's distance
// from its computed limit on the support vectors' span (part 1), the drift
// off that span (2) and off span{z_n} (3). LinearLimit writes them inline
// for binary margin losses; MultiClassLimit calls these.

// LimitRecords returns the records of tr with θ (d entries) and T > 1, one
// per step, and the index of the last with log T ≤ log T_end/2: the window
// of the limit checks starts there. ok is false when there is no such
// window (the verdict says why).
func LimitRecords(tr *train.Trajectory, d int) (recs []*train.Record, start int, bad *theorems.Verdict) {
	for i := range tr.Records {
		r := &tr.Records[i]
		if r.Theta == nil || !(r.LogT > 0) || math.IsInf(r.LogT, 0) {
			continue
		}
		if len(r.Theta) != d {
			v := theorems.Invalid(fmt.Errorf("θ has %d entries, the max-margin solution %d", len(r.Theta), d))
			return nil, 0, &v
		}
		if len(recs) > 0 && r.Step <= recs[len(recs)-1].Step {
			continue // a record of the same step again
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		v := theorems.Undecided("no record with θ and T > 1")
		return nil, 0, &v
	}
	start, bad = windowStart(recs)
	return recs, start, bad
}

// windowStart returns the index of the last record with log T ≤ log
// T_end/2 (records with T > 1, one per step): the window of the limit
// checks starts there.
func windowStart(recs []*train.Record) (int, *theorems.Verdict) {
	last := recs[len(recs)-1]
	start := -1
	for i, r := range recs {
		if r.LogT <= last.LogT/2 {
			start = i
		}
	}
	if start < 0 || start == len(recs)-1 {
		v := theorems.Undecided("no record with 0 < log T ≤ log T_end/2 = %.3g: record earlier", last.LogT/2)
		return 0, &v
	}
	return start, nil
}

// recordWeights are the weights of a window's records (windowWeights).
type recordWeights struct {
	qs    [][]float64 // each record's
	fixed bool        // a fixed-weight scheme, the same weights at every record
	total float64     // the largest Σ_n q_n of a record: q_n ≤ it
	qCap  []float64   // the weights' bound in the pulls: the last record's when fixed, else total for every n
}

// windowWeights returns the weights of the records of win: those a record
// kept, else q0 (also for a record's weights of another length), else 1;
// weights of another length without q0 are an error (rows names what they
// weigh). They are fixed when the scheme's weights are a function of the
// data alone (train.SchemeKind.Fixed) and every record has the same.
func windowWeights(tr *train.Trajectory, win []*train.Record, n int, q0 []float64, rows string) (recordWeights, error) {
	w := recordWeights{qs: make([][]float64, len(win)), fixed: tr.Scheme.Fixed()}
	for k, r := range win {
		q := r.Weights
		if q == nil || (len(q) != n && q0 != nil) {
			q = q0
		}
		if q == nil {
			q = Ones(n)
		}
		if len(q) != n {
			return w, fmt.Errorf("%d weights for %d %s", len(q), n, rows)
		}
		w.qs[k] = q
		w.fixed = w.fixed && floats.EqualApprox(q, w.qs[0], weightsSameTol)
		w.total = math.Max(w.total, floats.Sum(q))
	}
	w.qCap = w.qs[len(w.qs)-1]
	if !w.fixed {
		w.qCap = make([]float64, n)
		for i := range w.qCap {
			w.qCap[i] = w.total
		}
	}
	return w, nil
}

// budgetTerm is one named term of a part's budget, for its message.
type budgetTerm struct {
	name  string
	value float64
}

// limitOnSupport is part 1: the distance E of the residual θ − ŵ log T,
// projected on the support vectors' span V_S, from its computed limit c_S
// (ResidualLimit with the rows' weights q, tail constant included), at the
// window's last record, over e^{−μΔs}·E(first) + budget (the sum of
// terms). In log time the projected residual follows the gradient flow of
// the convex F(r) = Σ_{n∈S} q_n e^{−⟨r, z_n⟩} + ⟨ŵ, r⟩ plus perturbations
// whose integral is budget, so dE/ds ≤ −μE + ‖perturbation‖ with μ ≥ 0 the
// smallest curvature of F on the ball the run stays in (μ = 0 when
// contract is false: the flow of a convex function is non-expansive all
// the same). The ratio is ≤ 1 on a correct engine by derivation; a limit
// direction φ away from ŵ grows E by ≈ φ‖ŵ‖ per unit of log T.
func limitOnSupport(z *mat.Dense, w, q []float64, g *linGeometry, win []*train.Record, budget float64, contract bool) (ratio float64, msg string, err error) {
	ratio, _, msg, err = limitOnSupportTerms(z, w, q, g, win, []budgetTerm{{"perturbations", budget}}, contract)
	return ratio, msg, err
}

// limitOnSupportTerms is limitOnSupport with the budget given as named
// terms (summed in order) and μΔs, the contraction's exponent, returned.
func limitOnSupportTerms(z *mat.Dense, w, q []float64, g *linGeometry, win []*train.Record, terms []budgetTerm, contract bool) (ratio, muDs float64, msg string, err error) {
	cS, err := ResidualLimit(z, q, w, make([]float64, len(w)))
	if err != nil {
		return 0, 0, "", err
	}
	dist := make([]float64, len(win))
	for k, r := range win {
		res := append([]float64(nil), r.Theta...)
		floats.AddScaled(res, -r.LogT, w)
		on := g.onSpan(res)
		floats.Sub(on, cS)
		dist[k] = floats.Norm(on, 2)
	}
	budget := 0.0
	named := make([]string, len(terms))
	for i, t := range terms {
		budget += t.value
		named[i] = fmt.Sprintf("%s %.3g", t.name, t.value)
	}
	mu := 0.0
	if contract {
		mu = math.Exp(-(floats.Max(dist)+budget)*g.zmax) * balanceCurvature(z, g.onMargin, g.basis, q, cS)
	}
	first, last := win[0], win[len(win)-1]
	ds := last.LogT - first.LogT
	bound := math.Exp(-mu*ds)*dist[0] + budget
	return dist[len(dist)-1] / bound, mu * ds, fmt.Sprintf("distance of θ − ŵ log T from its computed limit (‖limit‖ %.4g) on the support vectors' span: %.4g at log T = %.3g → %.4g at log T = %.3g, bound %.4g (contraction e^{−μΔs} = %.3g, μ = %.3g; %s)",
		floats.Norm(cS, 2), dist[0], first.LogT, dist[len(dist)-1], last.LogT, bound, math.Exp(-mu*ds), mu, strings.Join(named, "; ")), nil
}

// driftOffSupport is part 2: the drift of θ on span{z_n} ∩ V_S^⊥ over the
// window, over budget (the pull of the samples off the margin, the only
// force there, plus rounding).
func driftOffSupport(g *linGeometry, first, last *train.Record, budget float64) (float64, string) {
	dth := append([]float64(nil), last.Theta...)
	floats.Sub(dth, first.Theta)
	drift := floats.Norm(g.offSupport(dth), 2)
	return drift / budget, fmt.Sprintf("drift off the support vectors' span %.4g against the pull of the samples off the margin %.4g", drift, budget)
}

// driftOffSpan is part 3: the drift of θ off span{z_n} from the first
// record with θ to last, over its rounding (n rows): nothing else moves it,
// the limit there is θ₀'s part.
func driftOffSpan(g *linGeometry, tr *train.Trajectory, last *train.Record, n int) (float64, string) {
	d := len(last.Theta)
	first := last
	for i := range tr.Records {
		if r := &tr.Records[i]; r.Theta != nil && len(r.Theta) == d {
			first = r
			break
		}
	}
	dth := append([]float64(nil), last.Theta...)
	floats.Sub(dth, first.Theta)
	drift := floats.Norm(g.offSpan(dth), 2)
	budget := roundingBudget(float64(last.Step-first.Step), first.Theta, last.Theta, n)
	ratio := drift / budget
	if drift == 0 {
		ratio = 0 // no step at all (first is last)
	}
	return ratio, fmt.Sprintf("off span{z_n} (%d of %d directions) θ moved %.3g from step %d, rounding allows %.3g", d-len(g.span), d, drift, first.Step, budget)
}

// combineParts returns the verdict of a linear-limit check from the
// verdicts of its parts that decide: the worst (Worst), its statistic the
// largest decided ratio against LinLimitBound, its detail the worst's own
// followed by every part's message.
func combineParts(decide []theorems.Verdict, parts []string) theorems.Verdict {
	v := theorems.Worst(decide...)
	if v.Status != theorems.Inconclusive {
		v.Statistic, v.Bound = math.Inf(-1), LinLimitBound
		for _, p := range decide {
			if p.Status != theorems.Inconclusive {
				v.Statistic = math.Max(v.Statistic, p.Statistic)
			}
		}
	}
	if v.Detail != "" {
		parts = append([]string{v.Detail}, parts...)
	}
	v.Detail = strings.Join(parts, "; ")
	return v
}
