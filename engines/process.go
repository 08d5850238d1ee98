package engines

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/implicitbias/implicitbias/train"
)

// Options configure a Process.
type Options struct {
	// Timeout bounds one case (0: 10 minutes); a case past it is a
	// TimedOut error and the process is restarted.
	Timeout time.Duration
	// StartTimeout bounds the start and the handshake (0: 2 minutes:
	// importing torch takes seconds).
	StartTimeout time.Duration
	// Dir is where the engine writes its NPZ answers ("": a temporary
	// directory, removed by Close).
	Dir string
	// Inline asks for trajectories inline in the answer (small cases).
	Inline bool
	// MaxLine bounds one answer line (0: MaxLine, 1 GiB); a longer one is
	// a malformed answer, discarded without being held in memory.
	MaxLine int
	// Stderr receives the engine's stderr (nil: only its last lines are
	// kept, for the error of a crash).
	Stderr io.Writer
}

// Counts tallies what a Process saw. EngineErrors are never verdicts.
type Counts struct {
	Cases, Answered, EngineErrors, RunFailed, Unsupported, Restarts int
}

// Process is an engine in another process, speaking the line protocol on
// its stdin and stdout (docs/engines.md). It runs one case at a time; a
// crashed or hung engine is restarted for the next case.
type Process struct {
	argv []string
	opts Options
	name string

	mu      sync.Mutex
	ch      *child
	caps    Capabilities
	id      int
	counts  Counts
	dir     string
	ownsDir bool
}

// Start starts command (split at white space: a program and its
// arguments, no shell) and does the handshake. ctx bounds the start only;
// each call takes its own.
func Start(ctx context.Context, command string, opts Options) (*Process, error) {
	argv := strings.Fields(command)
	if len(argv) == 0 {
		return nil, errors.New("engines: empty engine command")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Minute
	}
	if opts.MaxLine <= 0 {
		opts.MaxLine = MaxLine
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 2 * time.Minute
	}
	p := &Process{argv: argv, opts: opts, name: strings.Join(argv, " "), dir: opts.Dir}
	if p.dir == "" {
		d, err := os.MkdirTemp("", "implicitbias-engine-")
		if err != nil {
			return nil, err
		}
		p.dir, p.ownsDir = d, true
	}
	if err := p.start(ctx); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// Name is the engine's command line.
func (p *Process) Name() string { return p.name }

// Capabilities are the engine's answer to the handshake.
func (p *Process) Capabilities() Capabilities { return p.caps }

// Counts returns the tally so far.
func (p *Process) Counts() Counts {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts
}

// child is one run of the engine's process.
type child struct {
	cmd   *exec.Cmd
	stdin *os.File
	lines chan []byte // closed when stdout ends
	tail  *tail
	// exit is the process's exit and partial the length of an unfinished
	// last line, valid once lines is closed.
	exit    error
	partial int
}

func (p *Process) start(ctx context.Context) error {
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	ownGroup(cmd)
	// A pipe of our own, so that a write to an engine that stopped reading
	// has a deadline (cmd.StdinPipe's has none).
	rd, stdin, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stdin = rd
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	ch := &child{cmd: cmd, stdin: stdin, lines: make(chan []byte, 1), tail: &tail{}}
	cmd.Stderr = ch.tail
	if p.opts.Stderr != nil {
		cmd.Stderr = io.MultiWriter(ch.tail, p.opts.Stderr)
	}
	err = cmd.Start()
	rd.Close()
	if err != nil {
		stdin.Close()
		return fmt.Errorf("engine %s: %v", p.name, err)
	}
	go func() {
		// Lines end in a newline: what an engine wrote before it died
		// without one is an unfinished answer, not an answer.
		br := bufio.NewReaderSize(stdout, 1<<16)
		for {
			line, over, err := readLine(br, p.opts.MaxLine)
			if err != nil {
				ch.partial = len(line)
				break
			}
			if over {
				ch.lines <- nil // a line longer than MaxLine: malformed
				continue
			}
			ch.lines <- line[:len(line)-1]
		}
		ch.exit = cmd.Wait()
		close(ch.lines)
	}()
	p.ch = ch
	ctx, cancel := context.WithTimeout(ctx, p.opts.StartTimeout)
	defer cancel()
	line, err := p.exchange(ctx, &Hello{Type: TypeHello, Capabilities: Capabilities{Protocol: Protocol}}, -1)
	if err != nil {
		return fmt.Errorf("engine %s: handshake: %v", p.name, err)
	}
	var h Hello
	if err := json.Unmarshal(line, &h); err != nil || h.Type != TypeHello {
		p.stop()
		return fmt.Errorf("engine %s: handshake: want a hello, got %.200s", p.name, line)
	}
	if h.Protocol != Protocol {
		p.stop()
		return fmt.Errorf("engine %s: speaks protocol %d, the suite %d", p.name, h.Protocol, Protocol)
	}
	p.caps = h.Capabilities
	return nil
}

// exchange sends msg and returns the first line that answers id (-1: the
// handshake's, which has none). A timeout or cancellation stops the
// process; its end is an error that quotes its last stderr line.
func (p *Process) exchange(ctx context.Context, msg any, id int) ([]byte, error) {
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	ch := p.ch
	if d, ok := ctx.Deadline(); ok {
		ch.stdin.SetWriteDeadline(d)
	}
	if _, err := ch.stdin.Write(append(b, '\n')); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			p.stop()
			return nil, &answerError{TimedOut, fmt.Errorf("the engine did not read the request within %v (stopped and restarted)", p.opts.Timeout)}
		}
		p.stop()
		return nil, &answerError{Crashed, fmt.Errorf("writing the request: %v%s", err, ch.tail.last())}
	}
	for {
		select {
		case line, ok := <-ch.lines:
			if !ok {
				p.ch = nil
				unfinished := ""
				if ch.partial > 0 {
					unfinished = fmt.Sprintf(", leaving %d bytes of an unfinished answer", ch.partial)
				}
				return nil, &answerError{Crashed, fmt.Errorf("the engine exited (%v) before answering%s%s", ch.exit, unfinished, ch.tail.last())}
			}
			if line == nil {
				return nil, malformed("an answer line longer than %d bytes", p.opts.MaxLine)
			}
			if id >= 0 {
				var head struct {
					ID int `json:"id"`
				}
				if json.Unmarshal(line, &head) == nil && head.ID != id && head.ID < id && head.ID > 0 {
					continue // a late answer to an earlier case
				}
			}
			return line, nil
		case <-ctx.Done():
			p.stop()
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, &answerError{TimedOut, fmt.Errorf("no answer within %v (the engine is stopped and restarted)", p.opts.Timeout)}
			}
			return nil, ctx.Err()
		}
	}
}

// stop kills the child's process group and waits for its output to end.
func (p *Process) stop() {
	ch := p.ch
	if ch == nil {
		return
	}
	p.ch = nil
	ch.stdin.Close()
	killGroup(ch.cmd)
	for range ch.lines {
	}
}

// call runs one request: the child (re)started if needed, the answer read
// within the per-case timeout. It returns the answer or a CaseError.
func (p *Process) call(ctx context.Context, name string, build func(id int, out string) *Request) (*Answer, string, error) {
	p.counts.Cases++
	if p.ch == nil {
		p.counts.Restarts++
		sctx, cancel := context.WithCancel(ctx)
		err := p.start(sctx)
		cancel()
		if err != nil {
			return nil, "", p.caseErr(name, &answerError{Crashed, fmt.Errorf("restart: %v", err)})
		}
	}
	p.id++
	out := ""
	if !p.opts.Inline {
		out = filepath.Join(p.dir, fmt.Sprintf("case-%d.npz", p.id))
	}
	cctx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	line, err := p.exchange(cctx, build(p.id, out), p.id)
	if err != nil {
		return nil, out, p.caseErr(name, err)
	}
	var a Answer
	if err := json.Unmarshal(line, &a); err != nil {
		return nil, out, p.caseErr(name, malformed("not a JSON answer (%v): %.120q", err, line))
	}
	if a.ID != p.id {
		return nil, out, p.caseErr(name, malformed("answer to request %d, want %d", a.ID, p.id))
	}
	if a.Type == TypeError {
		if a.Kind == "unsupported" {
			p.counts.Unsupported++
			return nil, out, fmt.Errorf("engine %s: case %s: %w: %s", p.name, name, ErrUnsupported, a.Message)
		}
		if a.Kind == "failed" {
			return nil, out, p.caseErr(name, &answerError{RunFailed, errors.New(a.Message)})
		}
		return nil, out, p.caseErr(name, &answerError{Refused, fmt.Errorf("%s: %s", a.Kind, a.Message)})
	}
	return &a, out, nil
}

// caseErr wraps err as the case's CaseError and counts it.
func (p *Process) caseErr(name string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	kind := Malformed
	var ae *answerError
	if errors.As(err, &ae) {
		kind, err = ae.kind, ae.err
	}
	if kind == RunFailed {
		p.counts.RunFailed++
	} else {
		p.counts.EngineErrors++
	}
	return &CaseError{Engine: p.name, Case: name, Kind: kind, Err: err}
}

// unsupported counts a case beyond the capabilities and names it.
func (p *Process) unsupported(name string, err error) error {
	p.mu.Lock()
	p.counts.Unsupported++
	p.mu.Unlock()
	return fmt.Errorf("engine %s: case %s: %w", p.name, name, err)
}

// Train sends the case and reads the trajectory (Engine). A case beyond
// the engine's capabilities is ErrUnsupported without a request; every
// other failure is a CaseError naming the case.
func (p *Process) Train(ctx context.Context, c *Case) (*train.Trajectory, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := p.caps.Supports(c); err != nil {
		return nil, p.unsupported(c.Name, err)
	}
	seq, err := sequentialOf(c.Model, c.In)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	a, out, err := p.call(ctx, c.Name, func(id int, out string) *Request { return TrainRequest(id, c, seq, out) })
	if out != "" {
		defer os.Remove(out)
	}
	if err != nil {
		return nil, err
	}
	if a.Type != TypeTrajectory {
		return nil, p.caseErr(c.Name, malformed("answer of type %q to a train request", a.Type))
	}
	tr, err := readTrajectory(c, a)
	if err != nil {
		var ae *answerError
		if errors.As(err, &ae) && ae.kind == RunFailed && tr != nil {
			return tr, p.caseErr(c.Name, err)
		}
		return nil, p.caseErr(c.Name, err)
	}
	p.counts.Answered++
	return tr, nil
}

// Eval sends an evaluation (Engine).
func (p *Process) Eval(ctx context.Context, c *EvalCase) (*Evaluation, error) {
	if err := p.caps.SupportsEval(c); err != nil {
		return nil, p.unsupported(c.Name, err)
	}
	seq, err := sequentialOf(c.Model, c.In)
	if err != nil {
		return nil, err
	}
	if _, err := checkInputs(c.Name, c.Model, c.In, c.X, c.N, c.Y, c.Theta); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	a, _, err := p.call(ctx, c.Name, func(id int, _ string) *Request { return EvalRequest(id, c, seq) })
	if err != nil {
		return nil, err
	}
	if a.Type != TypeEval {
		return nil, p.caseErr(c.Name, malformed("answer of type %q to an eval request", a.Type))
	}
	e, err := readEvaluation(c, a)
	if err != nil {
		return nil, p.caseErr(c.Name, err)
	}
	p.counts.Answered++
	return e, nil
}

// Close says bye, waits a moment for the engine to exit, stops it, and
// removes the temporary directory.
func (p *Process) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ch := p.ch; ch != nil {
		b, _ := json.Marshal(map[string]string{"type": TypeBye})
		ch.stdin.Write(append(b, '\n'))
		ch.stdin.Close()
		select {
		case <-drained(ch.lines):
			p.ch = nil
		case <-time.After(5 * time.Second):
			p.stop()
		}
	}
	if p.ownsDir {
		return os.RemoveAll(p.dir)
	}
	return nil
}

// readLine reads one line with its newline, holding at most limit bytes:
// over reports a longer line, whose bytes are read and dropped.
func readLine(br *bufio.Reader, limit int) (line []byte, over bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !over && len(line)+len(chunk) > limit+1 {
			over, line = true, nil
		}
		if !over {
			line = append(line, chunk...)
		}
		if err != bufio.ErrBufferFull {
			return line, over, err
		}
	}
}

// drained returns a channel closed once lines is.
func drained(lines chan []byte) chan struct{} {
	done := make(chan struct{})
	go func() {
		for range lines {
		}
		close(done)
	}()
	return done
}

// tail keeps the last bytes written to it (the engine's stderr).
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > 4096 {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-4096:]...)
	}
	return len(b), nil
}

// last returns "; stderr: LINE" with the last non-empty stderr line, or "".
func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return "; stderr: " + l
	}
	return ""
}
