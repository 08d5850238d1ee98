package properties

import (
	"context"
	"math"

	"github.com/implicitbias/implicitbias/engines"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/train"
)

// Evaluated asks r.Engine for Φ(θ; x_i) and ∇_θΦ(θ; x_i) on the n rows
// of x (engines.EvalCase) at each θ of thetas and returns m answering
// Forward and Backward from those answers: section A's identity checks
// then read the engine's Φ and ∇Φ where they read our model's. The engine
// was asked at those θ (bit for bit) and on those rows only: anywhere else
// Forward returns NaN, which no check passes (a check that evaluates
// elsewhere must not be wired this way).
func (r *Runner) Evaluated(name string, m models.Model, x []float64, n int, thetas ...[]float64) (models.Model, error) {
	e := &evaluated{Model: m, x: x, n: n}
	for _, theta := range thetas {
		c := &engines.EvalCase{Name: name, Model: m.String(), In: m.In(), X: x, N: n, Theta: theta}
		if err := r.Engine.Capabilities().SupportsEval(c); err != nil {
			return nil, err
		}
		ev, err := r.Engine.Eval(context.Background(), c)
		if err != nil {
			return nil, err
		}
		e.thetas, e.evs = append(e.thetas, theta), append(e.evs, ev)
	}
	return e, nil
}

// evaluated is a model whose Φ and ∇Φ at the θ of thetas on the rows of x
// are an engine's evaluations evs (Evaluated).
type evaluated struct {
	models.Model
	x      []float64
	n      int
	thetas [][]float64
	evs    []*engines.Evaluation
}

// evalWorkspace keeps the evaluation and the rows of the last Forward
// (row −1: not evaluated).
type evalWorkspace struct {
	ev   *engines.Evaluation
	rows []int
	out  []float64
}

func (w *evalWorkspace) Cap() int { return cap(w.rows) }

func (e *evaluated) NewWorkspace(n int) models.Workspace {
	return &evalWorkspace{rows: make([]int, 0, n)}
}

// row returns the index of sample x among the evaluated rows, or −1.
func (e *evaluated) row(x []float64) int {
	in := e.In()
	for i := range e.n {
		if bitsEqual(e.x[i*in:(i+1)*in], x) {
			return i
		}
	}
	return -1
}

func bitsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

func (e *evaluated) Forward(ws models.Workspace, theta, x []float64, n int) []float64 {
	w := ws.(*evalWorkspace)
	in, k := e.In(), e.Out()
	w.ev, w.rows, w.out = nil, w.rows[:0], w.out[:0]
	for i, th := range e.thetas {
		if bitsEqual(theta, th) {
			w.ev = e.evs[i]
		}
	}
	for i := range n {
		r := -1
		if w.ev != nil {
			r = e.row(x[i*in : (i+1)*in])
		}
		w.rows = append(w.rows, r)
		for j := range k {
			v := math.NaN()
			if r >= 0 {
				v = w.ev.Phi[r*k+j]
			}
			w.out = append(w.out, v)
		}
	}
	return w.out
}

func (e *evaluated) Backward(ws models.Workspace, _ []float64, gOut, grad []float64) {
	w := ws.(*evalWorkspace)
	k, p := e.Out(), e.NumParams()
	clear(grad)
	for i, r := range w.rows {
		for j := range k {
			g := gOut[i*k+j]
			if g == 0 {
				continue
			}
			if r < 0 {
				for q := range grad {
					grad[q] = math.NaN()
				}
				return
			}
			row := w.ev.Grad[(r*k+j)*p : (r*k+j+1)*p]
			for q := range grad {
				grad[q] += g * row[q]
			}
		}
	}
}

// EvaluatedObjective returns an objective with obj's loss and data whose
// model answers from r.Engine's evaluations at thetas (Evaluated): a check
// of obj at those θ then reads the engine's Φ and ∇Φ through our loss (LL-B4,
// LL-A5: the loss and its log domain stay ours, the network is the
// engine's). An objective the protocol cannot carry that way (a
// regularizer, sample weights, a planted weight fault) is ErrNoProtocol.
func (r *Runner) EvaluatedObjective(name string, obj *train.Objective, thetas ...[]float64) (*train.Objective, error) {
	if obj.Reg != nil || obj.Faulted() {
		return nil, ErrNoProtocol
	}
	for n := range obj.Data.N {
		if obj.LogWeight(n) != 0 {
			return nil, ErrNoProtocol
		}
	}
	m, err := r.Evaluated(name, obj.Model, obj.Data.X, obj.Data.N, thetas...)
	if err != nil {
		return nil, err
	}
	return train.NewObjective(m, obj.Loss, obj.Data)
}
