package properties

import (
	"fmt"
	"reflect"
	"sort"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"

	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/theorems"
)

// Gen generates cases of type C: a gopter generator whose values are C.
// Its constructors (structOf, and conversions of gopter's Map at the few
// places that build a case from combined draws) fix C where the case is
// built, so a Property[C] cannot be handed cases of another type.
type Gen[C any] gopter.Gen

// SuchThat keeps the cases f accepts (gopter's filter, typed).
func (g Gen[C]) SuchThat(f func(C) bool) Gen[C] { return Gen[C](gopter.Gen(g).SuchThat(f)) }

// Map transforms every case (and every shrunk one) by f.
func (g Gen[C]) Map(f func(C) C) Gen[C] { return Gen[C](gopter.Gen(g).Map(f)) }

// StructOf generates cases of the struct type C by gopter's gen.Struct,
// one generator per field. A key that names no field of C panics when the
// generator is built (every entry's generators are built by Entries(), so
// any test finds it): gopter would skip the key silently and leave the
// field zero.
func StructOf[C any](fields map[string]gopter.Gen) Gen[C] {
	t := reflect.TypeOf(*new(C))
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := t.FieldByName(k); !ok {
			panic(fmt.Sprintf("properties: generator of %v: no field %q", t, k))
		}
	}
	return Gen[C](gen.Struct(t, fields))
}

// Property is a generator of cases of type C and the check applied to
// each.
type Property[C any] struct {
	Name string
	// Drops names, for a negative control, the hypothesis it breaks (a
	// short key such as "bias", "homogeneity", "degree"): `verify --hunt ID
	// --drop KEY` searches its cases for a counterexample.
	Drops string
	Gen   Gen[C]
	// GenAt, when set, replaces Gen by a generator that depends on the
	// runner's budget (LL-4.4/A9's nets add x² at the long budget).
	GenAt func(r *Runner) Gen[C]
	Check func(r *Runner, c C) theorems.Verdict
	// Undecided is, for a claim that is honestly inconclusive on some of
	// its cases at the quick budget, the measured rate (TestUndecidedRates
	// re-measures it); the test harness sizes its allowance of
	// inconclusive cases from it (DiscardAllowance). Zero for the others.
	Undecided Rate
	// Fault, for a fault control (faultControls), names the engine fault
	// planted in its cases; only violated counts as caught.
	Fault string
	// OfClaim is, for a fault control of an entry, 1 + the index of the
	// claim it plants the fault in (0 otherwise): its cases are drawn from
	// that claim's seed (ControlSeed), so that the claim's own cases come
	// first and the clean runs their validity needs are the claim's, from
	// the runner's caches (issue 28 item 2).
	OfClaim int
}

// Meta is what the harness reads of a property besides its cases and its
// check (the fields of Property of the same names).
type Meta struct {
	Name, Drops string
	Undecided   Rate
	Fault       string
	OfClaim     int
}

// Prop is a Property of any case type, as an Entry holds it: the harness
// (Decide, verify's hunt) draws cases from Generator and judges them by
// Verdict, which hands them to the typed check.
type Prop interface {
	Meta() Meta
	Generator(r *Runner) gopter.Gen
	// Verdict applies the check to a case drawn from Generator.
	Verdict(r *Runner, c any) theorems.Verdict
	// planted returns the property with the fault planted in its cases (a
	// fault control), false when its cases carry no fault.
	// claim is the claim's index in its entry (Property.OfClaim).
	planted(f faults.Fault, claim int) (Prop, bool)
	// accepts reports whether c is a case of the property's type.
	Accepts(c any) bool
}

// Meta returns p's name, hypothesis key, declared rate and fault.
func (p Property[C]) Meta() Meta {
	return Meta{Name: p.Name, Drops: p.Drops, Undecided: p.Undecided, Fault: p.Fault, OfClaim: p.OfClaim}
}

// Generator returns p's generator under r.
func (p Property[C]) Generator(r *Runner) gopter.Gen { return gopter.Gen(p.gen(r)) }

func (p Property[C]) gen(r *Runner) Gen[C] {
	if p.GenAt != nil {
		return p.GenAt(r)
	}
	return p.Gen
}

// Verdict applies p's check to c; a case of another type than C (a
// harness error, never a generated case) is reported as assumption-failed.
func (p Property[C]) Verdict(r *Runner, c any) theorems.Verdict {
	x, ok := c.(C)
	if !ok {
		var want C
		return theorems.Assumption("%s: a case of type %T, not %T", p.Name, c, want)
	}
	return p.Check(r, x)
}

func (p Property[C]) Accepts(c any) bool {
	_, ok := c.(C)
	return ok
}

// CaughtBy reports whether a control's verdict shows the check's power:
// violated for a fault control, violated or assumption-failed for a
// control that breaks a hypothesis.
func (m Meta) CaughtBy(v theorems.Verdict) bool {
	if m.Fault != "" {
		return v.Status == theorems.Violated
	}
	return Caught(v)
}

// Drops names the hypothesis a negative control breaks (for verify --hunt).
func Drops[C any](key string, p Property[C]) Property[C] {
	p.Drops = key
	return p
}

// Undecided returns p with its measured rate of inconclusive cases.
func Undecided[C any](p Property[C], r Rate) Property[C] {
	p.Undecided = r
	return p
}

// Caught reports whether a negative control's verdict shows the check's
// power: violated or assumption-failed.
func Caught(v theorems.Verdict) bool {
	return v.Status == theorems.Violated || v.Status == theorems.AssumptionFailed
}

// Faultable is a case that can carry a planted engine fault (package
// faults): its training code applies the fault named by its Fault field.
type Faultable interface {
	WithFault(name string) any
}

// faultScoped is a faultable case on which some faults act only for some
// cases (heavy ball's fault on heavy-ball runs): the pair draws only the
// cases where the fault acts.
type faultScoped interface {
	FaultActs(name string) bool
}
