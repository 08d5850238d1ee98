package properties

import (
	"context"
	"fmt"
	"math"
	"math/rand"

	"github.com/leanovate/gopter"

	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/theorems"
)

// The one decision rule of `go test` and `verify` (issue 18: the same
// entry used to pass one and not the other). A property is run on n
// decided cases drawn from its seed:
//
//   - an inconclusive verdict is never a pass: the case is counted as
//     undecided and replaced by a fresh one, at most
//     DiscardAllowance(n, p.Meta().Undecided) times; one more and the property
//     gives up (inconclusive);
//   - a case whose verdict is not wanted (a claim not holding, a control
//     not caught) fails the property; the run still draws its n cases, so
//     that the counts mean the same in both tools, and the first failing
//     case is then shrunk (a shrunk candidate is kept while it still fails).
//
// A fault control (Property.Fault: an engine fault planted in a claim's
// cases) measures power instead, on n valid cases: a case is valid when
// the claim holds on it without the fault (the same case, Fault cleared:
// a case the correct engine cannot decide tests nothing about the fault)
// and the faulted check judged it (a verdict other than assumption-failed:
// a fault that breaks the check's hypotheses, a diverged run, is counted
// apart as Refused). On a valid case only violated is a catch, and no
// case is replaced; the control passes when at least faults.MinPower of
// its n valid cases were violated (Outcome.Misses), and fails when fewer
// than n valid cases come in 4n draws. A
// conjecture's claims are reported, not asserted: every case is counted
// and nothing is shrunk.

// Outcome is the result of one property run.
type Outcome struct {
	// Summary counts every verdict drawn, replacements included.
	Summary theorems.Summary
	// Allowance is the number of inconclusive cases the run may meet.
	Allowance int
	// GaveUp reports more inconclusive cases than the allowance.
	GaveUp bool
	// Failed describes the first failing case after shrinking (its
	// description, the shrinks made, its verdict); "" when none failed.
	Failed string
	// Shrunk is that case, Verdict its verdict.
	Shrunk  any
	Verdict theorems.Verdict
	// Interrupted reports a run stopped by ctx.
	Interrupted bool
	// Misses counts, for a fault control, the valid cases not reported
	// violated; MissesAllowed is ⌊(1 − faults.MinPower)·n⌋. Invalid counts
	// the draws on which the claim does not hold without the fault,
	// Refused those the faulted check reported assumption-failed.
	Misses, MissesAllowed, Invalid, Refused int
}

// Passed reports that n cases decided and every one was wanted.
// A property none of whose cases the engine under test could run did not
// pass (NotRun).
func (o Outcome) Passed() bool {
	return !o.GaveUp && o.Failed == "" && !o.Interrupted && !o.NotRun()
}

// NotRun reports that every case was not applicable on the engine under
// test.
func (o Outcome) NotRun() bool {
	return o.Summary.Cases > 0 && o.Summary.NotApplicable == o.Summary.Cases
}

// maxGenMisses bounds the draws a filtered generator may reject in a row
// (ENG-grad's backward control rejects about one in eight).
const maxGenMisses = 1000

// maxShrinks bounds the shrinking of a failing case (gopter's default).
const maxShrinks = 1000

// Decide runs p under r on n decided cases drawn from seed (not r.Seed:
// each property of an entry has its own) under the rule above;
// want says whether a decided verdict passes. report, when false, only
// counts (a conjecture): no case fails and nothing is shrunk.
func Decide(ctx context.Context, r *Runner, id string, p Prop, seed int64, n int, want func(theorems.Verdict) bool, report bool) Outcome {
	return decide(ctx, r, id, p, seed, n, want, report, false)
}

// decide is Decide; with oneDraw (a sweep run as one sweep shard,
// Runner.shardedSweep) it draws n cases and no more: no undecided case is
// replaced and a fault control takes no draw beyond them.
func decide(ctx context.Context, r *Runner, id string, p Prop, seed int64, n int, want func(theorems.Verdict) bool, report, oneDraw bool) Outcome {
	o := Outcome{Summary: theorems.Summary{ID: id}, Allowance: DiscardAllowance(n, p.Meta().Undecided)}
	power := p.Meta().Fault != ""
	if power || oneDraw {
		o.Allowance = 0
	}
	if power {
		o.MissesAllowed = int(math.Floor((1-faults.MinPower)*float64(n) + 1e-9))
	}
	draws := 4 * n // a fault control's draws for n valid cases
	if oneDraw {
		draws = n
	}
	if v, ok := r.inapplicable(id, p); ok {
		o.Summary.Add(v, "")
		return o
	}
	params := gopter.DefaultGenParameters()
	params.Rng = rand.New(rand.NewSource(seed))
	type failure struct {
		res *gopter.GenResult
		v   any
		ver theorems.Verdict
	}
	var first *failure
	decided, undecided := 0, 0
	for misses := 0; decided < n; {
		if ctx.Err() != nil {
			o.Interrupted = true
			return o
		}
		res := p.Generator(r)(params)
		v, ok := res.Retrieve()
		if !ok {
			// A filtered generator rejected its draw: no case, draw again.
			if misses++; misses == maxGenMisses {
				o.GaveUp = true
				o.Summary.GaveUp = true
				o.Failed = fmt.Sprintf("the generator made no case in %d draws", misses)
				return o
			}
			continue
		}
		misses = 0
		if power {
			if o.Invalid+o.Refused+decided >= draws {
				o.Failed = fmt.Sprintf("only %d valid cases in %d draws (%d on which the claim does not hold without the fault, %d that the faulted check refused as outside its hypotheses)", decided, draws, o.Invalid, o.Refused)
				return o
			}
			judged, ref := r.faultCase(v)
			if c, ok := v.(Faultable); ok && ref.claimVerdict(id, seed, p, c.WithFault("")).Status != theorems.Holds {
				o.Invalid++
				continue
			}
			ver := p.Verdict(r, judged)
			if ver.Status == theorems.NotApplicable {
				o.Summary.Add(ver, Describe(r, v))
				decided++
				continue
			}
			if ver.Status == theorems.AssumptionFailed {
				o.Refused++
				continue
			}
			o.Summary.Add(ver, Describe(r, v))
			decided++
			if !want(ver) {
				if o.Misses++; first == nil {
					first = &failure{res, v, ver}
				}
			}
			continue
		}
		ver := r.claimVerdict(id, seed, p, v)
		o.Summary.Add(ver, Describe(r, v))
		if ver.Status == theorems.NotApplicable {
			// A case the engine under test cannot run (a layer its
			// handshake lacks, a run the protocol has no words for):
			// counted, never a pass, not replaced (a claim none of whose
			// cases can run must not draw forever).
			decided++
			continue
		}
		if ver.Status == theorems.Inconclusive {
			if undecided++; undecided > o.Allowance {
				o.GaveUp = true
				o.Summary.GaveUp = true
				break
			}
			continue
		}
		decided++
		if report && first == nil && !want(ver) {
			first = &failure{res, v, ver}
		}
	}
	if first == nil || power && o.Misses <= o.MissesAllowed {
		return o
	}
	v, ver, shrinks := first.v, first.ver, 0
	if ver.Status == theorems.EngineError || power && r.Engine != nil {
		// Not a counterexample to the claim: nothing to shrink (and each
		// shrink would ask the failing engine again).
		o.Failed = fmt.Sprintf("%s: %s", Describe(r, v), ver.Detail)
		return o
	}
	if first.res.Shrinker != nil {
		next := first.res.Shrinker(v)
		for shrinks < maxShrinks && ctx.Err() == nil {
			w, ok := next()
			if !ok {
				break
			}
			if first.res.Sieve != nil && !first.res.Sieve(w) {
				continue // outside the generator's filter (a fault's scope)
			}
			if c, ok := w.(Faultable); power && ok && r.claimVerdict(id, seed, p, c.WithFault("")).Status != theorems.Holds {
				continue // not a valid case of the fault control
			}
			if wv := p.Verdict(r, w); wv.Status != theorems.Inconclusive && !want(wv) {
				v, ver = w, wv
				shrinks++
				next = first.res.Shrinker(v)
			}
		}
	}
	o.Shrunk, o.Verdict = v, ver
	o.Failed = fmt.Sprintf("%s (shrunk %d times from %s): %s", Describe(r, v), shrinks, Describe(r, first.v), ver)
	return o
}

// ClaimWanted is a claim's rule: the case holds.
func ClaimWanted(v theorems.Verdict) bool { return v.Status == theorems.Holds }

// claimVerdict is p's verdict on the case c drawn from seed for entry id,
// kept in r: a fault control draws from its claim's seed (ControlSeed), so
// the validity of its cases — the claim's verdict on the same case without
// the fault — is the verdict the claim gave, found under the same key, not
// computed (trained and judged) again. The key is the case's every field
// (%#v), as the run caches key theirs; the check is deterministic for it.
func (r *Runner) claimVerdict(id string, seed int64, p Prop, c any) theorems.Verdict {
	key := fmt.Sprintf("%s/%d/%#v", id, seed, c)
	v, _ := Cache[theorems.Verdict](r, "verdicts").GetKept(key, func() (theorems.Verdict, error) { return p.Verdict(r, c), nil })
	return v
}
