package pyfork

import "sync"

// Shared is a Server started on first use, for the tests of one binary to
// share: a package-level variable in a _test.go file, Get in each test
// that runs Python, Close at the end of TestMain.
type Shared struct {
	// Python is the interpreter's path, Modules what it imports, Env
	// what it adds to this process's environment (Start).
	Python  string
	Modules []string
	Env     []string

	mu      sync.Mutex
	started bool
	s       *Server
	err     error
}

// Get starts the server on the first call and returns it (or the error
// of that start) on every call.
func (sh *Shared) Get() (*Server, error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if !sh.started {
		sh.started = true
		sh.s, sh.err = Start(sh.Python, sh.Env, sh.Modules...)
	}
	return sh.s, sh.err
}

// Close closes the server if it was started.
func (sh *Shared) Close() {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.s != nil {
		sh.s.Close()
	}
}
