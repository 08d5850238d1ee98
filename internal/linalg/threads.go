package linalg

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// maxThreads caps the goroutines one product uses (0: GOMAXPROCS).
var maxThreads atomic.Int64

// SetThreads caps the goroutines a large product uses at n (n ≤ 0: as many
// as GOMAXPROCS, the default) and returns the previous cap. It changes the
// speed, never the result (see the package comment).
func SetThreads(n int) int {
	return int(maxThreads.Swap(int64(max(n, 0))))
}

// threads returns how many goroutines a large product may use now.
func threads() int {
	t := runtime.GOMAXPROCS(0)
	if c := int(maxThreads.Load()); c > 0 && c < t {
		t = c
	}
	return t
}

// parallelProducts counts the products that ran on more than one
// goroutine (see ParallelProducts).
var parallelProducts atomic.Int64

// ParallelProducts returns how many products have run on more than one
// goroutine so far: a diagnostic, for tests that must exercise the split.
func ParallelProducts() int64 { return parallelProducts.Load() }

// counter hands out units of work.
type counter struct{ v atomic.Int64 }

func (c *counter) set(v int) { c.v.Store(int64(v)) }
func (c *counter) add() int  { return int(c.v.Add(1)) }

// workers is the pool of goroutines that help the calling goroutine with
// large products. They start on first use and then wait on a channel; a job
// is sent by pointer, so dispatching allocates nothing.
var workers pool

type pool struct {
	mu      sync.Mutex
	started int
	jobs    chan *job
}

func (p *pool) send(j *job) {
	p.mu.Lock()
	if p.jobs == nil {
		p.jobs = make(chan *job, 64)
	}
	// One worker per send that may be outstanding: enough never to block
	// on a busy pool for long.
	if p.started < runtime.GOMAXPROCS(0)-1 || p.started == 0 {
		p.started++
		go worker(p.jobs)
	}
	ch := p.jobs
	p.mu.Unlock()
	ch <- j
}

func worker(jobs <-chan *job) {
	s := new(scratch)
	for j := range jobs {
		if j.crew.join() {
			j.work(s)
			j.crew.leave()
		}
	}
}

// A crew is the goroutines working on one job: the caller opens it, helpers
// join while it is open and leave when no unit is left, and the caller,
// done with its own share, closes it and waits for the helpers still inside.
// A helper that arrives after the close (late, or with a stale pointer to a
// reused job) does nothing. state holds the closed flag and the number of
// helpers inside.
type crew struct {
	state atomic.Int64
	done  chan struct{} // the last helper out after the close signals here
}

const crewClosed = 1 << 40

func (c *crew) open() {
	if c.done == nil {
		c.done = make(chan struct{}, 1)
	}
	c.state.Store(0)
}

// join enters the crew unless it is closed.
func (c *crew) join() bool {
	for {
		s := c.state.Load()
		if s&crewClosed != 0 {
			return false
		}
		if c.state.CompareAndSwap(s, s+1) {
			return true
		}
	}
}

func (c *crew) leave() {
	if c.state.Add(-1) == crewClosed {
		c.done <- struct{}{}
	}
}

// close shuts the crew and waits until the helpers inside have left.
func (c *crew) close() {
	if c.state.Add(crewClosed) != crewClosed {
		<-c.done
	}
}
