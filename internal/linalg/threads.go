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
		j.work(s)
		j.wg.Done()
	}
}
