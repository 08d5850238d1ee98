package train

// Ending a RunWindows run early (WindowPlan.Stop): a check that has
// decided its verdict on the records so far need not train the rest
// (issue 28 item 3; properties/cases.StopWhenViolated says when that is
// sound). The run so far is the run of that many steps: its records are
// those the full run makes up to that step, bit for bit, since nothing
// after a window changes what was recorded before it.

// stopped asks plan.Stop, if set, whether to end the run after done steps
// with records out.Records (θ kept, the last one's θ the current θ).
func (plan WindowPlan) stopped(out *Trajectory, done int) bool {
	if plan.Stop == nil {
		return false
	}
	return plan.Stop(SoFar(out, done))
}

// SoFar returns tr's run of its first step steps: tr's header and its
// records up to step (which must be one of them, with θ kept), θ the last
// one's. The records are shared with tr, not copied.
func SoFar(tr *Trajectory, step int) *Trajectory {
	p := *tr
	n := len(tr.Records)
	for n > 0 && tr.Records[n-1].Step > step {
		n--
	}
	p.Records = tr.Records[:n:n]
	last := p.Records[n-1]
	p.Theta, p.Steps, p.Weights, p.Stalled = last.Theta, last.Step, last.Weights, false
	return &p
}
