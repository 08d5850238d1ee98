package weightwitness

import (
	"fmt"
	"math"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// Weights witnessed (issue 32): a claim about a GRW run (ZD §3) reads the
// weights q^{(t)} the run recorded. A run whose objective ignored the scheme
// and whose records say so is an honest ERM run, and a check that takes the
// records' word judges it as one. RecordedWeights recomputes q^{(t)} at the
// records from the scheme's definition instead — a fresh instance of the
// scheme the case asked for, fed the per-sample losses at each record's θ
// computed here from the case's model and loss — and reports violated on a
// mismatch beyond rounding: the run is not the GRW run the case asked for.
//
// Which records can be recomputed depends on the scheme's state:
//   - ERM, static weights and importance weighting (train.ERM,
//     train.Static, train.ImportanceWeighting) keep none: q^{(t)} is the
//     case's, at every record;
//   - χ²- and CVaR-DRO (train.ChiSquareDRO, train.CVaRDRO) are a function
//     of the losses at θ_t, schedules (train.Schedule) a function of t:
//     recomputed at every record;
//   - Group DRO and the learned weighting (train.GroupDRO,
//     train.LearnedWeighting) carry a state (log g_k; ψ, b) updated at every
//     step from that step's losses: they are replayed from step 0 (θ₀ from
//     the case) through the records of consecutive steps 1, 2, 3, … and
//     recomputed there; past the first gap in the steps the state is not
//     in the records and the weights are not witnessed (docs/trust.md).
//
// Rounding. The losses are computed by the case's model's forward pass and
// the loss's log ℓ exactly as the engine's objective computes them
// (train.Objective.Evaluate: −y·s for the exponential loss, the margin
// loss's LogLoss(y·s), the loss's LogLoss otherwise), so they are the
// engine's bits; the scheme's Update is deterministic, so the recomputed
// q_i are the bits the scheme wrote. The records hold q_i either as written
// (train.Run) or through the objective's log domain, e^{log q_i}
// (Objective.LogWeight, which the geometric recorders read): log q_i is
// within one ulp, a relative ε of |log q_i| absolutely, and its exponential
// within another ulp, so the recorded q_i is within
//
//	q_i·(ε·|log q_i| + ε)(1 + O(ε)) ≤ weightRounding·ε·(1 + |log q_i|)·q_i
//
// of the scheme's, weightRounding = 4 leaving a factor 2 for numerics.Log
// and math.Exp being within one ulp rather than half. Any larger difference
// is not rounding.
const weightRounding = 4

// WeightReplay is what RecordedWeights needs to recompute a run's weights:
// everything from the case, nothing from the run.
type WeightReplay struct {
	// Scheme is a fresh instance of the scheme the case asked for (never
	// the instance that ran); RecordedWeights starts it.
	Scheme train.Weighting
	// Data, Model and Loss give the per-sample losses at a record's θ: the
	// case's data, and its model and loss as the case builds them (not the
	// run's objective).
	Data  *dataset.Dataset
	Model models.Model
	Loss  losses.Loss
	// Theta0 is θ at step 0 (the run's start), from which a stateful
	// scheme is replayed; nil: a stateful scheme is replayed only when the
	// records start at step 0.
	Theta0 []float64
	// Rounding is a relative allowance added to the bound for weights that
	// did not come from the engine's own scheme (a run recorded outside
	// the engine, normalized by the caller: package check derives its
	// own); 0 for the engine's records.
	Rounding float64
}

// stateless reports whether q^{(t)} of w is a function of t and the losses
// at θ_t alone (no state carried between steps).
func stateless(w train.Weighting) bool {
	switch w.(type) {
	case *train.ERM, *train.Static, *train.ImportanceWeighting, *train.ChiSquareDRO, *train.CVaRDRO, *train.Schedule:
		return true
	}
	return false
}

// sampleLogLosses computes log ℓ_n at θ into dst from the case's model
// and loss. A loss with a batch form (losses.Batch: the binary and
// cross-entropy losses) is evaluated by it, the definition the objective
// evaluates on every step, so that the witness compares weights, not two
// roundings of one loss: the loss values themselves are package losses'
// and checked there against 256-bit references (losses/batch_test.go);
// what the witness checks is that the scheme's weights were computed from
// them and applied.
type sampleLogLosses struct {
	w             WeightReplay
	ws            models.Workspace
	batch         losses.Batch
	m             losses.Margin
	exp           bool
	q, dlog, work []float64
}

func newSampleLogLosses(w WeightReplay) *sampleLogLosses {
	s := &sampleLogLosses{w: w, ws: w.Model.NewWorkspace(w.Data.N)}
	if b, ok := w.Loss.(losses.Batch); ok && w.Loss.Kind() != losses.Regression {
		n, k := w.Data.N, w.Model.Out()
		s.batch = b
		s.q, s.dlog, s.work = make([]float64, n), make([]float64, n*k), make([]float64, 2*n)
	}
	if b, ok := w.Loss.(losses.BinaryLoss); ok {
		s.m = b.M
		_, s.exp = b.M.(losses.Exponential)
	}
	return s
}

func (s *sampleLogLosses) at(theta, dst []float64) error {
	d, k := s.w.Data, s.w.Model.Out()
	if len(theta) != s.w.Model.NumParams() {
		return fmt.Errorf("θ has %d entries, the case's model %d", len(theta), s.w.Model.NumParams())
	}
	sc := s.w.Model.Forward(s.ws, theta, d.X, d.N)
	if s.batch != nil {
		s.batch.LogLosses(dst, s.q, s.dlog, sc, d.Y, s.work)
		return nil
	}
	for n := 0; n < d.N; n++ {
		row := sc[n*k : (n+1)*k]
		switch {
		case s.exp:
			dst[n] = -d.Y[n] * row[0]
		case s.m != nil:
			dst[n] = s.m.LogLoss(d.Y[n] * row[0])
		default:
			dst[n] = s.w.Loss.LogLoss(row, d.Y[n])
		}
	}
	return nil
}

// RecordedWeights recomputes q^{(t)} at the records of tr from the scheme's
// definition (see WeightReplay) and compares it with the recorded weights.
// It returns ok = true when every recomputable record agrees within
// rounding; otherwise a violated verdict (a record's weights are not the
// scheme's) or an inconclusive one (the witness could not be computed).
// Records without weights or θ are skipped, as are, for a stateful scheme,
// those past the first gap in the steps.
func RecordedWeights(tr *train.Trajectory, w WeightReplay) (v theorems.Verdict, ok bool) {
	if w.Scheme == nil || w.Data == nil || w.Model == nil || w.Loss == nil {
		return theorems.Undecided("weights not witnessed: the case gives no scheme, data, model or loss"), false
	}
	if err := w.Scheme.Start(w.Data); err != nil {
		return theorems.Undecided("weights not witnessed: the scheme does not start: %v", err), false
	}
	n := w.Data.N
	ll, q := make([]float64, n), make([]float64, n)
	losses := newSampleLogLosses(w)
	free := stateless(w.Scheme)
	next := 0 // the step a stateful scheme's replay is at
	if !free && w.Theta0 != nil {
		if err := losses.at(w.Theta0, ll); err != nil {
			return theorems.Undecided("weights not witnessed: %v", err), false
		}
		if err := w.Scheme.Update(0, ll, q); err != nil {
			return theorems.Undecided("weights not witnessed: the scheme's update at step 0: %v", err), false
		}
		next = 1
	}
	worst, checked := 0.0, 0
	detail := ""
records:
	for _, r := range tr.Records {
		theta := r.Theta
		if theta == nil && r.Step == 0 {
			theta = w.Theta0 // a run that keeps no θ still starts at the case's θ₀
		}
		if r.Weights == nil || theta == nil {
			continue
		}
		if len(r.Weights) != n {
			return theorems.Compare(math.Inf(1), 1, fmt.Sprintf("step %d records %d weights for %d samples: the run is not the GRW run the case asked for", r.Step, len(r.Weights), n)), false
		}
		switch {
		case free || r.Step == next:
			if err := losses.at(theta, ll); err != nil {
				return theorems.Undecided("weights not witnessed: %v", err), false
			}
			if err := w.Scheme.Update(r.Step, ll, q); err != nil {
				return theorems.Undecided("weights not witnessed: the scheme's update at step %d: %v", r.Step, err), false
			}
			next = r.Step + 1
		case r.Step == next-1:
			// q holds this step's weights: the replay's last update.
		case r.Step > next:
			break records // a gap: the state is not in the records
		default:
			continue
		}
		checked++
		for i, want := range q {
			tol := (weightRounding*0x1p-52*(1+math.Abs(math.Log(want))) + w.Rounding) * want
			if want == 0 {
				tol = 0
			}
			diff := math.Abs(r.Weights[i] - want)
			ratio := diff / tol
			if diff == 0 {
				ratio = 0
			}
			if ratio > worst || math.IsNaN(ratio) {
				worst = ratio
				detail = fmt.Sprintf("step %d, sample %d: recorded q = %.17g, the scheme's definition (%s) gives %.17g (rounding bound %.3g)", r.Step, i+1, r.Weights[i], w.Scheme.Scheme(), want, tol)
			}
		}
	}
	if checked == 0 {
		return theorems.Verdict{}, true // nothing recorded to witness: the claims that read weights say so themselves
	}
	if worst > 1 || math.IsNaN(worst) {
		return theorems.Compare(worst, 1, "the recorded weights are not the scheme's: "+detail+"; the run is not the GRW run the case asked for"), false
	}
	return theorems.Verdict{}, true
}
