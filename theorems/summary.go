package theorems

// Summary aggregates the verdicts of one catalog entry over many cases.
type Summary struct {
	ID    string
	Cases int
	// Counts per status.
	Holds, Violated, Inconclusive, AssumptionFailed int
	// NotApplicable and EngineErrors count the cases another engine could
	// not run or failed on (never passes).
	NotApplicable, EngineErrors int
	// EngineFailures holds the engine errors' one-line details, in case
	// order.
	EngineFailures []string
	// Worst is the worst verdict seen (Worse), with its case.
	Worst Verdict
	// WorstCase describes the case that gave Worst (a spec and seed that
	// reproduce it).
	WorstCase string
	// Decided is the worst verdict among the cases that decided (held or
	// were violated), with its case: the statistic a holding entry is
	// summarized by (Worst may be an undecided case).
	Decided     Verdict
	DecidedCase string
	// GaveUp reports that the run met more inconclusive cases than its
	// allowance (properties.DiscardAllowance): too many undecided cases to
	// say the claim holds.
	GaveUp bool
	// Values holds every case's statistic in case order (NaN when the case
	// did not compute one), for plots of the evidence; Bounds the bound
	// each was compared with and Statuses each case's status (Add fills all
	// three; a Summary merged from several by Values alone has shorter
	// Bounds, and a plot then falls back on the shown bound).
	Values   []float64
	Bounds   []float64
	Statuses []Status
}

// Add counts v for the case described by c.
func (s *Summary) Add(v Verdict, c string) {
	if s.Cases == 0 || Worse(v, s.Worst) {
		s.Worst, s.WorstCase = v, c
	}
	if v.Status == Holds || v.Status == Violated {
		if s.Holds+s.Violated == 0 || Worse(v, s.Decided) {
			s.Decided, s.DecidedCase = v, c
		}
	}
	s.Cases++
	s.Values = append(s.Values, v.Statistic)
	s.Bounds = append(s.Bounds, v.Bound)
	s.Statuses = append(s.Statuses, v.Status)
	switch v.Status {
	case Holds:
		s.Holds++
	case Violated:
		s.Violated++
	case Inconclusive:
		s.Inconclusive++
	case AssumptionFailed:
		s.AssumptionFailed++
	case NotApplicable:
		s.NotApplicable++
	case EngineError:
		s.EngineErrors++
		s.EngineFailures = append(s.EngineFailures, v.Detail)
	}
}

// Shown returns the verdict that summarizes the entry: the worst decided
// case when the entry holds (undecided cases are counted apart), the worst
// case otherwise.
func (s *Summary) Shown() (Verdict, string) {
	if s.Status() == Holds {
		return s.Decided, s.DecidedCase
	}
	return s.Worst, s.WorstCase
}

// Status is the entry's overall status:
//
//	violated            some case was violated;
//	engine-error        the engine under test failed on some case;
//	not-applicable      some claim could not run on that engine and no case
//	                    held (an entry whose other claims held holds, with
//	                    the claim that could not run counted);
//	assumption-failed   every case broke a hypothesis;
//	inconclusive        the run gave up (more undecided cases than its
//	                    allowance, properties.DiscardAllowance: the rule
//	                    `go test` and `verify` share), or no case decided;
//	holds               otherwise: the claim held on every decided case; the
//	                    undecided ones are counted and shown.
func (s *Summary) Status() Status {
	met := s.Cases - s.AssumptionFailed - s.NotApplicable
	switch {
	case s.Violated > 0:
		return Violated
	case s.EngineErrors > 0:
		return EngineError
	case s.NotApplicable > 0 && s.Holds == 0:
		return NotApplicable
	case s.Cases > 0 && met == 0:
		return AssumptionFailed
	case s.GaveUp || s.Holds == 0:
		return Inconclusive
	}
	return Holds
}

// Result is the outcome of one catalog entry: its claims over generated
// cases, and its negative controls.
type Result struct {
	Info
	// Claims aggregates the verdicts on the cases that test the claim.
	Claims Summary
	// Controls is the number of negative controls run; ControlsCaught counts
	// those reported violated or assumption-failed on every case;
	// ControlMissed describes the first case a control did not catch.
	Controls, ControlsCaught int
	ControlMissed            string
	// Figures are the entry's own plots (trajectories, scaling), when asked for.
	Figures []Figure
	// Interrupted reports a run stopped before all cases ran; its status is
	// not reported.
	Interrupted bool
	// ControlRuns holds, when the report asked for them, every negative
	// control's cases (the verdicts the run's controls gave, kept by
	// properties.Runner.ControlRuns), for the report's plot of claims and
	// controls against the bound.
	ControlRuns []ControlRun
}

// ControlRun is one negative control's cases.
type ControlRun struct {
	Name  string // the control's property name
	Drops string // the hypothesis it drops (its hunt key), if any
	Fault string // the engine fault it plants, if any
	// Caught reports the control was caught (every case violated or
	// assumption-failed, or for a fault the declared share violated).
	Caught  bool
	Summary Summary
}

// Status is the entry's status: the claim's, except that a negative control
// that was not caught makes a holding claim inconclusive (a check that
// cannot fail has not shown anything). A conjecture (Info.Conjecture) is
// reported, never asserted: its checks say supported (holds) or not
// supported (violated) per case, and an entry with unsupported cases is
// inconclusive, never violated (Support gives the frequency).
func (r Result) Status() Status {
	if r.Interrupted {
		return Inconclusive
	}
	s := r.Claims.Status()
	if s == Holds && r.ControlsCaught < r.Controls {
		return Inconclusive
	}
	if r.Conjecture && s == Violated {
		return Inconclusive
	}
	return s
}

// Support returns, for a conjecture, the cases that supported it and the
// cases that decided (supported or not).
func (r Result) Support() (supported, decided int) {
	return r.Claims.Holds, r.Claims.Holds + r.Claims.Violated
}
