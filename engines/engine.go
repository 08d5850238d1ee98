package engines

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/implicitbias/implicitbias/train"
)

// Engine trains the suite's cases: ours (Local) or another process that
// speaks the protocol (Process). The harness asks Capabilities first: a
// case an engine cannot run is not applicable there, never a pass.
type Engine interface {
	Capabilities() Capabilities
	// Train runs the case and returns its records (θ kept in every record,
	// each measured by our objective).
	Train(ctx context.Context, c *Case) (*train.Trajectory, error)
	// Eval returns Φ, ∇Φ (and the loss) at θ.
	Eval(ctx context.Context, c *EvalCase) (*Evaluation, error)
}

// Protocol is the version of the line protocol (docs/engines.md).
const Protocol = 1

// Capabilities are what an engine says it can run (the handshake).
type Capabilities struct {
	Protocol int        `json:"protocol"`
	Engine   string     `json:"engine"` // its name and version, for the report
	Losses   []Loss     `json:"losses"`
	Rules    []StepKind `json:"rules"`
	// Conv: Conv1d and Conv2d stages (cnn, cnn2d specs).
	Conv bool `json:"conv"`
	// LogDomain: log 𝓛 carried in log domain (LL App. K.2).
	LogDomain bool `json:"logdomain"`
	// Eval: answers eval requests (Φ and ∇Φ).
	Eval bool `json:"eval"`
	// Faults are the faults the adapter can plant (--fault NAME, the
	// registry's names), Fault the one planted in this process ("" none).
	Faults []string `json:"faults,omitempty"`
	Fault  string   `json:"fault,omitempty"`
}

// ErrUnsupported reports a case the engine cannot run (its capabilities):
// not applicable, never a pass.
var ErrUnsupported = errors.New("engines: not supported by the engine")

// Supports returns nil if the engine can run c, else an error wrapping
// ErrUnsupported that says what is missing.
func (cp Capabilities) Supports(c *Case) error {
	switch {
	case !slices.Contains(cp.Losses, c.Loss):
		return fmt.Errorf("%w: loss %v", ErrUnsupported, c.Loss)
	case !slices.Contains(cp.Rules, c.Rule.Kind):
		return fmt.Errorf("%w: step rule %v", ErrUnsupported, c.Rule.Kind)
	case c.LogDomain && !cp.LogDomain:
		return fmt.Errorf("%w: a loss carried in log domain", ErrUnsupported)
	}
	return cp.supportsModel(c.Model, c.In)
}

// SupportsEval is Supports for an evaluation.
func (cp Capabilities) SupportsEval(c *EvalCase) error {
	if !cp.Eval {
		return fmt.Errorf("%w: eval requests", ErrUnsupported)
	}
	if c.Loss != 0 && !slices.Contains(cp.Losses, c.Loss) {
		return fmt.Errorf("%w: loss %v", ErrUnsupported, c.Loss)
	}
	return cp.supportsModel(c.Model, c.In)
}

func (cp Capabilities) supportsModel(spec string, in int) error {
	s, err := sequentialOf(spec, in)
	if err != nil {
		return err
	}
	if s.InputShape != nil && !cp.Conv {
		return fmt.Errorf("%w: convolutions (model %s)", ErrUnsupported, spec)
	}
	return nil
}

// ErrorKind classifies an engine error.
type ErrorKind int

const (
	// Crashed: the process exited or closed its output (it is restarted
	// for the next case).
	Crashed ErrorKind = iota + 1
	// TimedOut: no answer within the per-case timeout (the process is
	// stopped and restarted).
	TimedOut
	// Malformed: an answer that is not the protocol's (bad JSON, a bad NPZ,
	// non-finite values).
	Malformed
	// WrongShape: a well-formed answer for another case (shapes, model,
	// records, θ₀ or X not the ones sent).
	WrongShape
	// Refused: the engine answered a typed error (it cannot run the case,
	// or the request was bad).
	Refused
	// RunFailed: the engine ran the case and reports that the run failed
	// (a non-finite value): the run's outcome, as train.Run's error.
	RunFailed
)

var kindNames = [...]string{"", "crashed", "timed out", "malformed answer", "wrong shape", "refused", "run failed"}

func (k ErrorKind) String() string { return enumName(kindNames[:], int(k), "ErrorKind") }

// CaseError is an engine's failure on one case, in one line naming the
// case.
type CaseError struct {
	Engine, Case string
	Kind         ErrorKind
	Err          error
}

func (e *CaseError) Error() string {
	return fmt.Sprintf("engine %s: case %s: %v: %v", e.Engine, e.Case, e.Kind, e.Err)
}

func (e *CaseError) Unwrap() error { return e.Err }

// IsEngineError reports an error of the link or of the engine's answer
// (crash, timeout, malformed, wrong shape, refusal): counted as an engine
// error, never as a verdict on the claim. A RunFailed is not one: the run
// itself failed, as train.Run can.
func IsEngineError(err error) bool {
	var ce *CaseError
	return errors.As(err, &ce) && ce.Kind != RunFailed
}
