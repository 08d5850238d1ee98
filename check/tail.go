package check

import (
	"sync"

	"github.com/implicitbias/implicitbias/theorems/kkt"
	"github.com/implicitbias/implicitbias/train"
)

// LL-4.4 and LL-A9 read the same windows after t₀ (kkt.Tail: the KKT
// measurement of each window, an SVM on the P×N gradient matrix, is their
// whole cost). On a run whose steps are gradient descent both get the
// windows of the same thinned records, so they are measured once, the
// windows spread over the cores (eachRecord), and shared; a run whose
// premise failed gets its claims measured anyway on the run read as an
// unknown step rule, once per claim (no sharing: a rare path).

// tailShare holds the measured tail of the run, shared by the worker
// copies of a recorded run (the pointer is copied, the tail measured once).
type tailShare struct {
	once sync.Once
	tail *kkt.Tail
}

// tailOf returns the measured tail of tr, the thinned records of the run.
func (r *recorded) tailOf(tr *train.Trajectory) *kkt.Tail {
	if r.tail == nil || tr.Step.Kind == train.UnknownStep {
		return kkt.MeasureTail(r.obj, tr, 0, r.eachWindow)
	}
	r.tail.once.Do(func() { r.tail.tail = kkt.MeasureTail(r.obj, tr, 0, r.eachWindow) })
	return r.tail.tail
}

// eachWindow is kkt.Each on r's workers.
func (r *recorded) eachWindow(n int, f func(obj *train.Objective, i int)) {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	eachRecord(r, idx, func(w *recorded, i int) struct{} {
		f(w.obj, i)
		return struct{}{}
	})
}
