package engines

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxLine bounds one line of the protocol (an inline trajectory or an
// eval answer): 1 GiB, check.MaxArrayBytes.
const MaxLine = 1 << 30

// Serve answers the protocol on r and w with e: the engine side, for an
// adapter written in Go (and the fake engine of the tests). It returns at
// EOF, on a bye, or when ctx is done.
func Serve(ctx context.Context, r io.Reader, w io.Writer, e Engine) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), MaxLine)
	enc := json.NewEncoder(w)
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return err
		}
		a := Respond(ctx, sc.Bytes(), e)
		if a == nil {
			return nil
		}
		if err := enc.Encode(a); err != nil {
			return err
		}
	}
	return sc.Err()
}

// Respond answers one line of the protocol (nil for a bye).
func Respond(ctx context.Context, line []byte, e Engine) any {
	var head struct {
		Type string `json:"type"`
		ID   int    `json:"id"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return &Answer{Type: TypeError, Kind: "bad-request", Message: oneLine(err)}
	}
	fail := func(kind string, err error) *Answer {
		return &Answer{Type: TypeError, ID: head.ID, Kind: kind, Message: oneLine(err)}
	}
	switch head.Type {
	case TypeBye:
		return nil
	case TypeHello:
		return &Hello{Type: TypeHello, Capabilities: e.Capabilities()}
	case TypeTrain, TypeEval:
	default:
		return fail("bad-request", fmt.Errorf("unknown message type %q", head.Type))
	}
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		return fail("bad-request", err)
	}
	if req.Type == TypeEval {
		c, seq, err := req.EvalCase()
		if err != nil {
			return fail("bad-request", err)
		}
		if err := e.Capabilities().SupportsEval(c); err != nil {
			return fail("unsupported", err)
		}
		ev, err := e.Eval(ctx, c)
		if err != nil {
			return fail("failed", err)
		}
		a := &Answer{Type: TypeEval, ID: req.ID, Phi: ev.Phi}
		p := len(c.Theta)
		for r := 0; r*p < len(ev.Grad); r++ {
			a.Grad = append(a.Grad, seq.ThetaOut(ev.Grad[r*p:(r+1)*p])...)
		}
		if c.Loss != 0 {
			ll := ev.LogLoss
			a.LogLoss, a.Dir = &ll, seq.ThetaOut(ev.Dir)
		}
		return a
	}
	c, seq, err := req.TrainCase()
	if err != nil {
		return fail("bad-request", err)
	}
	if err := e.Capabilities().Supports(c); err != nil {
		return fail("unsupported", err)
	}
	tr, runErr := e.Train(ctx, c)
	if tr == nil || len(tr.Records) == 0 {
		return fail("failed", errors.Join(runErr, errors.New("no records")))
	}
	a, err := TrajectoryAnswer(req.ID, tr, c, seq, req.Out)
	if err != nil {
		return fail("failed", err)
	}
	if runErr != nil {
		a.RunError = oneLine(runErr)
	}
	return a
}

// oneLine returns err's message on one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
