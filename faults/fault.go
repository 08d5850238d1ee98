package faults

import (
	"fmt"
	"sort"
	"strings"

	"github.com/implicitbias/implicitbias/internal/enginefault"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/train"
)

// MinPower is the share of a declared pair's cases that the claim's check
// must report violated (issue 18: ≥ 95% at the quick budget). A pair whose
// measured share is below it is a check without power against a bug it
// claims to catch, and fails the test.
const MinPower = 0.95

// Fault is a named engine bug. The zero Fault is no fault.
type Fault struct {
	Name      string
	Component string // optimizer, reweighting, model, loss, integrator, regularizer
	Effect    string // what the bug does, in one line

	model     func(models.Model) models.Model
	loss      func(losses.Loss) losses.Loss
	optimizer func(train.Optimizer) train.Optimizer
	weights   func(q []float64)
	// honest makes the weights fault act on the scheme's own q, so that the
	// records say what is applied (enginefault.Objective.Honest).
	honest      bool
	regularizer func(train.Regularizer) train.Regularizer
	// errorScale and solution are planted on a flow integrator
	// (enginefault.Flow: ErrorScale, B).
	errorScale float64
	solution   func() *[6]float64
}

// None reports whether f is the zero Fault.
func (f Fault) None() bool { return f.Name == "" }

// Model returns m, or m with the fault when the fault is in the model.
func (f Fault) Model(m models.Model) models.Model {
	if f.model == nil {
		return m
	}
	return f.model(m)
}

// Loss returns l, or l with the fault when the fault is in the loss.
func (f Fault) Loss(l losses.Loss) losses.Loss {
	if f.loss == nil {
		return l
	}
	return f.loss(l)
}

// Optimizer returns o, or o with the fault when the fault is in the
// optimizer; the integrator's fault is set on o itself when o is a
// *train.Flow.
func (f Fault) Optimizer(o train.Optimizer) train.Optimizer {
	if fl, ok := o.(*train.Flow); ok && (f.errorScale != 0 || f.solution != nil) {
		h := &enginefault.Flow{ErrorScale: f.errorScale}
		if f.solution != nil {
			h.B = f.solution()
		}
		fl.PlantFault(h)
	}
	if f.optimizer == nil {
		return o
	}
	return f.optimizer(o)
}

// Objective plants the fault's reweighting or regularizer bug in obj (a
// no-op for the other faults) and returns obj.
func (f Fault) Objective(obj *train.Objective) *train.Objective {
	if f.weights != nil {
		obj.PlantFault(&enginefault.Objective{Weights: f.weights, Honest: f.honest})
	}
	if f.regularizer != nil && obj.Reg != nil {
		obj.Reg = f.regularizer(obj.Reg)
	}
	return obj
}

// RewriteWeights applies the fault's reweighting bug to q in place (what
// the objective would apply for the weights q) and reports whether the
// fault has one; q is unchanged when it has not.
func (f Fault) RewriteWeights(q []float64) bool {
	if f.weights == nil {
		return false
	}
	f.weights(q)
	return true
}

// String is the fault's name ("none" for the zero Fault).
func (f Fault) String() string {
	if f.None() {
		return "none"
	}
	return f.Name
}

// Lookup returns the registered fault called name; "" and "none" give the
// zero Fault.
func Lookup(name string) (Fault, error) {
	if name == "" || name == "none" {
		return Fault{}, nil
	}
	for _, f := range Registry() {
		if f.Name == name {
			return f, nil
		}
	}
	return Fault{}, fmt.Errorf("unknown fault %q (want one of %s)", name, strings.Join(Names(), ", "))
}

// Names lists the registered faults, sorted.
func Names() []string {
	var ns []string
	for _, f := range Registry() {
		ns = append(ns, f.Name)
	}
	sort.Strings(ns)
	return ns
}
