package train

import "fmt"

// StepError is an error that ended a run at a step: Step counts from the
// start of the run that returned it (RunWindows wraps the error of a
// window's run, which counts from the window's start, in one at the
// window's offset, so a caller adds the two).
type StepError struct {
	Step int
	Err  error
}

// Error returns "step N: " and the error.
func (e *StepError) Error() string { return fmt.Sprintf("step %d: %v", e.Step, e.Err) }

// Unwrap returns the error.
func (e *StepError) Unwrap() error { return e.Err }
