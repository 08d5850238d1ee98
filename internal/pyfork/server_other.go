//go:build !unix

package pyfork

import (
	"errors"
	"os"
)

// Server is unavailable here: it passes file descriptors over a Unix
// socket.
type Server struct{}

// ErrUnsupported is Start's error where there are no Unix sockets.
var ErrUnsupported = errors.New("pyfork: needs Unix file-descriptor passing")

func Start(string, []string, ...string) (*Server, error) { return nil, ErrUnsupported }
func (*Server) Missing(...string) error                  { return ErrUnsupported }
func (*Server) Run(string, *os.File, *os.File, *os.File, ...string) (int, error) {
	return 0, ErrUnsupported
}
func (*Server) Output(string, ...string) ([]byte, error) { return nil, ErrUnsupported }
func (*Server) Command(...string) string                 { return "" }
func RelayIfAsked()                                      {}
func (*Server) Close() error                             { return nil }
