package cases

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
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/theorems/homogeneity"
	"github.com/implicitbias/implicitbias/train"
)

// BinaryLosses are the margin losses of the family ℓ = e^{−f}.
var BinaryLosses = []string{"exp", "logistic", "poly"}

// allLosses adds the multi-class and regression losses.
var allLosses = []string{"exp", "logistic", "poly", "ce", "squared"}

// Losses of a LossCase (its Loss, an index into allLosses; the first three
// into BinaryLosses too), for literal cases.
const (
	LossExp = iota
	LossLogistic
	LossPoly
	LossCE
	LossSquared
)

// LossCase is an architecture with a loss and random targets: a training
// objective at a random point.
type LossCase struct {
	Arch ArchCase
	Loss int
	// Binary restricts the loss to the binary margin losses.
	Binary bool
}

func (c LossCase) loss() string {
	if c.Binary {
		return BinaryLosses[properties.Pick(c.Loss, len(BinaryLosses))]
	}
	return allLosses[properties.Pick(c.Loss, len(allLosses))]
}

// arch returns the architecture with its output count fitted to the loss.
func (c LossCase) arch() ArchCase {
	a := c.Arch
	if c.loss() == "ce" {
		a.Outputs = max(a.Outputs, 2)
	} else {
		a.Outputs = 1
	}
	return a
}

func (c LossCase) WithFault(name string) any { c.Arch.Fault = name; return c }

// FaultActs: a loss fault is drawn where it moves the engine's gradient of
// log 𝓛 at the case's θ by at least faultGradShift relative: on binary
// margin losses, with samples on its branch whose gradients matter. A
// fault the case never exercises (no positive margin, or only samples
// whose e^{−f(q)} or ∇q is negligible) changes nothing a check could see
// (soak seed 1795648796969825: a 2-sample ReLU² CNN on which the finite
// differences agreed with the faulty engine to 7e-11).
func (c LossCase) FaultActs(name string) bool {
	f, err := faults.Lookup(name)
	if err != nil {
		return false
	}
	if f.Component != "loss" {
		return true
	}
	clean := c
	clean.Arch.Fault = ""
	obj, b, err := clean.Build()
	if err != nil {
		return false
	}
	faulty, err := train.NewObjective(obj.Model, f.Loss(obj.Loss), obj.Data)
	if err != nil {
		return false
	}
	ev, err := obj.Evaluate(b.Theta, true)
	if err != nil {
		return false
	}
	dir := append([]float64(nil), ev.Dir...)
	fev, err := faulty.Evaluate(b.Theta, true)
	if err != nil {
		return false
	}
	nrm := floats.Norm(dir, 2)
	return nrm > 0 && floats.Distance(fev.Dir, dir, 2) >= faultGradShift*nrm
}

// faultGradShift is ENG-grad's GradFDMinShift (the check sizes its
// directions for it, so the two must be one number): the smallest relative change of ∇ log 𝓛 a loss fault
// must make for the case to test it: a thousand times ENG-grad's
// finite-difference tolerance (1e-6), so that a check with that tolerance
// has the shift to see.
const faultGradShift = homogeneity.GradFDMinShift

// String describes the case.
func (c LossCase) String() string { return fmt.Sprintf("%v loss=%s", c.arch(), c.loss()) }

// Build returns the objective (random labels or targets from the case's
// seed) and θ.
func (c LossCase) Build() (*train.Objective, Built, error) {
	b, err := c.arch().Build()
	if err != nil {
		return nil, b, err
	}
	l, err := losses.ByName(c.loss())
	if err != nil {
		return nil, b, err
	}
	f, err := faults.Lookup(c.Arch.Fault)
	if err != nil {
		return nil, b, err
	}
	l = f.Loss(l)
	r := rand.New(rand.NewPCG(c.Arch.Seed, 99))
	d := &dataset.Dataset{N: b.N, D: b.Model.In(), X: b.X, Y: make([]float64, b.N)}
	for i := range d.Y {
		switch l.Kind() {
		case losses.Binary:
			d.Y[i] = float64(2*r.IntN(2) - 1)
		case losses.MultiClass:
			d.Y[i] = float64(r.IntN(b.Model.Out()))
		default:
			d.Y[i] = r.NormFloat64()
		}
	}
	// Scale θ so that the largest |output| is 1 (Φ(cθ) = c^LΦ(θ)): deep
	// polynomial nets otherwise start with outputs near 1e-20, where the
	// loss is flat to double precision and no finite difference resolves
	// its gradient.
	if deg := b.Model.Degree(); deg.Homogeneous {
		ws := b.Model.NewWorkspace(b.N)
		out := b.Model.Forward(ws, b.Theta, b.X, b.N)
		if m := floats.Norm(out, math.Inf(1)); m > 0 {
			floats.Scale(math.Pow(m, -1/deg.Order), b.Theta)
		}
	}
	obj, err := train.NewObjective(b.Model, l, d)
	return obj, b, err
}

// GenLoss generates objectives over GenArch(v) with the binary margin losses
// (binary) or every loss.
func GenLoss(v Variant, binary bool) properties.Gen[LossCase] {
	n := len(allLosses)
	if binary {
		n = len(BinaryLosses)
	}
	return properties.StructOf[LossCase](map[string]gopter.Gen{
		"Arch":   gopter.Gen(GenArch(v)),
		"Loss":   gen.IntRange(0, n-1),
		"Binary": gen.Const(binary),
	})
}
