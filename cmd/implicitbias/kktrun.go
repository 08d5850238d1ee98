package main

import (
	"context"
	"regexp"
	"strconv"

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

// nestedStep matches the "step A: step B: " of an error from a run inside
// a run (train.RunWindows starts each burst at step A, and the burst's own
// Run counts from 0).
var nestedStep = regexp.MustCompile(`^step (\d+): step (\d+): `)

// absoluteStep rewrites "step A: step B: …" as "step A+B: …", the step of
// the whole run (issue 21: kkt printed "step 2: step 0: …").
func absoluteStep(err error) error {
	if err == nil {
		return nil
	}
	m := nestedStep.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	return &stepError{msg: "step " + strconv.Itoa(a+b) + ": " + err.Error()[len(m[0]):], err: err}
}

// stepError is an error with a rewritten message that still unwraps to the
// original (errors.Is(err, train.ErrNonFinite) keeps working).
type stepError struct {
	msg string
	err error
}

func (e *stepError) Error() string { return e.msg }
func (e *stepError) Unwrap() error { return e.err }
