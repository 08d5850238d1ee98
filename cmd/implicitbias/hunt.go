package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/theorems"
)

// runHunt searches the cases of the control of entry id that drops the
// hypothesis key for a case where the claim's check does not hold, lets
// gopter shrink it, and prints it with a command that reproduces the search.
func runHunt(r *properties.Runner, id, key string, stdout, stderr io.Writer) int {
	seed := r.Seed
	if id == "" || key == "" {
		return fail(stderr, "verify", fmt.Errorf("--hunt ID and --drop HYPOTHESIS go together"))
	}
	entries, err := properties.Select(id)
	if err != nil {
		return fail(stderr, "verify", err)
	}
	if len(entries) != 1 || entries[0].ID != id {
		return fail(stderr, "verify", fmt.Errorf("--hunt needs one catalog ID, got %q", id))
	}
	e := entries[0]
	var keys []string
	var ctl properties.Prop
	for _, c := range e.Controls {
		drops := c.Meta().Drops
		if drops == "" {
			continue
		}
		keys = append(keys, drops)
		if drops == key && ctl == nil {
			ctl = c
		}
	}
	if ctl == nil {
		return fail(stderr, "verify", fmt.Errorf("%s has no control dropping %q (its keys: %s)", id, key, strings.Join(keys, ", ")))
	}
	params := gopter.DefaultTestParametersWithSeed(seed)
	params.MinSuccessfulTests = []int{200, 1000, 5000}[r.Budget]
	props := gopter.NewProperties(params)
	var found theorems.Verdict
	props.Property(fmt.Sprintf("%s without %q (%s)", id, key, ctl.Meta().Name), prop.ForAll(func(c any) *gopter.PropResult {
		v := ctl.Verdict(r, c)
		if properties.Caught(v) {
			found = v
			return gopter.NewPropResult(false, v.String())
		}
		return gopter.NewPropResult(true, "")
	}, ctl.Generator(r)))
	fmt.Fprintf(stdout, "Hunting a counterexample to %s (%s) among cases that drop %q: %s\n", id, e.Info.Claim, key, ctl.Meta().Name)
	ok := props.Run(gopter.NewFormatedReporter(true, 100, stdout))
	if ok {
		fmt.Fprintf(stdout, "No counterexample in %d cases: the claim survived dropping %q here.\n", params.MinSuccessfulTests, key)
		return exitViolated
	}
	fmt.Fprintf(stdout, "\nThe shrunk case above (ARG_0) breaks %s once %q is dropped: %s.\n", id, key, found.Status)
	fmt.Fprintf(stdout, "Reproduce: implicitbias verify --hunt %s --drop %s --seed %d\n", id, key, seed)
	return exitOK
}
