package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/train"
)

// Workload is one of the problems: a depth-Depth ReLU network of
// hidden width Width on N samples of dimension D, or (CNN) LL's CNN of W5.
type Workload struct {
	Name         string
	Depth, Width int // Depth 1: linear (Width unused)
	N, D         int
	// Steps is the default number of timed steps: about a second of the
	// slowest implementation on a 2-core machine.
	Steps int
	// CNN marks W5: a step on the mean cross-entropy of 10 classes of a 2-D
	// CNN (see W5) instead of the summed exponential loss of an MLP.
	CNN bool
}

// Workloads are the four problems, W1…W4.
var Workloads = []Workload{
	{Name: "W1", Depth: 2, Width: 64, N: 200, D: 20, Steps: 5000},
	{Name: "W2", Depth: 4, Width: 128, N: 1000, D: 50, Steps: 100},
	{Name: "W3", Depth: 1, N: 50, D: 100, Steps: 20000},
	{Name: "W4", Depth: 3, Width: 16, N: 40, D: 10, Steps: 20000},
}

// Lookup returns the workload called name (W1…W5, case-insensitive).
func Lookup(name string) (Workload, error) {
	for _, w := range append(Workloads[:len(Workloads):len(Workloads)], W5) {
		if strings.EqualFold(w.Name, name) {
			return w, nil
		}
	}
	return Workload{}, fmt.Errorf("unknown workload %q (want W1, W2, W3, W4 or W5)", name)
}

// Spec returns the model spec of the workload's network (see models.Parse).
func (w Workload) Spec() string {
	if w.CNN {
		return w5Spec
	}
	if w.Depth == 1 {
		return "linear"
	}
	return fmt.Sprintf("mlp:relu:%dx%d", w.Depth, w.Width)
}

// Dims returns the layer sizes d, Width, …, Width, 1 (nil for W5, whose
// layers Spec describes).
func (w Workload) Dims() []int {
	if w.CNN {
		return nil
	}
	dims := []int{w.D}
	for i := 1; i < w.Depth; i++ {
		dims = append(dims, w.Width)
	}
	return append(dims, 1)
}

// FLOPs returns the floating-point operations of one step's matrix
// products, counting a multiply-add as 2: the forward pass and the weight
// gradients 2·n·Σ_l in_l·out_l each, and the input gradients of every layer
// but the first 2·n·Σ_{l≥2} in_l·out_l. Elementwise work is not counted.
func (w Workload) FLOPs() float64 {
	if w.CNN {
		return w5FLOPs(w.N)
	}
	dims := w.Dims()
	var all, inner float64
	for l := 0; l+1 < len(dims); l++ {
		p := float64(dims[l] * dims[l+1])
		all += p
		if l > 0 {
			inner += p
		}
	}
	n := float64(w.N)
	return 4*n*all + 2*n*inner
}

// LR is the constant step size η = 1/n: the Hessian of the summed loss is
// of order n·ℓ̄ for unit-norm inputs and O(1) outputs, so the loss
// decreases steadily from the start (the package test checks it).
// W5 takes LL's η = 0.01 on the mean loss.
func (w Workload) LR() float64 {
	if w.CNN {
		return w5LR
	}
	return 1 / float64(w.N)
}

// Problem is a workload instance: the data, the labels and the initial
// parameters, shared bit for bit with the peers through WriteJSON.
type Problem struct {
	Workload Workload
	Seed     uint64
	LR       float64
	X        []float64 // N×D, rows of unit norm
	Y        []float64 // ±1
	Theta0   []float64 // layer by layer, each W_l out×in row-major
}

// Generate draws the problem of w from seed: the data, a teacher of the
// same architecture that labels it, then θ₀ (all from one PCG stream).
func (w Workload) Generate(seed uint64) (*Problem, error) {
	if w.CNN {
		return generateW5(w, seed)
	}
	m, err := models.Parse(w.Spec(), w.D)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x62656e6368)) // "bench"
	p := &Problem{Workload: w, Seed: seed, LR: w.LR(), X: make([]float64, w.N*w.D), Y: make([]float64, w.N)}
	for i := 0; i < w.N; i++ {
		row := p.X[i*w.D : (i+1)*w.D]
		for {
			var s float64
			for j := range row {
				row[j] = r.NormFloat64()
				s += row[j] * row[j]
			}
			if s > 0 {
				s = math.Sqrt(s)
				for j := range row {
					row[j] /= s
				}
				break
			}
		}
	}
	teacher := make([]float64, m.NumParams())
	m.Init(r, teacher)
	f := m.Forward(m.NewWorkspace(w.N), teacher, p.X, w.N)
	for i, v := range f {
		p.Y[i] = 1
		if v < 0 {
			p.Y[i] = -1
		}
	}
	p.Theta0 = make([]float64, m.NumParams())
	m.Init(r, p.Theta0)
	return p, nil
}

// problemJSON is the exported form; the peers read the same fields.
type problemJSON struct {
	Workload string    `json:"workload"`
	Spec     string    `json:"spec"`
	Seed     uint64    `json:"seed"`
	N        int       `json:"n"`
	D        int       `json:"d"`
	Dims     []int     `json:"dims"`
	LR       float64   `json:"lr"`
	FLOPs    float64   `json:"flops_per_step"`
	X        []float64 `json:"x"`
	Y        []float64 `json:"y"`
	Theta    []float64 `json:"theta"`
}

// WriteJSON exports p. Go writes the shortest decimal that reads back to the
// same float64, so the peers start from the same bits.
func (p *Problem) WriteJSON(out io.Writer) error {
	return json.NewEncoder(out).Encode(problemJSON{
		Workload: p.Workload.Name, Spec: p.Workload.Spec(), Seed: p.Seed,
		N: p.Workload.N, D: p.Workload.D, Dims: p.Workload.Dims(), LR: p.LR, FLOPs: p.Workload.FLOPs(),
		X: p.X, Y: p.Y, Theta: p.Theta0,
	})
}

// ReadProblem reads a problem written by WriteJSON and checks it.
func ReadProblem(in io.Reader) (*Problem, error) {
	var pj problemJSON
	if err := json.NewDecoder(in).Decode(&pj); err != nil {
		return nil, fmt.Errorf("bench: reading problem: %v", err)
	}
	w, err := Lookup(pj.Workload)
	if err != nil {
		return nil, fmt.Errorf("bench: reading problem: %v", err)
	}
	p := &Problem{Workload: w, Seed: pj.Seed, LR: pj.LR, X: pj.X, Y: pj.Y, Theta0: pj.Theta}
	if err := p.check(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Problem) check() error {
	w := p.Workload
	m, err := models.Parse(w.Spec(), w.D)
	if err != nil {
		return err
	}
	switch {
	case len(p.X) != w.N*w.D:
		return fmt.Errorf("bench: %s has %d×%d inputs, the problem %d values", w.Name, w.N, w.D, len(p.X))
	case len(p.Y) != w.N:
		return fmt.Errorf("bench: %s has %d samples, the problem %d labels", w.Name, w.N, len(p.Y))
	case len(p.Theta0) != m.NumParams():
		return fmt.Errorf("bench: %s has %d parameters, the problem %d", w.Name, m.NumParams(), len(p.Theta0))
	case !(p.LR > 0) || math.IsInf(p.LR, 0):
		return fmt.Errorf("bench: step size %v must be finite and > 0", p.LR)
	}
	for i, v := range p.Theta0 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("bench: θ₀[%d] is %v", i, v)
		}
	}
	d := &dataset.Dataset{N: w.N, D: w.D, X: p.X, Y: p.Y}
	if w.CNN {
		return d.ValidateClasses(w5Classes)
	}
	return d.ValidateBinary()
}

// Runner trains a problem with the engine: train.Objective (the log-domain
// summed exponential loss; for W5 the cross-entropy with weights 1/N, the
// mean) and train.GD, as train.Run does, without the per-step recording.
type Runner struct {
	Problem *Problem
	Theta   []float64 // θ_t, starts at θ₀
	obj     *train.Objective
	gd      *train.GD
}

// NewRunner sets up the engine on p, at θ₀.
func NewRunner(p *Problem) (*Runner, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	w := p.Workload
	m, err := models.Parse(w.Spec(), w.D)
	if err != nil {
		return nil, err
	}
	data := &dataset.Dataset{N: w.N, D: w.D, X: p.X, Y: p.Y}
	var loss losses.Loss = losses.NewBinary(losses.Exponential{})
	if w.CNN {
		loss = losses.CrossEntropy{}
	}
	obj, err := train.NewObjective(m, loss, data)
	if err != nil {
		return nil, err
	}
	if w.CNN {
		mean := make([]float64, w.N)
		for i := range mean {
			mean[i] = 1 / float64(w.N)
		}
		if err := obj.SetWeights(mean); err != nil {
			return nil, err
		}
	}
	gd, err := train.NewGD(p.LR)
	if err != nil {
		return nil, err
	}
	return &Runner{Problem: p, Theta: append([]float64(nil), p.Theta0...), obj: obj, gd: gd}, nil
}

// Reset puts θ back to θ₀.
func (r *Runner) Reset() { copy(r.Theta, r.Problem.Theta0) }

// ErrDiverged reports a non-finite θ after a step.
var ErrDiverged = errors.New("bench: gradient descent diverged")

// Steps takes n GD steps: each evaluates 𝓛 and ∇𝓛 at θ_t and sets
// θ_{t+1} = θ_t − η∇𝓛. It does not allocate.
func (r *Runner) Steps(n int) error {
	return train.Descend(r.obj, r.gd, r.Theta, n)
}

// Loss returns 𝓛(θ_t) = Σ_i exp(−y_i f(x_i)) (W5: the mean cross-entropy
// (1/N) Σ_i ℓ(Φ(x_i); y_i)), and an error wrapping
// ErrDiverged when θ_t is not finite.
func (r *Runner) Loss() (float64, error) {
	for i, v := range r.Theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%w: θ[%d] = %v", ErrDiverged, i, v)
		}
	}
	ev, err := r.obj.Evaluate(r.Theta, false)
	if err != nil {
		return 0, err
	}
	return math.Exp(ev.LogLoss), nil
}
