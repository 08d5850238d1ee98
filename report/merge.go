package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/implicitbias/implicitbias/theorems"
)

// ReadJSON reads a Document written by WriteJSON.
func ReadJSON(r io.Reader) (Document, error) {
	var d Document
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return d, fmt.Errorf("not a verify JSON document: %v", err)
	}
	if d.SchemaVersion != SchemaVersion {
		return d, fmt.Errorf("schema version %d, want %d", d.SchemaVersion, SchemaVersion)
	}
	return d, nil
}

// UnmarshalJSON reads the totals written by MarshalJSON.
func (t *Totals) UnmarshalJSON(b []byte) error {
	var m map[string]int
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*t = Totals{Entries: m["entries"], Holds: m["holds"], Violated: m["violated"],
		Inconclusive: m["inconclusive"], AssumptionFailed: m["assumption_failed"], Unchecked: m["unchecked"], NotSelected: m["not_selected"], Checks: m["checks"],
		NotApplicable: m["not_applicable"], EngineError: m["engine_error"]}
	return nil
}

// Merge combines documents of disjoint shards of one run (same seed and
// budget) into the document of the whole run: entries in catalog order,
// totals recomputed.
func Merge(docs ...Document) (Document, error) {
	if len(docs) == 0 {
		return Document{}, fmt.Errorf("nothing to merge")
	}
	out := Document{SchemaVersion: SchemaVersion, Seed: docs[0].Seed, Budget: docs[0].Budget, Entries: []Entry{}}
	seen := map[string]bool{}
	for i, d := range docs {
		if d.Seed != out.Seed || d.Budget != out.Budget {
			return Document{}, fmt.Errorf("document %d is seed %d budget %s, the first is seed %d budget %s: not shards of one run", i+1, d.Seed, d.Budget, out.Seed, out.Budget)
		}
		for _, e := range d.Entries {
			if seen[e.ID] {
				return Document{}, fmt.Errorf("entry %s appears in two documents", e.ID)
			}
			seen[e.ID] = true
			out.Entries = append(out.Entries, e)
		}
	}
	order := map[string]int{}
	for i, c := range theorems.Catalog() {
		order[c.ID] = i
	}
	sort.SliceStable(out.Entries, func(i, j int) bool { return order[out.Entries[i].ID] < order[out.Entries[j].ID] })
	out.Totals = totals(out.Entries, docs)
	return out, nil
}

// totals recounts the merged entries. Shards counted against their
// registered checks (Checks > 0, the same in every shard) keep their
// Unchecked; older shards counted every entry without a result as
// unchecked, and so does their merge.
func totals(es []Entry, docs []Document) Totals {
	t := Totals{Entries: len(es), Unchecked: len(theorems.Catalog()) - len(es)}
	scopedDocs := docs[0].Totals.Checks > 0
	for _, d := range docs {
		if d.Totals.Checks != docs[0].Totals.Checks || d.Totals.Unchecked != docs[0].Totals.Unchecked {
			scopedDocs = false
		}
	}
	if scopedDocs {
		c := docs[0].Totals.Checks
		t.Unchecked, t.NotSelected, t.Checks = docs[0].Totals.Unchecked, max(c-len(es), 0), c
	}
	for _, e := range es {
		t.add(e.Status)
	}
	return t
}
