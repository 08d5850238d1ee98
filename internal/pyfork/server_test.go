//go:build unix

package pyfork_test

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/implicitbias/implicitbias/internal/pyfork"
)

func TestMain(m *testing.M) {
	pyfork.RelayIfAsked()
	os.Exit(m.Run())
}

func server(t *testing.T) *pyfork.Server {
	t.Helper()
	s, err := pyfork.Start("/usr/bin/python3", []string{"PYFORK_TEST=set"}, "json", "no_such_module_pyfork")
	if err != nil {
		t.Skipf("Debian's python3 does not start: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Missing("json"); err != nil {
		t.Fatal(err)
	}
	if err := s.Missing("json", "no_such_module_pyfork"); err == nil || !strings.Contains(err.Error(), "no_such_module_pyfork: ModuleNotFoundError") {
		t.Fatalf("Missing: %v", err)
	}
	return s
}

// TestOutput: a script run by Output sees what `python3 SCRIPT ARGS` in
// its folder gives it, its stdout and stderr come back, and its exit
// status is an ExitError (sys.exit with a message: status 1, the message
// on stderr).
func TestOutput(t *testing.T) {
	s := server(t)
	for _, tc := range []struct {
		arg  string
		code int
		want string
	}{
		{"0", 0, "['0'] testdata testdata __main__ True set\nto stderr\n\n"},
		{"3", 3, "['3'] testdata testdata __main__ True set\nto stderr\n\n"},
		{"message", 1, "['message'] testdata testdata __main__ True set\nto stderr\n\na message\n"},
	} {
		b, err := s.Output("testdata", "echo.py", tc.arg)
		var ee *pyfork.ExitError
		if tc.code == 0 && err != nil || tc.code != 0 && (!errors.As(err, &ee) || ee.Code != tc.code) {
			t.Errorf("%s: %v, want status %d", tc.arg, err, tc.code)
		}
		if string(b) != tc.want {
			t.Errorf("%s: output %q, want %q", tc.arg, b, tc.want)
		}
	}
}

// TestCommand: the relay command line runs the script on the relay's
// standard streams and exits with its status.
func TestCommand(t *testing.T) {
	s := server(t)
	args := strings.Fields(s.Command("echo.py", "4"))
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = "testdata"
	cmd.Stdin = strings.NewReader("from stdin\n")
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 4 {
		t.Errorf("relay: %v, want exit status 4", err)
	}
	if want := "['4'] testdata testdata __main__ True set\nto stderr\nfrom stdin\n"; string(b) != want {
		t.Errorf("relay output %q, want %q", b, want)
	}
}

// TestServesAfterBadRequest: a requester that sends no files, or that
// goes away, does not stop the server.
func TestServesAfterBadRequest(t *testing.T) {
	s := server(t)
	sock := strings.Fields(s.Command("x"))[2]
	for _, msg := range []string{"not json\n", `{"dir": "/", "argv": ["x"]}` + "\n", ""} {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(msg))
		c.Close()
	}
	if b, err := s.Output("testdata", "echo.py", "0"); err != nil {
		t.Fatalf("after bad requests: %v\n%s", err, b)
	}
}
