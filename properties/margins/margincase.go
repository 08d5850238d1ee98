package margins

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/train"
)

// Generated cases of catalog section B (margin dynamics).

// SeparatedCase is a network at a point θ that separates data labelled by
// the network itself, scaled so that the loss is below ℓ(b_f): the case of
// the pointwise margin checks (LL-A5, LL-5.1, Lemma G.2).
type SeparatedCase struct {
	Arch cases.ArchCase
	// Loss indexes the case's loss list (see sepLosses).
	Loss int
	// LogU sets the depth of separation: θ is scaled so that
	// u = log(1/𝓛) ≥ Base + 10^LogU, Base a per-property floor.
	LogU float64
	// Losses is the list Loss indexes.
	Losses []string
	// Copies, when set, labels N copies of the input with the largest
	// |output| (every margin equal): LL-A5's tight case.
	Copies bool
}

func (c SeparatedCase) WithFault(name string) any { c.Arch.Fault = name; return c }

func (c SeparatedCase) loss() string { return c.Losses[properties.Pick(c.Loss, len(c.Losses))] }

func (c SeparatedCase) arch() cases.ArchCase {
	a := c.Arch
	if c.loss() == "ce" {
		a.Outputs = max(a.Outputs, 2)
	} else {
		a.Outputs = 1
	}
	return a
}

// String describes the case.
func (c SeparatedCase) String() string {
	s := fmt.Sprintf("%v loss=%s logU=%.3g", c.arch(), c.loss(), c.LogU)
	if c.Copies {
		s += " copies"
	}
	return s
}

// outputMargin returns the label the scores s give and their margin (binary:
// sign and |s|; multi-class: arg max and the gap to the runner-up).
func outputMargin(s []float64) (label, q float64) {
	q, label = cases.TeacherMargin(s)
	return label, q
}

// Build returns the objective and θ with u = log(1/𝓛(θ)) ≥ base + 10^LogU.
// Labels are the network's own, samples with a zero output are dropped, and
// θ is scaled by c (q_n(cθ) = c^L q_n(θ)) until q_min = g(U + log N) +
// log(K − 1), U the target: then u ≥ f(q_min − log(K−1)) − log N ≥ U (LL-A5
// (a), and q̃_n ≥ q_n − log(K − 1) for cross-entropy, LL App. F).
func (c SeparatedCase) Build(base func(L float64, n, k int) float64) (*train.Objective, []float64, cases.Built, error) {
	b, err := c.arch().Build()
	if err != nil {
		return nil, nil, b, err
	}
	l, err := losses.ByName(c.loss())
	if err != nil {
		return nil, nil, b, err
	}
	f, err := faults.Lookup(c.Arch.Fault)
	if err != nil {
		return nil, nil, b, err
	}
	l = f.Loss(l)
	m := b.Model
	ws := m.NewWorkspace(b.N)
	out := m.Forward(ws, b.Theta, b.X, b.N)
	k := m.Out()
	d := &dataset.Dataset{D: m.In()}
	qmin, best, bestQ := math.Inf(1), -1, 0.0
	for n := 0; n < b.N; n++ {
		label, q := outputMargin(out[n*k : (n+1)*k])
		if !(q > 0) {
			continue
		}
		if q > bestQ {
			best, bestQ = n, q
		}
		d.X = append(d.X, b.X[n*m.In():(n+1)*m.In()]...)
		d.Y = append(d.Y, label)
		qmin = math.Min(qmin, q)
	}
	if c.Copies && best >= 0 {
		// At least two copies: with one sample log N = 0 and LL-A5 is an
		// equality with nothing to get wrong.
		label, q := outputMargin(out[best*k : (best+1)*k])
		d.X, d.Y = nil, nil
		for n := 0; n < max(b.N, 2); n++ {
			d.X = append(d.X, b.X[best*m.In():(best+1)*m.In()]...)
			d.Y = append(d.Y, label)
		}
		qmin = q
	}
	d.N = len(d.Y)
	if d.N == 0 {
		return nil, nil, b, fmt.Errorf("%w: the network is zero on every input", cases.ErrDegenerate)
	}
	obj, err := train.NewObjective(m, l, d)
	if err != nil {
		return nil, nil, b, err
	}
	mg, _ := losses.MarginOf(l)
	L := b.Degree
	u := base(L, d.N, k) + math.Pow(10, c.LogU)
	target := mg.G(u+math.Log(float64(d.N))) + math.Log(float64(max(k-1, 1)))
	floats.Scale(math.Pow(target/qmin, 1/L), b.Theta)
	if deg := m.Degree(); !deg.Homogeneous {
		// A control model (bias terms): scaling does not scale the margins
		// exactly, so nudge the scale up until the data are separated.
		for try := 0; try < 200; try++ {
			ev, err := obj.Evaluate(b.Theta, false)
			if err == nil && ev.LogLoss < losses.LogThreshold(mg)-math.Pow(10, c.LogU) {
				break
			}
			floats.Scale(1.1, b.Theta)
		}
	}
	return obj, b.Theta, b, nil
}

// separationFloor is the default base of SeparatedCase.Build: just past the
// separation threshold, u > f(b_f).
func separationFloor(mg losses.Margin) func(float64, int, int) float64 {
	return func(float64, int, int) float64 { return mg.F(mg.BF()) }
}

// GenSeparated generates separated cases over GenArch(v) with the given
// losses and LogU ∈ [logU0, logU1] (u from the floor + 0.01 to the floor +
// 100 for [−2, 2]).
func GenSeparated(v cases.Variant, lossNames []string, copies bool, logU0, logU1 float64) properties.Gen[SeparatedCase] {
	return properties.StructOf[SeparatedCase](map[string]gopter.Gen{
		"Arch":   gopter.Gen(cases.GenArch(v)),
		"Loss":   gen.IntRange(0, len(lossNames)-1),
		"LogU":   gen.Float64Range(logU0, logU1),
		"Losses": gen.Const(lossNames),
		"Copies": gen.Const(copies),
	})
}

// smoothActs are the activations whose networks have a continuous gradient
// in θ (ReLU², ReLU³, x², identity): their gradient flow is an ODE with a
// Lipschitz right-hand side. ReLU and LeakyReLU nets have a discontinuous
// gradient field, along whose kinks the flow can slide (a Filippov
// solution): an explicit integrator then chatters at tiny steps (measured: a
// 2-layer ReLU flow stalls near log 𝓛 ≈ −83 with 8 600 rejected steps in
// 20 000), so flows are integrated only for these.
var smoothActs = []int{3, 4, 5, 6} // indices into homogeneousActs

// c2Acts are the C²-smooth activations of LL (S1): ReLU³ and x².
var c2Acts = []int{4, 5}

// FlowCase is a dataset labelled by a teacher and a student of the teacher's
// architecture started near it: the case of the flow checks (LL-4.1, LL-F,
// LL-G) and of the gradient-descent ones (LL-4.2, LL-K1, LL-K2).
type FlowCase struct {
	Data cases.DataCase
	Loss int
	// Losses is the list Loss indexes.
	Losses []string
	// Noise is the student's distance from the teacher, relative to ‖θ‖.
	Noise float64
	Seed  uint64
	// Fault names an engine fault planted in the model, loss, objective
	// and optimizers of the case's runs (package faults).
	Fault string
}

func (c FlowCase) WithFault(name string) any { c.Fault = name; return c }

// FaultActs: loss-underflow is drawn on smooth networks only. Its
// signature is a loss-based run that stalls near log 𝓛 ≈ −745, which
// LL-K1's check decides on C² networks and reads as undecided on kinked
// ones (LL's analysis of GD assumes C²: a stall at a kink is possible on
// a correct engine).
func (c FlowCase) FaultActs(name string) bool {
	if name != "loss-underflow" {
		return true
	}
	obj, _, err := c.Build()
	if err != nil {
		return false
	}
	k, ok := obj.Model.(interface{ Kinked() bool })
	return !ok || !k.Kinked()
}

// optimizer returns o with the case's fault planted.
func (c FlowCase) optimizer(o train.Optimizer) train.Optimizer {
	f, _ := faults.Lookup(c.Fault) // checked by Build
	return f.Optimizer(o)
}

// loss returns the case's loss: cross-entropy for 3 or more classes, else
// the binary losses of the list; "" for two classes and a list without a
// binary loss (a shrunk cross-entropy case: Build reports it degenerate).
func (c FlowCase) loss() string {
	if c.Data.NumClasses() > 2 {
		return "ce"
	}
	var bin []string
	for _, l := range c.Losses {
		if l != "ce" {
			bin = append(bin, l)
		}
	}
	if len(bin) == 0 {
		return ""
	}
	return bin[properties.Pick(c.Loss, len(bin))]
}

// String describes the case.
func (c FlowCase) String() string {
	return fmt.Sprintf("%v loss=%s noise=%.2g seed=%d", c.Data, c.loss(), c.Noise, c.Seed) + properties.FaultSuffix(c.Fault)
}

// Build returns the objective on the teacher's data and the student's θ₀:
// the teacher's θ plus Gaussian noise of relative size Noise, scaled so that
// the largest |output| is 1 (unseparated: 𝓛 ≈ N·ℓ(O(1))).
func (c FlowCase) Build() (*train.Objective, []float64, error) {
	if c.loss() == "" {
		return nil, nil, fmt.Errorf("%w: %d classes and only cross-entropy to train them with", cases.ErrDegenerate, c.Data.NumClasses())
	}
	d, m, theta, err := c.Data.Build()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", cases.ErrDegenerate, err)
	}
	l, err := losses.ByName(c.loss())
	if err != nil {
		return nil, nil, err
	}
	obj, err := train.NewObjective(m, l, d)
	if err != nil {
		return nil, nil, err
	}
	// Redraw the noise (deterministically, up to 20 times) while some
	// sample is dead, every ∇Φ_k(θ; x_n) = 0: its loss could never fall
	// below ℓ(0) and the flow would never separate.
	teacher := append([]float64(nil), theta...)
	g := models.NewGrader(m)
	grad := make([]float64, len(theta))
	sd := c.Noise * floats.Norm(theta, 2) / math.Sqrt(float64(len(theta)))
	for try := uint64(0); try < 20; try++ {
		r := rand.New(rand.NewPCG(c.Seed, 21+try))
		for i := range theta {
			theta[i] = teacher[i] + sd*r.NormFloat64()
		}
		if allAlive(g, m, theta, d.X, d.N, grad) {
			break
		}
	}
	ws := m.NewWorkspace(d.N)
	if mx := floats.Norm(m.Forward(ws, theta, d.X, d.N), math.Inf(1)); mx > 0 {
		floats.Scale(math.Pow(mx, -1/m.Degree().Order), theta)
	} else {
		return nil, nil, fmt.Errorf("%w: the student is zero on every input", cases.ErrDegenerate)
	}
	if obj, _, err = properties.Plant(c.Fault, obj, nil); err != nil {
		return nil, nil, err
	}
	return obj, theta, nil
}

// allAlive reports whether every input has a non-zero output gradient.
func allAlive(g *models.Grader, m models.Model, theta, x []float64, n int, grad []float64) bool {
	d := m.In()
	for i := 0; i < n; i++ {
		alive := false
		for k := 0; k < m.Out() && !alive; k++ {
			g.Grad(theta, x[i*d:(i+1)*d], k, grad)
			alive = floats.Norm(grad, 2) > 0
		}
		if !alive {
			return false
		}
	}
	return true
}

// genTeacherOf generates teachers with the given activations (indices into
// homogeneousActs): linear, deep linear (depth 2–3) and MLPs (depth 2, or
// 2–3 for the identity), widths 4–10, inputs 2–6.
func genTeacherOf(acts []int) properties.Gen[cases.ArchCase] {
	return properties.StructOf[cases.ArchCase](map[string]gopter.Gen{
		"Family":  gen.IntRange(cases.FamLinear, cases.FamMLP),
		"Depth":   gen.IntRange(2, 3),
		"Width":   gen.IntRange(4, 10),
		"Act":     gen.OneConstOf(toAny(acts)...),
		"In":      gen.IntRange(2, 6),
		"Samples": gen.Const(1),
		"Seed":    gen.UInt64(),
	}).Map(func(a cases.ArchCase) cases.ArchCase {
		// Degree-k activations compose to L = 1 + k·L: keep L ≤ 4 (depth 2)
		// so that flows stay well scaled.
		if k, _ := actDegree(a); k >= 2 {
			a.Depth = 2
		}
		return a
	})
}

func actDegree(a cases.ArchCase) (float64, bool) {
	act, err := models.ParseActivation(a.ActName())
	if err != nil {
		return 0, false
	}
	return act.Degree()
}

func toAny(xs []int) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// GenFlow generates flow cases: teachers with the given activations,
// 4–16 samples with a margin of 10–50% of the median teacher margin,
// binary labels (classes 2) or 3–4 classes, students at relative distance
// 0.05–0.3 from the teacher.
func GenFlow(acts []int, classes []int, lossNames []string) properties.Gen[FlowCase] {
	cls := gen.Const(classes[0])
	if len(classes) > 1 {
		cls = gen.IntRange(classes[0], classes[len(classes)-1])
	}
	return properties.StructOf[FlowCase](map[string]gopter.Gen{
		"Data": gopter.Gen(properties.StructOf[cases.DataCase](map[string]gopter.Gen{
			"Teacher":    gopter.Gen(genTeacherOf(acts)),
			"N":          gen.IntRange(4, 16),
			"Classes":    cls,
			"Separable":  gen.Const(true),
			"MarginFrac": gen.Float64Range(0.1, 0.5),
		})),
		"Loss":   gen.IntRange(0, len(lossNames)-1),
		"Losses": gen.Const(lossNames),
		"Noise":  gen.Float64Range(0.05, 0.3),
		"Seed":   gen.UInt64(),
	})
}

// rateModels are the architectures of the rate runs (LL-4.3): linear (L = 1)
// and 2- and 3-layer linear nets (L = 2, 3), whose flows have a smooth
// gradient and settle quickly. 2-layer ReLU² and ReLU³ nets (L = 3, 4, width
// 16: at width 8 a random start left an input dead in 6 of 200 runs) are in
// README's long table only (rateTableModels): at log 𝓛 = −2000 their margin
// still moved by more than the regime test allows in up to 1 run in 10,
// which is inconclusive, and a negative control must never be.
var rateModels = []string{"linear", "deeplinear:2x4", "deeplinear:3x4"}

// rateTableModels are the models of README's rate table.
var rateTableModels = append(append([]string(nil), rateModels...), "mlp:relu2:2x16", "mlp:relu3:2x16")

// RateRunCase is a long run for LL-4.3: data in 3 dimensions labelled by a
// random linear teacher with margin ≥ 0.1 (separable by every rate model),
// a student from the model's random initialization.
type RateRunCase struct {
	Model, Loss int
	N           int
	Seed        uint64
	// Spec, when set, overrides the model (README's table).
	Spec string
	// Losses, when set, is the list Loss indexes (default exp, logistic).
	Losses []string
	// Fault names an engine fault planted in the run (package faults).
	Fault string
}

func (c RateRunCase) WithFault(name string) any { c.Fault = name; return c }

func (c RateRunCase) spec() string {
	if c.Spec != "" {
		return c.Spec
	}
	return rateModels[properties.Pick(c.Model, len(rateModels))]
}
func (c RateRunCase) loss() string {
	ls := c.Losses
	if len(ls) == 0 {
		ls = []string{"exp", "logistic"}
	}
	return ls[properties.Pick(c.Loss, len(ls))]
}

// String describes the case.
func (c RateRunCase) String() string {
	return fmt.Sprintf("%s loss=%s N=%d seed=%d", c.spec(), c.loss(), c.N, c.Seed) + properties.FaultSuffix(c.Fault)
}

// Build returns the objective and θ₀ (scaled so that the largest |output|
// is 1).
func (c RateRunCase) Build() (*train.Objective, []float64, error) {
	const d = 3
	r := rand.New(rand.NewPCG(c.Seed, 31))
	u := make([]float64, d)
	for i := range u {
		u[i] = r.NormFloat64()
	}
	floats.Scale(1/floats.Norm(u, 2), u)
	data := &dataset.Dataset{N: c.N, D: d}
	x := make([]float64, d)
	for len(data.Y) < c.N {
		for i := range x {
			x[i] = r.NormFloat64()
		}
		floats.Scale(1/floats.Norm(x, 2), x)
		if p := floats.Dot(u, x); math.Abs(p) >= 0.1 {
			data.X = append(data.X, x...)
			data.Y = append(data.Y, math.Copysign(1, p))
		}
	}
	m, err := models.Parse(c.spec(), d)
	if err != nil {
		return nil, nil, err
	}
	l, err := losses.ByName(c.loss())
	if err != nil {
		return nil, nil, err
	}
	obj, err := train.NewObjective(m, l, data)
	if err != nil {
		return nil, nil, err
	}
	// Redraw θ₀ (up to 20 times) while an input is dead: a ReLU² student
	// with every unit off at some input never fits it (its loss stays ℓ(0),
	// its gradient 0) and the run stalls at a stationary point.
	theta := make([]float64, m.NumParams())
	g := models.NewGrader(m)
	grad := make([]float64, len(theta))
	for try := 0; try < 20; try++ {
		m.Init(r, theta)
		if allAlive(g, m, theta, data.X, data.N, grad) {
			break
		}
	}
	ws := m.NewWorkspace(data.N)
	mx := floats.Norm(m.Forward(ws, theta, data.X, data.N), math.Inf(1))
	if mx == 0 {
		return nil, nil, fmt.Errorf("%w: the student is zero on every input", cases.ErrDegenerate)
	}
	floats.Scale(math.Pow(mx, -1/m.Degree().Order), theta)
	if obj, _, err = properties.Plant(c.Fault, obj, nil); err != nil {
		return nil, nil, err
	}
	return obj, theta, nil
}

// GenRateRun generates rate runs over the models from index minModel on,
// with the exponential and logistic losses.
func GenRateRun(minModel int) properties.Gen[RateRunCase] {
	return GenRateRunLosses(minModel, []string{"exp", "logistic"})
}

// GenRateRunLosses generates rate runs with the given losses.
func GenRateRunLosses(minModel int, lossNames []string) properties.Gen[RateRunCase] {
	return properties.StructOf[RateRunCase](map[string]gopter.Gen{
		"Model":  gen.IntRange(minModel, len(rateModels)-1),
		"Loss":   gen.IntRange(0, len(lossNames)-1),
		"N":      gen.IntRange(8, 20),
		"Seed":   gen.UInt64(),
		"Losses": gen.Const(lossNames),
	})
}
