//go:build unix

package pyfork

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

//go:embed forkserver.py
var forkserver []byte

// Server is a Python interpreter that forks a child per script it runs.
type Server struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	dir   string
	sock  string
	// imported is each module asked for: "" where it imported, else why
	// not.
	imported map[string]string
	once     sync.Once
}

// Start starts python (a path) importing modules, with env (KEY=value)
// added to this process's environment. A module that does not import is
// no error here: Missing says which.
func Start(python string, env []string, modules ...string) (*Server, error) {
	dir, err := os.MkdirTemp("", "pyfork")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, sock: filepath.Join(dir, "s")}
	script := filepath.Join(dir, "forkserver.py")
	if err := os.WriteFile(script, forkserver, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.cmd = exec.Command(python, append([]string{script, s.sock}, modules...)...)
	s.cmd.Stderr = os.Stderr
	s.cmd.Env = append(os.Environ(), env...)
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pyfork: %v", err)
	}
	line, err := bufio.NewReader(out).ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &s.imported)
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("pyfork: %s did not start: %v", python, err)
	}
	return s, nil
}

// Missing returns nil when every module imported, else an error naming
// each that did not and why.
func (s *Server) Missing(modules ...string) error {
	var why []string
	for _, m := range modules {
		e, ok := s.imported[m]
		if !ok {
			e = "not imported by the server"
		}
		if e != "" {
			why = append(why, m+": "+e)
		}
	}
	if why == nil {
		return nil
	}
	return errors.New(strings.Join(why, "; "))
}

// request is forkserver.py's: the script's directory, its argv (the
// script first) and the process group it joins (0: none).
type request struct {
	Dir  string   `json:"dir"`
	Argv []string `json:"argv"`
	Pgid int      `json:"pgid,omitempty"`
}

// Run runs argv (a script and its arguments) in dir (relative to this
// process's working directory) on the files as stdin, stdout and stderr,
// and returns its exit status.
func (s *Server) Run(dir string, stdin, stdout, stderr *os.File, argv ...string) (int, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return 0, err
	}
	return run(s.sock, request{Dir: dir, Argv: argv}, stdin, stdout, stderr)
}

// Output runs argv in dir with an empty stdin and returns its stdout and
// stderr together, as exec.Cmd.CombinedOutput: err is an *ExitError when
// the script ended with another status than 0.
func (s *Server) Output(dir string, argv ...string) ([]byte, error) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		out <- b
	}()
	code, err := s.Run(dir, null, w, w, argv...)
	w.Close()
	b := <-out
	if err == nil && code != 0 {
		err = &ExitError{Argv: argv, Code: code}
	}
	return b, err
}

// ExitError is a script's end with a status other than 0.
type ExitError struct {
	Argv []string
	Code int
}

func (e *ExitError) Error() string {
	return fmt.Sprintf("pyfork: %s: exit status %d", strings.Join(e.Argv, " "), e.Code)
}

// run sends the request with the three files and waits for the status.
func run(sock string, req request, stdin, stdout, stderr *os.File) (int, error) {
	conn, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		return 0, fmt.Errorf("pyfork: %v", err)
	}
	defer conn.Close()
	b, err := json.Marshal(req)
	if err != nil {
		return 0, err
	}
	rights := syscall.UnixRights(int(stdin.Fd()), int(stdout.Fd()), int(stderr.Fd()))
	if _, _, err := conn.WriteMsgUnix(append(b, '\n'), rights, nil); err != nil {
		return 0, fmt.Errorf("pyfork: %v", err)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("pyfork: %s ended without a status: %v", req.Argv[0], err)
	}
	code, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || code < 0 {
		return 0, fmt.Errorf("pyfork: bad status %q for %s", line, req.Argv[0])
	}
	return code, nil
}

// relayArg is os.Args[1] of a relay (Command, RelayIfAsked).
const relayArg = "pyfork-relay"

// Command is a command line (fields split at white space) that runs argv
// forked from s on its own standard streams, in its working directory:
// this binary as a relay (RelayIfAsked), which exits with the script's
// status. The script joins the relay's process group, so that killing the
// group kills it.
func (s *Server) Command(argv ...string) string {
	return strings.Join(append([]string{os.Args[0], relayArg, s.sock}, argv...), " ")
}

// RelayIfAsked does Command's relay and exits when this process was
// started by it; a test binary's TestMain calls it first.
func RelayIfAsked() {
	if len(os.Args) < 4 || os.Args[1] != relayArg {
		return
	}
	dir, err := os.Getwd()
	if err == nil {
		var code int
		code, err = run(os.Args[2], request{Dir: dir, Argv: os.Args[3:], Pgid: syscall.Getpgrp()}, os.Stdin, os.Stdout, os.Stderr)
		if err == nil {
			os.Exit(code)
		}
	}
	fmt.Fprintln(os.Stderr, err)
	os.Exit(2)
}

// Close stops the server and waits for it, which waits for the scripts it
// forked (their CPU time is then in this process's children's, as that of
// processes it started itself), and removes its files.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.stdin.Close()
		s.cmd.Wait()
		os.RemoveAll(s.dir)
	})
	return nil
}
