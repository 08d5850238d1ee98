package properties

import (
	"fmt"
	"sort"
	"strings"

	"github.com/leanovate/gopter"

	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// FaultSuffix is the part of a case's description that names its fault.
func FaultSuffix(name string) string {
	if name == "" {
		return ""
	}
	return " fault=" + name
}

// WithFault maps g's cases (and their shrunk variants) to the same cases
// with the fault planted.
func WithFault[C any](g Gen[C], name string) Gen[C] {
	set := func(v any) any {
		if c, ok := v.(Faultable); ok {
			return c.WithFault(name)
		}
		return v
	}
	h := gopter.Gen(g).SuchThat(func(v any) bool {
		c, ok := v.(faultScoped)
		return !ok || c.FaultActs(name)
	})
	return Gen[C](h.MapResult(func(r *gopter.GenResult) *gopter.GenResult {
		v, ok := r.Retrieve()
		if !ok {
			return r
		}
		shrinker := r.Shrinker
		out := gopter.NewGenResult(set(v), gopter.NoShrinker)
		out.Sieve = r.Sieve // the fault's scope (faultScoped) holds for shrunk cases too
		if shrinker != nil {
			out.Shrinker = func(v any) gopter.Shrink {
				next := shrinker(v)
				return func() (any, bool) {
					w, ok := next()
					if !ok {
						return nil, false
					}
					return set(w), true
				}
			}
		}
		return out
	}))
}

// acceptsFaults reports whether g's cases carry a fault: it draws one.
func acceptsFaults(g gopter.Gen) bool {
	cs := SampleAny(g, 1, 1)
	if len(cs) == 0 {
		return false
	}
	_, ok := cs[0].(Faultable)
	return ok
}

// FaultPair is one declared (fault, claim) pair: an entry's FaultControl
// with the entry's ID.
type FaultPair struct {
	Claim string // catalog ID
	FaultControl
}

// FaultPairs lists the pairs the entries es declare, grouped by fault in
// the registry's order (faults.Registry) and, within a fault, in the
// order of es (catalog order for Entries()): the per-fault view of the
// entries' Faults, which the power table and `verify --faults` print.
func FaultPairs(es []Entry) []FaultPair {
	var ps []FaultPair
	for _, f := range faults.Registry() {
		for _, e := range es {
			for _, fc := range e.Faults {
				if fc.Fault == f.Name {
					ps = append(ps, FaultPair{Claim: e.ID, FaultControl: fc})
				}
			}
		}
	}
	return ps
}

// FaultControls returns e's fault controls: for every fault of e.Faults,
// in its order, the first claim (whose name contains On) whose cases
// carry a fault, run with the fault planted. A fault control is caught
// only by violated (Property.Fault): a broken engine must be refuted by
// the check's statistic, not stopped by an assumption. A name that is not
// a registered fault is a defect of the entry literal (TestEntryFaults).
func FaultControls(e Entry) []Prop {
	var out []Prop
	for _, fc := range e.Faults {
		f, err := faults.Lookup(fc.Fault)
		if err != nil {
			panic("properties: entry " + e.ID + ": " + err.Error())
		}
		for k, p := range e.Claims {
			if !strings.Contains(p.Meta().Name, fc.On) {
				continue
			}
			if pc, ok := p.planted(f, k); ok {
				out = append(out, pc)
				break
			}
		}
	}
	return out
}

// FaultProperty is the claim p run with the fault f planted in its cases:
// a fault control.
func FaultProperty[C any](p Property[C], f faults.Fault) Property[C] {
	return Property[C]{
		Name:  fmt.Sprintf("fault %s (%s): %s", f.Name, f.Component, f.Effect),
		Drops: "fault:" + f.Name,
		Gen:   WithFault(p.Gen, f.Name),
		GenAt: func(r *Runner) Gen[C] { return WithFault(p.gen(r), f.Name) },
		Check: p.Check,
		Fault: f.Name,
	}
}

// Plant returns obj and opt with the fault called name planted (the
// objective rebuilt on the fault's model and loss, its regularizer kept;
// the reweighting or regularizer bug set; the optimizer wrapped). The
// empty name returns them unchanged.
func Plant(name string, obj *train.Objective, opt train.Optimizer) (*train.Objective, train.Optimizer, error) {
	f, err := faults.Lookup(name)
	if err != nil || f.None() {
		return obj, opt, err
	}
	m, l := f.Model(obj.Model), f.Loss(obj.Loss)
	if m != obj.Model || l != obj.Loss {
		reg := obj.Reg
		if obj, err = train.NewObjective(m, l, obj.Data); err != nil {
			return nil, nil, err
		}
		obj.Reg = reg
	}
	if opt != nil {
		opt = f.Optimizer(opt)
	}
	return f.Objective(obj), opt, nil
}

// Bind returns the entries of the families fs in catalog order, each with
// its catalog Info and its fault controls (FaultControls, one per
// Entry.Faults) appended: the runnable entries. The suite binds every
// family (suite.Entries); a family's tests bind its own (proptest.Assert).
func Bind(fs ...[]Entry) []Entry {
	order := map[string]int{}
	for i, c := range theorems.Catalog() {
		order[c.ID] = i
	}
	var es []Entry
	for _, f := range fs {
		es = append(es, f...)
	}
	for i := range es {
		info, ok := theorems.Lookup(es[i].ID)
		if !ok {
			panic("properties: entry " + es[i].ID + " is not in the catalog")
		}
		es[i].Info = info
		es[i].Controls = append(append([]Prop(nil), es[i].Controls...), FaultControls(es[i])...)
	}
	sort.SliceStable(es, func(i, j int) bool { return order[es[i].ID] < order[es[j].ID] })
	return es
}

// planted returns the fault control of p with f (faultProperty) when p's
// cases carry faults.
func (p Property[C]) planted(f faults.Fault, claim int) (Prop, bool) {
	if !acceptsFaults(gopter.Gen(p.Gen)) {
		return nil, false
	}
	pc := FaultProperty(p, f)
	pc.OfClaim = claim + 1
	return pc, true
}
