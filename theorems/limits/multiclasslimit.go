package limits

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// MultiClassLimit decides ZD-B (ZD App. B, eq. 20) on a GD run of a linear
// K-class model on the softmax cross-entropy by the computed limit of the
// residual R(T) = Θ(T) − Ŵ log T, the multi-class form of Soudry et al.
// (2018, Thm 3): the cross-entropy is, to first order in its tail, the
// exponential loss on the constraint vectors a_{n,j} = (e_{c_n} − e_j) ⊗ x_n
// with sample n's weight q_n on each of its K − 1 rows (ceFlow), so with Ŵ
// the multi-class SVM (margin 1 on every active constraint: sol, on the
// rows of a) R tends to c_S + f_∞, c_S on the span V_S of the active
// constraints the balance
//
//	q_n e^{−⟨c_S, a_{n,j}⟩} = α_{n,j}   (Σ_{active} α_{n,j} a_{n,j} = Ŵ),
//
// the K-class version of Soudry's support-vector equations (ResidualLimit
// on the rows), f_∞ off V_S, where only the constraints off the margin
// move Θ, and nothing off span{a_{n,j}} (the sum of the class vectors,
// among others: a_{n,j} ⟂ 1_K ⊗ v). The direction Ŵ is weight-free; c_S
// and the path are not. The statistic is LinLimitBound's, part by part:
//
//  1. limit: E = ‖P_S R − c_S‖ at the end over e^{−μΔs}E(T^{1/2}) plus
//     what can push it away — the constraints off the margin (T q_n π_{n,j}
//     ‖P_S a‖), the cross-entropy's departure from its exponential tail on
//     the active rows (T q_n |π_{n,j} − e^{−u_{n,j}}|‖P_S a‖), GD's
//     discretization and rounding (limitOnSupport);
//  2. off: the drift on span{a} ∩ V_S^⊥ against the pull of the rows off
//     the margin (driftOffSupport);
//  3. frozen: the drift off span{a} against rounding (driftOffSpan);
//  4. flow: each segment between records from T^{1/2} on against GD's
//     modified flow on the weighted cross-entropy (ceFlow), over the
//     first-order discretization budget plus rounding and the integrator's
//     estimate;
//  6. the weights' effect: with fixed weights that move the flow ermApartMin
//     budgets off ERM's, the run may not follow ERM's flow;
//  7. speed: each segment's ‖Θ_b − Θ_a‖ over its weight-free envelope
//     ∫ Q·max_n ‖g_n‖ dT (g_n = Σ_j π_{n,j} a_{n,j}, Q = Σ_n q_n), plus GD's
//     left sum and rounding: decided whatever the weights; where the
//     records keep the weights' integral m_n = ∫q_n dT (train.WeightSum),
//     the smaller Σ_n m_n·max ‖g_n‖ over the segment (GD's step is
//     Σ_n Σ_t η q_n^{(t)} g_n(t)): each sample at its own mass, so a
//     polynomial tail is seen when Group DRO's weights sit on slow samples
//     (soak seed 1795701728191970: the pairwise control held at 0.809
//     of the weight-free envelope on K=3 n=7 d=2 gdro(0.844)).
//
// (Part 5 of LinearLimit, the steps' coefficients on independent z_n, has
// no counterpart: N(K − 1) rows in K·D dimensions are dependent in most
// cases, and the K − 1 rows of a sample share the softmax's normalization.)
// Parts 1, 4 and 6 need the weights between records: they decide for the
// fixed-weight schemes (train.SchemeKind.Fixed) and are shown otherwise, where
// 2 and 7 decide with q_n ≤ Σq. Every part is ≤ 1 on a correct engine by
// derivation (false-alarm rate 0 up to the interpolation of the pulls
// between records, as LinLimitBound). Faults: a stray preconditioner on a
// coordinate θ_{c,f} leaves span{a} (part 3: e_{c,f} has the component
// 1/K of 1_K ⊗ e_f) and moves the limit (1, 4); weights ignored on fixed
// non-uniform weights put the run on ERM's flow (4, 6) and ERM's offset
// (1); a pairwise polynomial tail breaks 1, 4 and 7.
func MultiClassLimit(sol *numerics.SVM, a *mat.Dense, per int, tr *train.Trajectory, note string) theorems.Verdict {
	rows, d := a.Dims()
	w := sol.W
	if len(w) != d || per < 1 || rows%per != 0 {
		return theorems.Invalid(fmt.Errorf("the multi-class SVM has %d entries for %d×%d constraints (%d per sample)", len(w), rows, d, per))
	}
	n := rows / per
	recs, start, bad := LimitRecords(tr, d)
	if bad != nil {
		return *bad
	}
	win := recs[start:]
	ext := recs[max(start-1, 0):] // the window and the record before it
	lead := len(ext) - len(win)
	last := win[len(win)-1]

	// The samples' weights at every record (those it kept, else 1).
	rw, err := windowWeights(tr, win, n, nil, "samples")
	if err != nil {
		return theorems.Invalid(err)
	}
	qs, fixed, total, qCap := rw.qs, rw.fixed, rw.total, rw.qCap
	rowQ := func(q []float64) []float64 {
		out := make([]float64, rows)
		for r := range out {
			out[r] = q[r/per]
		}
		return out
	}

	g := newLinGeometry(a, w)
	eta, notGD := StepSize(tr, win)

	// Pulls at the window's records and the one before it: on V_S, the
	// rows off the margin and the tail's departure on the active rows; off
	// V_S, the rows off the margin.
	flow := newCEFlow(a, per, eta)
	pullOn, pullOff := make([][]float64, len(ext)), make([][]float64, len(ext))
	slopes := make([][]float64, len(ext))
	speed := make([][]float64, len(ext))       // T·Q·max_n ‖g_n‖ (one entry)
	sampleSpeed := make([][]float64, len(ext)) // ‖g_n‖ per sample
	logT := make([]float64, len(ext))
	for j, r := range ext {
		flow.q = qCap
		flow.velocity(r.Theta)
		T := math.Exp(r.LogT)
		logT[j] = r.LogT
		pullOn[j], pullOff[j] = make([]float64, rows), make([]float64, rows)
		slopes[j] = append([]float64(nil), flow.pi...)
		sampleSpeed[j] = flow.sampleSpeeds()
		speed[j] = []float64{T * total * floats.Max(sampleSpeed[j])}
		for i := 0; i < rows; i++ {
			qi := qCap[i/per]
			if g.onMargin[i] {
				pullOn[j][i] = T * qi * flow.tailDev(i) * g.zOn[i]
			} else {
				pullOn[j][i] = T * qi * flow.pi[i] * g.zOn[i]
				pullOff[j][i] = T * qi * flow.pi[i] * g.zOff[i]
			}
		}
	}

	// Segment by segment: GD's discretization and rounding, the flow under
	// the records' weights and under ERM's.
	var (
		perturb, roundTotal, stepPull float64
	)
	sums, integrated := segmentWeightSums(tr, win, n)
	ft := newFlowTally(flow, func(q []float64) { flow.q = q }, eta, total, n, d) // parts 4 and 6
	for k := 0; k+1 < len(win); k++ {
		disc, round := ft.segment(win[k], win[k+1], qs[k], rows, notGD != "")
		perturb += disc + round
		roundTotal += round
		// GD's left Riemann sum of the pull: one step's worth per segment.
		for i := 0; i < rows; i++ {
			if !g.onMargin[i] {
				stepPull += eta * qCap[i/per] * math.Max(slopes[k+lead][i], slopes[k+lead+1][i]) * g.zOff[i]
			}
		}
	}
	var pushOn, pushOff float64
	worstSpeed, speedAt := math.Inf(-1), 0.0
	for j := lead; j+1 < len(ext); j++ {
		pushOn += pullIntegral(logT, pullOn, j)
		pushOff += pullIntegral(logT, pullOff, j)
		ra, rb := ext[j], ext[j+1]
		round := roundingBudget(float64(rb.Step-ra.Step), ra.Theta, rb.Theta, rows)
		env := pullIntegral(logT, speed, j) + eta*math.Max(speed[j][0]*math.Exp(-ra.LogT), speed[j+1][0]*math.Exp(-rb.LogT)) + round
		if integrated {
			// With the weights' integral m_n over the segment GD's step is
			// Σ_n Σ_t η q_n^{(t)} g_n(t), so ‖Θ_b − Θ_a‖ ≤ Σ_n m_n·max_t ‖g_n(t)‖:
			// each sample at its own mass, not every step at the fastest
			// sample's speed with all the weight (the max over the segment
			// interpolated as the pulls', pullIntegral: the constant m_n
			// leaves the logs' curvature as it is).
			massed := make([][]float64, len(ext))
			for i := range massed {
				massed[i] = scaleBy(1, sampleSpeed[i])
				floats.Mul(massed[i], sums[j-lead])
			}
			env = math.Min(env, pullIntegral(logT, massed, j)/(logT[j+1]-logT[j])+round)
		}
		if r := floats.Distance(ra.Theta, rb.Theta, 2) / env; r > worstSpeed || math.IsNaN(r) {
			worstSpeed, speedAt = r, rb.LogT
		}
	}

	var decide []theorems.Verdict
	var parts []string

	// 4. The flow; 6. the weights' effect (see LinearLimit, flowTally.verdicts).
	d46, p46 := ft.verdicts("GD's modified flow on the cross-entropy", notGD, fixed, win[0].LogT)
	decide = append(decide, d46...)
	parts = append(parts, p46...)

	// 7. The speed: whatever the weights (q_n ≥ 0, Σq_n ≤ Q), GD's step is
	// η Σ_n q_n g_n with g_n = Σ_j π_{n,j} a_{n,j}, so ‖θ_b − θ_a‖ ≤ ∫ Q·max_n
	// ‖g_n‖ dT between records: the weight-free envelope of the
	// cross-entropy's tail. A tail heavier than exponential (the pairwise
	// polynomial control) moves Θ by far more than e^{−u} allows at its
	// own margins.
	decide = append(decide, theorems.Compare(worstSpeed, LinLimitBound, ""))
	envelope := "weight-free envelope ∫ Q·max_n ‖Σ_j π_{n,j} a_{n,j}‖ dT"
	if integrated {
		envelope = "envelope min(∫ Q·max_n ‖g_n‖ dT, Σ_n ∫q_n dT·max ‖g_n‖), g_n = Σ_j π_{n,j} a_{n,j}"
	}
	parts = append(parts, fmt.Sprintf("the steps against the cross-entropy's %s: worst ratio %.3g at log T = %.3g", envelope, worstSpeed, speedAt))

	// 1. The limit on V_S, under the last record's weights.
	if ratio, msg, err := limitOnSupport(a, w, rowQ(qs[len(qs)-1]), g, win, pushOn+perturb, fixed); err != nil {
		if fixed {
			decide = append(decide, theorems.Undecided("the residual's limit: %v", err))
		}
		parts = append(parts, fmt.Sprintf("no computed limit (%v)", err))
	} else if fixed {
		decide = append(decide, theorems.Compare(ratio, LinLimitBound, ""))
		parts = append(parts, msg)
	} else {
		parts = append(parts, movingShown("limit for the last record's weights")+msg)
	}

	// 2. Off V_S on span{a}.
	if len(g.basis) < len(g.span) {
		ratio, msg := driftOffSupport(g, win[0], last, pushOff+stepPull+roundTotal)
		if fixed && notGD == "" && ft.compared > 0 {
			msg += " (shown: the flow comparison covers it)"
		} else {
			decide = append(decide, theorems.Compare(ratio, LinLimitBound, ""))
		}
		parts = append(parts, msg)
	}

	// 3. Off span{a}.
	if len(g.span) < d {
		ratio, msg := driftOffSpan(g, tr, last, rows)
		decide = append(decide, theorems.Compare(ratio, LinLimitBound, ""))
		parts = append(parts, msg)
	}

	parts = append(parts, fmt.Sprintf("∠(Θ, Ŵ) %.4g → %.4g rad", numerics.Angle(win[0].Theta, w), numerics.Angle(last.Theta, w)))
	if _, ce := tr.Loss.(losses.CrossEntropy); tr.Loss != nil && !ce {
		parts = append(parts, fmt.Sprintf("loss %q is not the cross-entropy: compared with the cross-entropy's flow and limit", tr.Loss.Name()))
	}
	if note != "" {
		parts = append(parts, note)
	}
	return combineParts(decide, parts)
}
