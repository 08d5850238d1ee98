package suite

import (
	"fmt"
	"sort"
	"strings"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/classification"
	"github.com/implicitbias/implicitbias/properties/homogeneity"
	"github.com/implicitbias/implicitbias/properties/kkt"
	"github.com/implicitbias/implicitbias/properties/margins"
	"github.com/implicitbias/implicitbias/properties/ntk"
	"github.com/implicitbias/implicitbias/properties/regression"
	"github.com/implicitbias/implicitbias/theorems"
)

// Entries returns the runnable entries of every family in catalog order,
// each with its fault controls appended (properties.Bind).
func Entries() []properties.Entry {
	return properties.Bind(homogeneity.Entries(), margins.Entries(), kkt.Entries(), regression.Entries(), classification.Entries(), ntk.Entries())
}

// Select returns the entries whose ID equals or starts with one of the
// comma-separated patterns (e.g. "LL-B3,ENG-"); an empty filter selects all.
// It fails on a pattern that matches nothing.
func Select(filter string) ([]properties.Entry, error) {
	all := Entries()
	if strings.TrimSpace(filter) == "" {
		return all, nil
	}
	var out []properties.Entry
	seen := map[string]bool{}
	for _, p := range strings.Split(filter, ",") {
		p = strings.TrimSpace(p)
		matched := false
		for _, e := range all {
			if e.ID == p || (strings.HasSuffix(p, "-") || strings.HasSuffix(p, "*")) && strings.HasPrefix(e.ID, strings.TrimSuffix(p, "*")) {
				matched = true
				if !seen[e.ID] {
					seen[e.ID] = true
					out = append(out, e)
				}
			}
		}
		if !matched {
			if _, ok := theorems.Lookup(p); ok {
				return nil, fmt.Errorf("catalog entry %s has no check yet", p)
			}
			return nil, fmt.Errorf("unknown catalog entry %q (IDs look like LL-B3; a prefix ends in '-' or '*')", p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return indexOf(all, out[i].ID) < indexOf(all, out[j].ID) })
	return out, nil
}

func indexOf(es []properties.Entry, id string) int {
	for i, e := range es {
		if e.ID == id {
			return i
		}
	}
	return -1
}

// LossEntryIDs lists the entries ForLoss can build (Entry.ForLoss), in
// catalog order.
func LossEntryIDs() []string {
	var ids []string
	for _, e := range Entries() {
		if e.ForLoss != nil {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

// ForLoss returns the entries among ids that can run with the binary margin
// loss named loss (a built-in name or "expr:FORMULA"), built with it; ids
// ForLoss cannot build are skipped.
func ForLoss(loss string, ids []string) ([]properties.Entry, error) {
	l, err := losses.ByName(loss)
	if err != nil {
		return nil, err
	}
	if l.Kind() != losses.Binary {
		return nil, fmt.Errorf("loss %s is not a binary margin loss", loss)
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var es []properties.Entry
	for _, e := range Entries() {
		if e.ForLoss == nil || !want[e.ID] {
			continue
		}
		withLoss := e.ForLoss(loss)
		withLoss.Info = e.Info
		es = append(es, withLoss)
	}
	return es, nil
}
