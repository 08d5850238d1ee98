package limits

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// LinearLimit decides the direction claims of linear models on binary data
// (LL-lin, ZD-T7, XY-P1) by the computed limit of the residual r(T) =
// θ(T) − ŵ log T (Soudry et al. 2018, Thm 3 and its proof): r tends to
// c_S + f_∞, c_S on the support vectors' span V_S the balance
// q_n c e^{−⟨c_S, z_n⟩} = α_n (tail constant c, weights q; ResidualLimit),
// f_∞ off V_S, where only the samples off the margin move θ (and nothing
// off span{z_n}: there f_∞ is θ₀'s component). In log time s = log T the
// part of r on V_S follows the gradient flow of the convex
// F(r) = Σ_{n∈S} q_n c e^{−⟨r, z_n⟩} + ⟨ŵ, r⟩, whose minimizer is c_S, so
// its distance E to c_S contracts: dE/ds ≤ −μE + ‖perturbation‖, with
// μ = e^{−R·max‖z‖}·λ_min(Σ_S α_n z_n z_nᵀ on V_S) on the ball of radius R
// the run stays in. sol is the SVM of the rows of z with margin 1, q0 the
// weights when the records kept none (nil: all 1). See LinLimitBound for
// the statistic.
func LinearLimit(sol *numerics.SVM, z *mat.Dense, q0 []float64, tr *train.Trajectory, note string) theorems.Verdict {
	n, d := z.Dims()
	w := sol.W
	if len(w) != d {
		return theorems.Invalid(fmt.Errorf("the SVM has %d entries, the data %d", len(w), d))
	}
	recs, start, bad := LimitRecords(tr, d)
	if bad != nil {
		return *bad
	}
	win := recs[start:]
	ext := recs[max(start-1, 0):] // the window and the record before it
	lead := len(ext) - len(win)
	last := win[len(win)-1]
	tail := tailOf(tr.Loss)

	rw, err := windowWeights(tr, win, n, q0, "rows")
	if err != nil {
		return theorems.Invalid(err)
	}
	qs, fixed, total, qCap := rw.qs, rw.fixed, rw.total, rw.qCap
	// The weights' integral over each segment (train.WeightSum, summed over
	// the records between the segment's ends): with it the coefficients'
	// intervals (5) hold for weights that move between records.
	sums, integrated := segmentWeightSums(tr, win, n)
	qEnd := qs[len(qs)-1]

	g := newLinGeometry(z, w)

	// GD's step size, recovered from the records.
	eta, notGD := StepSize(tr, win)

	// Pulls on V_S at the window's records and the one before it (for the
	// curvature of their logs).
	flow := newGDFlow(z, tail, eta)
	pullOn := make([][]float64, len(ext))
	logT := make([]float64, len(ext))
	for j, r := range ext {
		flow.q = qCap
		flow.velocity(r.Theta)
		T := math.Exp(r.LogT)
		logT[j] = r.LogT
		pullOn[j] = make([]float64, n)
		for i := 0; i < n; i++ {
			u := flow.u[i]
			if g.onMargin[i] {
				pullOn[j][i] = T * qCap[i] * math.Abs(tail.tailDev(u)) * g.zOn[i]
			} else {
				pullOn[j][i] = T * qCap[i] * tail.pull(u) * g.zOn[i]
			}
		}
	}

	// Segment by segment: GD's discretization and rounding budgets, the
	// flow comparison and the steps' coefficients.
	coef := newStepCoefficients(z, len(g.span) == n)
	offPart := len(g.basis) < len(g.span) // part 2 has something to check
	var (
		perturb, roundTotal, offPull float64
		offUnbounded                 int // segments without a margins' floor (marginFloor)
		worstCoef                    = math.Inf(-1)
		coefAt                       float64
		gram                         *mat.SymDense // of the rows, for marginFloor
	)
	ft := newFlowTally(flow, func(q []float64) { flow.q = q }, eta, total, n, d) // parts 4 and 6
	for k := 0; k+1 < len(win); k++ {
		a, b := win[k], win[k+1]
		dt := float64(b.Step - a.Step)
		disc, round := ft.segment(a, b, qs[k], n, notGD != "")
		perturb += disc + round
		roundTotal += round
		// The weights' mass m_n = ∫q_n dT over the segment: ΔT·q_n for
		// fixed weights, the recorded integral for weights that move,
		// else ΔT·Σq (q_n ≤ Σq at every step).
		dT := segmentStep(a, b) * dt
		var mass []float64
		switch {
		case fixed:
			mass = scaleBy(dT, qs[k])
		case integrated:
			mass = sums[k]
		default:
			mass = scaleBy(dT, qCap)
		}
		var pullMax []float64 // the pulls' maxima over the margins GD can meet in the segment (part 2)
		if coef != nil {
			r := math.NaN()
			if cs, slack, ok := coef.solve(a.Theta, b.Theta, round); ok {
				if fixed || integrated {
					r = coef.weighted(a.Theta, cs, slack, mass, tail.slope, round)
				} else {
					r = coef.cone(a.Theta, cs, slack, dT, total, tail.slope, round)
				}
				_, pullMax = coef.slopeRange(a.Theta, cs, slack, round, tail.pull)
			}
			if r > worstCoef || math.IsNaN(r) {
				worstCoef, coefAt = r, b.LogT
			}
		}
		if offPart && pullMax == nil {
			if gram == nil {
				gram = mat.NewSymDense(n, nil)
				gram.SymOuterK(1, z)
			}
			u0 := make([]float64, n)
			for i := range u0 {
				u0[i] = floats.Dot(z.RawRowView(i), a.Theta)
			}
			if floor, ok := marginFloor(gram, u0, mass, round, tail.pull); ok {
				pullMax = make([]float64, n)
				for i, u := range floor {
					pullMax[i] = tail.pull(u) * (1 + slopeRelTol)
				}
			}
		}
		if pullMax != nil {
			offPull += offSupportPull(g, mass, pullMax)
		} else if offPart {
			offUnbounded++
		}
	}
	var pushOn float64
	for j := lead; j+1 < len(ext); j++ {
		pushOn += pullIntegral(logT, pullOn, j)
	}

	var decide []theorems.Verdict // the parts that decide
	var parts []string            // the detail
	// 4. The flow; 6. the weights' effect (flowTally.verdicts).
	d46, p46 := ft.verdicts("GD's modified flow", notGD, fixed, win[0].LogT)
	decide = append(decide, d46...)
	parts = append(parts, p46...)

	// 1. The limit on V_S. With weights that move it is computed for the
	// last segment's mean weights ∫q dT/ΔT (a record's weights may be 0 on
	// a support vector that the steps between records weigh: CVaR), and
	// shown: the contraction below is that of a fixed F.
	qLimit := qEnd
	if !fixed && integrated {
		a, b := win[len(win)-2], win[len(win)-1]
		qLimit = scaleBy(1/(eta*float64(b.Step-a.Step)), sums[len(sums)-1])
	}
	terms := []budgetTerm{{"pull off the margin and tail", pushOn}, {"GD's discretization and rounding", perturb}}
	if ratio, muDs, msg, err := limitOnSupportTerms(z, w, scaleBy(tail.c, qLimit), g, win, terms, fixed); err != nil {
		if fixed {
			decide = append(decide, theorems.Undecided("the residual's limit: %v", err))
		}
		parts = append(parts, fmt.Sprintf("no computed limit (%v)", err))
	} else {
		if fixed && muDs < noContraction {
			msg += " — no contraction on this ball: this part shows only that the distance did not grow; the flow comparison and GD's map decide the steps"
		}
		switch {
		case fixed:
			decide = append(decide, theorems.Compare(ratio, LinLimitBound, ""))
		case integrated:
			msg = "shown, not decided (the weights move: limit for the last segment's mean weights): " + msg
		default:
			msg = movingShown("limit for the last record's weights") + msg
		}
		parts = append(parts, msg)
	}

	// 2. Off V_S on span{z_n}: the pull of the samples off the margin,
	// segment by segment over the margins GD can meet (limitparts.go).
	if offPart {
		ratio, msg := driftOffSupport(g, win[0], last, offPull+roundTotal)
		shown := fixed && notGD == "" && ft.compared > 0
		switch {
		case offUnbounded > 0:
			msg += fmt.Sprintf(" on the other segments: no bound (on %d segments the margins GD can meet have no floor within %d of the record's)", offUnbounded, marginFloorReach)
			if !shown {
				decide = append(decide, theorems.Undecided("the pull off the margin has no bound: record more often"))
			}
		case shown:
			// The flow comparison (4) follows the same pull step by step,
			// with a budget ~10³ times tighter than this bound.
			msg += " (shown: the flow comparison covers it)"
		default:
			decide = append(decide, theorems.Compare(ratio, LinLimitBound, ""))
		}
		parts = append(parts, msg)
	}

	// 3. Off span{z_n}: nothing moves θ; its limit there is θ₀'s part.
	if len(g.span) < d {
		ratio, msg := driftOffSpan(g, tr, last, n)
		decide = append(decide, theorems.Compare(ratio, LinLimitBound, ""))
		parts = append(parts, msg)
	}

	// 7. GD's map over short segments, wherever the records have them.
	if notGD == "" && tail.known {
		if m := checkGDMap(z, tail, eta, q0, fixed, tr); m.steps > 0 {
			decide = append(decide, theorems.Compare(m.worst, LinLimitBound, ""))
			parts = append(parts, fmt.Sprintf("GD's map replayed over %d segments of ≤ %d steps: worst ‖Δθ − ηV‖ %.3g of its rounding bound at step %d", m.steps, gdMapSteps, m.worst, m.at))
		}
	}

	// 5. The steps' coefficients.
	if coef != nil {
		decide = append(decide, theorems.Compare(worstCoef, LinLimitBound, ""))
		kind := "within the bounds of the weights and the slopes"
		if !fixed && integrated {
			kind = "within the bounds of the weights' integral over each segment and the slopes"
		}
		if !fixed && !integrated {
			kind = "in GD's cone (C_n ≥ 0, Σ q_n = Q)"
		}
		parts = append(parts, fmt.Sprintf("the steps' coefficients on the independent z_n %s: worst ratio %.3g at log T = %.3g", kind, worstCoef, coefAt))
	}

	parts = append(parts, fmt.Sprintf("∠(θ, ŵ) %.4g → %.4g rad", numerics.Angle(win[0].Theta, w), numerics.Angle(last.Theta, w)))
	if !tail.known {
		parts = append(parts, fmt.Sprintf("loss %q unknown to the check: compared with the exponential tail e^{−u}", tail.name))
	} else if !tail.expTail {
		parts = append(parts, fmt.Sprintf("loss %s has no exponential tail: its limit computed for e^{−u}", tail.name))
	}
	if note != "" {
		parts = append(parts, note)
	}
	return combineParts(decide, parts)
}

// noContraction is the μΔs below which the limit part says that it does
// not contract (e^{−μΔs} > 0.999): the run's ball is so large that
// e^{−R·max‖z‖} leaves no curvature (soak seed 1795648796969825: μ ≈ 1e-25
// on a faulty run whose θ froze at 𝓛 ≈ e^{−50}). The part's bound still
// holds; it shows no convergence.
const noContraction = 1e-3
