// Package fakeengine is an engine written in Go that speaks the protocol
// of package engines and answers correctly (our engine behind
// engines.Serve) or misbehaves on chosen cases: the tests of the client
// drive it, so that CI needs no Python.
package fakeengine

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/implicitbias/implicitbias/engines"
)

// Behaviour is what the fake does on the cases it misbehaves on.
type Behaviour int

const (
	Correct     Behaviour = iota
	Garbage               // a line that is not JSON
	BadNPZ                // names a file of bytes that are no NPZ
	Hang                  // never answers
	Die                   // writes half an answer and exits with status 3
	WrongShape            // θ of the wrong length (inline), or a record dropped
	WrongTheta0           // record 0 is not θ₀
	Refuse                // a typed error answer (bad-request)
)

var behaviours = map[string]Behaviour{"correct": Correct, "garbage": Garbage, "badnpz": BadNPZ, "hang": Hang,
	"die": Die, "shapes": WrongShape, "theta0": WrongTheta0, "refuse": Refuse}

// Main runs the fake on stdin and stdout with args: -behave NAME (correct,
// garbage, badnpz, hang, die, shapes, theta0, refuse) on the cases whose
// name contains -on (all if empty); the others are answered correctly.
// It returns the exit status.
func Main(args []string, stdin io.Reader, stdout io.Writer) int {
	fs := flag.NewFlagSet("fakeengine", flag.ContinueOnError)
	behave := fs.String("behave", "correct", "what to do on the chosen cases")
	on := fs.String("on", "", "misbehave on the cases whose name contains this")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	b, ok := behaviours[*behave]
	if !ok {
		fmt.Fprintf(os.Stderr, "fakeengine: unknown behaviour %q\n", *behave)
		return 2
	}
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 0, 1<<16), engines.MaxLine)
	enc := json.NewEncoder(stdout)
	ctx := context.Background()
	local := engines.Local{}
	for sc.Scan() {
		line := sc.Bytes()
		var req engines.Request
		_ = json.Unmarshal(line, &req)
		mis := b != Correct && (req.Type == engines.TypeTrain || req.Type == engines.TypeEval) && strings.Contains(req.Case, *on)
		if !mis {
			a := engines.Respond(ctx, line, local)
			if a == nil {
				return 0
			}
			if err := enc.Encode(a); err != nil {
				return 1
			}
			continue
		}
		switch b {
		case Garbage:
			fmt.Fprintln(stdout, "{this is not json")
		case Hang:
			time.Sleep(time.Hour)
		case Die:
			fmt.Fprint(stdout, `{"type":"trajectory","id":`)
			fmt.Fprintln(os.Stderr, "fakeengine: dying mid-answer as asked")
			return 3
		case Refuse:
			enc.Encode(&engines.Answer{Type: engines.TypeError, ID: req.ID, Kind: "bad-request", Message: "the fake refuses this case"})
		case BadNPZ:
			os.WriteFile(req.Out, []byte("PK\x03\x04 not really a zip"), 0o644)
			enc.Encode(&engines.Answer{Type: engines.TypeTrajectory, ID: req.ID, NPZ: req.Out})
		case WrongShape, WrongTheta0:
			req.Out = "" // answer inline, then break it
			a, _ := engines.Respond(ctx, mustJSON(req), local).(*engines.Answer)
			switch {
			case a == nil:
			case a.Inline != nil && b == WrongShape:
				last := len(a.Inline.Theta) - 1
				a.Inline.Theta[last] = a.Inline.Theta[last][1:]
			case a.Inline != nil:
				a.Inline.Theta[0][0] += 1e-3
			case len(a.Grad) > 0:
				a.Grad = a.Grad[1:]
			}
			enc.Encode(a)
		}
	}
	return 0
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// ServeIfAsked runs the fake on stdin and stdout and exits when the
// process was started as Command starts it: a test binary's TestMain calls
// it first, so that the binary is its own fake engine.
func ServeIfAsked() {
	if len(os.Args) > 1 && os.Args[1] == "fakeengine" {
		os.Exit(Main(os.Args[2:], os.Stdin, os.Stdout))
	}
}

// Command is the command line that starts this binary as the fake with
// args (ServeIfAsked).
func Command(args ...string) string {
	return strings.Join(append([]string{os.Args[0], "fakeengine"}, args...), " ")
}
