package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/suite"
	"github.com/implicitbias/implicitbias/theorems"
)

// huntResult is the outcome of a hunt, as --json prints it.
type huntResult struct {
	ID      string `json:"id"`
	Drop    string `json:"drop"`
	Control string `json:"control"`
	Seed    int64  `json:"seed"`
	Tried   int    `json:"cases"`
	// Found reports a counterexample: a case where the claim's check said
	// violated. Cases where it said assumption-failed (the check saw the
	// dropped hypothesis fail and refused to judge) are counted apart: they
	// are the control doing its job, not a counterexample.
	Found            bool     `json:"found"`
	AssumptionFailed int      `json:"assumption_failed"`
	Case             string   `json:"case,omitempty"`
	Statistic        *float64 `json:"statistic,omitempty"`
	Bound            *float64 `json:"bound,omitempty"`
	Detail           string   `json:"detail,omitempty"`
	Reproduce        string   `json:"reproduce"`
}

// runHunt searches the cases of the control of entry id that drops the
// hypothesis key for a case where the claim's check reports violated, lets
// gopter shrink it, and prints it with a command that reproduces the search
// (exit 0), or says that none was found (exit 1).
func runHunt(r *properties.Runner, id, key string, asJSON bool, stdout, stderr io.Writer) int {
	seed := r.Seed
	if id == "" || key == "" {
		return fail(stderr, "verify", fmt.Errorf("--hunt ID and --drop HYPOTHESIS go together"))
	}
	entries, err := suite.Select(id)
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
	res := huntResult{ID: id, Drop: key, Control: ctl.Meta().Name, Seed: seed, Tried: params.MinSuccessfulTests,
		Reproduce: fmt.Sprintf("implicitbias verify --hunt %s --drop %s --seed %d", id, key, seed)}
	var found theorems.Verdict
	props.Property(fmt.Sprintf("%s without %q (%s)", id, key, ctl.Meta().Name), prop.ForAll(func(c any) *gopter.PropResult {
		v := ctl.Verdict(r, c)
		switch v.Status {
		case theorems.Violated:
			// The last failing call is the shrunk case: gopter shrinks
			// by trying smaller cases and keeping those that fail.
			found, res.Case = v, fmt.Sprint(c)
			return gopter.NewPropResult(false, v.String())
		case theorems.AssumptionFailed:
			res.AssumptionFailed++
		}
		return gopter.NewPropResult(true, "")
	}, ctl.Generator(r)))
	out := stdout
	if asJSON {
		out = io.Discard // gopter's report; the JSON follows
	} else {
		fmt.Fprintf(stdout, "Hunting a counterexample to %s (%s) among cases that drop %q: %s\n", id, e.Info.Claim, key, ctl.Meta().Name)
	}
	res.Found = !props.Run(gopter.NewFormatedReporter(true, 100, out))
	if res.Found {
		res.Statistic, res.Bound, res.Detail = finiteOrNil(found.Statistic), finiteOrNil(found.Bound), found.Detail
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return fail(stderr, "verify", err)
		}
	} else if !res.Found {
		fmt.Fprintf(stdout, "No counterexample in %d cases: the claim survived dropping %q here", res.Tried, key)
		if res.AssumptionFailed > 0 {
			fmt.Fprintf(stdout, " (in %d of them the check saw the dropped hypothesis fail and reported assumption-failed: not a counterexample)", res.AssumptionFailed)
		}
		fmt.Fprintln(stdout, ".")
	} else {
		fmt.Fprintf(stdout, "\nThe shrunk case above (ARG_0) breaks %s once %q is dropped: violated (%s).\n", id, key, found)
		fmt.Fprintf(stdout, "Reproduce: %s\n", res.Reproduce)
	}
	if !res.Found {
		return exitViolated
	}
	return exitOK
}

func finiteOrNil(x float64) *float64 {
	if v, ok := num(x).(float64); ok {
		return &v
	}
	return nil
}
