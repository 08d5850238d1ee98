package theorems

import (
	"fmt"
	"math"
)

// Status is the outcome of a check.
type Status int

const (
	// Holds: the claim held within the bound.
	Holds Status = iota
	// Inconclusive: the case could not decide; never counted as a pass.
	Inconclusive
	// AssumptionFailed: the case breaks a hypothesis of the theorem.
	AssumptionFailed
	// Violated: the claim failed; Detail carries the counterexample.
	Violated
	// NotApplicable: the case cannot run on the engine under test (another
	// engine that lacks a capability, or a claim the engine protocol does
	// not express: flows, moving weights; docs/engines.md). Never a pass.
	NotApplicable
	// EngineError: the engine under test crashed, hung or answered garbage
	// on the case (engines.IsEngineError); Detail names the case. Never a
	// pass, and no verdict on the claim.
	EngineError
)

var statusNames = [...]string{"holds", "inconclusive", "assumption-failed", "violated", "not-applicable", "engine-error"}

// String returns holds, inconclusive, assumption-failed, violated,
// not-applicable or engine-error.
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return "unknown"
	}
	return statusNames[s]
}

// MarshalText writes the status name (for JSON).
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a status name.
func (s *Status) UnmarshalText(b []byte) error {
	for i, n := range statusNames {
		if n == string(b) {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("theorems: unknown status %q", b)
}

// Verdict is the result of one check on one case.
type Verdict struct {
	Status Status
	// Statistic is the measured quantity (for a check over several points,
	// the worst one) and Bound what it was compared against: the claim holds
	// when Statistic ≤ Bound.
	Statistic float64
	Bound     float64
	// Detail explains the verdict: the counterexample, the hypothesis that
	// failed, or why the case could not decide.
	Detail string
	// Worst locates the worst case in a run's records, for the checks over a
	// run that have one (nil otherwise): what a caller reads instead of the
	// step numbers in Detail.
	Worst *Span
}

// Span is the step interval [From, To] of the records where a check over a
// run met its worst case (From = To for one record).
type Span struct{ From, To int }

// String returns "status (statistic vs bound): detail".
func (v Verdict) String() string {
	s := fmt.Sprintf("%s (%.3g vs bound %.3g)", v.Status, v.Statistic, v.Bound)
	if v.Detail != "" {
		s += ": " + v.Detail
	}
	return s
}

// Compare returns Holds when stat ≤ bound and Violated otherwise (also for a
// NaN statistic: a check that cannot compute its statistic has not shown
// the claim).
func Compare(stat, bound float64, detail string) Verdict {
	st := Violated
	if stat <= bound {
		st = Holds
	}
	return Verdict{Status: st, Statistic: stat, Bound: bound, Detail: detail}
}

// Assumption returns an AssumptionFailed verdict naming the hypothesis.
func Assumption(format string, a ...any) Verdict {
	return Verdict{Status: AssumptionFailed, Statistic: math.NaN(), Detail: fmt.Sprintf(format, a...)}
}

// Inapplicable returns a NotApplicable verdict saying what the engine
// cannot run.
func Inapplicable(format string, a ...any) Verdict {
	return Verdict{Status: NotApplicable, Statistic: math.NaN(), Detail: fmt.Sprintf(format, a...)}
}

// EngineFailed returns an EngineError verdict carrying the engine's
// one-line error.
func EngineFailed(err error) Verdict {
	return Verdict{Status: EngineError, Statistic: math.NaN(), Detail: err.Error()}
}

// Undecided returns an Inconclusive verdict saying why.
func Undecided(format string, a ...any) Verdict {
	return Verdict{Status: Inconclusive, Statistic: math.NaN(), Detail: fmt.Sprintf(format, a...)}
}

// Worse reports whether a is a worse outcome than b: a higher status, or the
// same status and a statistic that came closer to (or went further past)
// its bound (Closeness).
func Worse(a, b Verdict) bool {
	if a.Status != b.Status {
		return a.Status > b.Status
	}
	return Closeness(a) > Closeness(b)
}

// Closeness is how far a verdict's statistic lies past its bound, relative
// to the bound's size (every check decides Statistic ≤ Bound):
//
//	(Statistic − Bound)/|Bound|   for Bound ≠ 0,
//	Statistic                     for Bound = 0;
//
// negative while the statistic is on the holding side, 0 at the bound,
// larger the worse. Dividing by |Bound| rather than Bound keeps the order
// right for negative bounds: LL-K1's log 𝓛 of −6000 against a bound of
// −2000 is −2 (far inside), −2100 is −0.05 (close). NaN (no statistic) is
// −Inf: never the worst of the decided cases.
func Closeness(v Verdict) float64 {
	if math.IsNaN(v.Statistic) {
		return math.Inf(-1)
	}
	if v.Bound == 0 {
		return v.Statistic
	}
	return (v.Statistic - v.Bound) / math.Abs(v.Bound)
}

// Worst returns the worst of vs (Worse), or an Inconclusive verdict for none.
func Worst(vs ...Verdict) Verdict {
	if len(vs) == 0 {
		return Undecided("no cases")
	}
	w := vs[0]
	for _, v := range vs[1:] {
		if Worse(v, w) {
			w = v
		}
	}
	return w
}

// Invalid returns an AssumptionFailed verdict for a case that could not be
// read (a shape mismatch, a non-finite entry): err says which.
func Invalid(err error) Verdict {
	return Verdict{Status: AssumptionFailed, Statistic: math.NaN(), Detail: err.Error()}
}
