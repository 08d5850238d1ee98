package check

import (
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// forRecords checks the records idx with check, on GOMAXPROCS workers,
// and returns the verdicts in idx's order (eachRecord).
func (r *recorded) forRecords(idx []int, check func(r *recorded, i int) theorems.Verdict) []theorems.Verdict {
	return eachRecord(r, idx, check)
}

// eachRecord computes f at the records idx on GOMAXPROCS workers and
// returns the results in idx's order. The records are independent and each
// result is computed from its record alone, so the results are the same
// bits whatever the number of workers; only the objective, which keeps its
// workspace and cache between calls, is not shared: each worker gets its
// own (worker). Workers that cannot be built (not reached: each objective
// is built as r's was) leave the records to r alone.
func eachRecord[T any](r *recorded, idx []int, f func(r *recorded, i int) T) []T {
	out := make([]T, len(idx))
	r.progress.records(len(idx))
	var ws []*recorded
	workers := min(runtime.GOMAXPROCS(0), len(idx))
	if r.obj.Data.N*r.obj.Model.NumParams() > concurrentClaimsSize {
		// A worker's objective holds a full-batch workspace (a CNN on
		// 1 000 images: hundreds of MB): one at a time within the memory
		// a large run may take.
		workers = 1
	}
	for range workers {
		w, err := r.worker()
		if err != nil {
			ws = nil
			break
		}
		ws = append(ws, w)
	}
	return runOn(r, ws, out, idx, f)
}

// eachPoint is eachRecord for checks that read the model, the data and θ
// but never the objective (LL-B3, LL-B3m: each homogeneity check takes a
// models.Grader with a one-sample workspace of its own): GOMAXPROCS
// goroutines share r whatever the run's size, no full-batch workspace
// being copied (a CNN on 1 000 images gets both cores).
func eachPoint[T any](r *recorded, idx []int, f func(r *recorded, i int) T) []T {
	out := make([]T, len(idx))
	r.progress.records(len(idx))
	ws := make([]*recorded, min(runtime.GOMAXPROCS(0), len(idx)))
	for i := range ws {
		ws[i] = r
	}
	return runOn(r, ws, out, idx, f)
}

// runOn computes out[k] = f(w, idx[k]) on one goroutine per worker w, the
// records taken in turn; in order on r when there is at most one worker.
func runOn[T any](r *recorded, ws []*recorded, out []T, idx []int, f func(r *recorded, i int) T) []T {
	if len(ws) <= 1 {
		for k, i := range idx {
			out[k] = f(r, i)
			r.progress.add(1)
		}
		return out
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= len(idx) {
					return
				}
				out[k] = f(w, idx[k])
				r.progress.add(1)
			}
		}()
	}
	wg.Wait()
	return out
}

// worker returns a copy of r with an objective of its own (the same model,
// loss, data and weights): train.Objective is not safe for concurrent use.
func (r *recorded) worker() (*recorded, error) {
	w := *r
	obj, err := train.NewObjective(r.obj.Model, r.obj.Loss, r.obj.Data)
	if err != nil {
		return nil, err
	}
	obj.Reg = r.obj.Reg
	if r.fixedWeights != nil {
		if err := obj.SetWeights(r.fixedWeights); err != nil {
			return nil, err
		}
	}
	w.obj = obj
	w.measured = nil
	return &w, nil
}

// progress writes one line, rewritten in place, of how far check has come:
// the claim and the records done (Options.Progress; nil writes nothing).
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	claim string
	done  int
	total int
}

// start begins a claim with total records to check.
func (p *progress) start(claim string, total int) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.claim, p.done, p.total = claim, 0, total
	p.print()
}

// records starts counting total records of the current claim.
func (p *progress) records(total int) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total = 0, total
	p.print()
}

// add counts k more records done.
func (p *progress) add(k int) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += k
	p.print()
}

// end clears the line.
func (p *progress) end() {
	if p == nil || p.w == nil {
		return
	}
	fmt.Fprint(p.w, "\r\033[K")
}

func (p *progress) print() {
	if p.total > 0 {
		fmt.Fprintf(p.w, "\r\033[Kcheck: %s %d/%d", p.claim, p.done, p.total)
	} else {
		fmt.Fprintf(p.w, "\r\033[Kcheck: %s", p.claim)
	}
}
