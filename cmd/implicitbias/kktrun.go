package main

import (
	"context"
	"fmt"

	"github.com/implicitbias/implicitbias/train"
)

// interruptible is an optimizer that refuses to step once ctx is done
// (SIGINT, SIGTERM): the run then ends with errInterrupted, keeping what it
// recorded. kkt uses it around GD, which has no Resetter or ErrorEstimator
// to hide.
type interruptible struct {
	ctx context.Context
	train.Optimizer
}

func (o interruptible) Step(obj *train.Objective, theta []float64, ev *train.Eval) (float64, error) {
	if o.ctx.Err() != nil {
		return 0, errInterrupted
	}
	return o.Optimizer.Step(obj, theta, ev)
}

// absoluteStep rewrites the error of a run inside a run, a
// train.StepError at step A wrapping one at step B (train.RunWindows starts
// each burst at step A, and the burst's own Run counts from 0), as "step
// A+B: …", the step of the whole run (issue 21: kkt printed "step 2: step
// 0: …").
func absoluteStep(err error) error {
	outer, ok := err.(*train.StepError)
	if !ok {
		return err
	}
	inner, ok := outer.Err.(*train.StepError)
	if !ok {
		return err
	}
	return &stepError{msg: fmt.Sprintf("step %d: %v", outer.Step+inner.Step, inner.Err), err: err}
}

// stepError is an error with a rewritten message that still unwraps to the
// original (errors.Is(err, train.ErrNonFinite) keeps working).
type stepError struct {
	msg string
	err error
}

func (e *stepError) Error() string { return e.msg }
func (e *stepError) Unwrap() error { return e.err }
