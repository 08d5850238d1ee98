package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/properties"
)

// keepFaults narrows the entries' fault controls to the faults named in
// list (verify --faults --fault NAMES, comma-separated), so that one
// fault's power is measured without the others' runs — on our engine or,
// with --engine, on another one. An unknown name, or one that none of the
// selected entries declares, is an error naming what would be valid (the
// claims of catalog that declare it).
func keepFaults(entries, catalog []properties.Entry, list string) ([]properties.Entry, error) {
	var names []string
	for n := range strings.SplitSeq(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			return nil, fmt.Errorf("--fault %q: an empty fault name", list)
		}
		if _, err := faults.Lookup(n); err != nil {
			return nil, fmt.Errorf("--fault: %v", err)
		}
		names = append(names, n)
	}
	var out []properties.Entry
	declared := map[string]bool{}
	for _, e := range entries {
		var kept []properties.FaultControl
		for _, fc := range e.Faults {
			if slices.Contains(names, fc.Fault) {
				kept = append(kept, fc)
				declared[fc.Fault] = true
			}
		}
		if kept != nil {
			e.Faults = kept
			out = append(out, e)
		}
	}
	for _, n := range names {
		if !declared[n] {
			var on []string
			for _, e := range catalog {
				if slices.ContainsFunc(e.Faults, func(fc properties.FaultControl) bool { return fc.Fault == n }) {
					on = append(on, e.ID)
				}
			}
			return nil, fmt.Errorf("--fault %s: no selected entry declares it; it is declared on %s", n, strings.Join(on, ", "))
		}
	}
	return out, nil
}
