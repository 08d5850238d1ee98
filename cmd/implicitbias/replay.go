package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/leanovate/gopter"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/report"
	"github.com/implicitbias/implicitbias/theorems"
)

// Replay of one case. Every case verify prints ("worst case: …") is a
// draw of one of its entry's generators, seeded as properties.Runner.Run
// seeds them: claim i from seed + i, control i from seed + 1000 + i (a
// fault control from its claim's seed, properties.ControlSeed), the
// draws in order from a fresh math/rand source (properties.Decide). So a
// case is found again by drawing from each generator until a draw prints
// as the same line, and checked alone, verbosely.

// replayDraws bounds the draws searched per generator: five times the
// largest case count of an entry (200) at the budget (×1, ×4, ×20), room
// for the undecided draws a run skips past. A line not found by then was
// not drawn at this seed and budget.
func replayDraws(b properties.Budget) int { return 5 * 200 * [...]int{1, 4, 20}[b] }

// foundCase is a case found again.
type foundCase struct {
	entry properties.Entry
	prop  properties.Prop
	role  string // "claim" or "control"
	index int    // the property's index among the entry's claims or controls
	seed  int64  // the generator's seed
	draw  int    // the draw's index from that seed, from 0
	value any
}

// findCase searches the entries' generators at r's seed and budget, claims
// first, for a draw that prints as line.
func findCase(r *properties.Runner, entries []properties.Entry, line string) (foundCase, bool) {
	seed, b := r.Seed, r.Budget
	line = strings.TrimSpace(line)
	for _, e := range entries {
		for _, role := range []string{"claim", "control"} {
			props := e.Claims
			if role == "control" {
				props = e.Controls
			}
			for i, p := range props {
				s := seed + int64(i)
				if role == "control" {
					s = properties.ControlSeed(seed, e, i)
				}
				params := gopter.DefaultGenParameters()
				params.Rng = rand.New(rand.NewSource(s))
				for draw, misses := 0, 0; draw < replayDraws(b) && misses < 1000; {
					v, ok := p.Generator(r)(params).Retrieve()
					if !ok {
						misses++
						continue
					}
					misses = 0
					if properties.Describe(r, v) == line {
						return foundCase{e, p, role, i, s, draw, v}, true
					}
					draw++
				}
			}
		}
	}
	return foundCase{}, false
}

// runCase reruns one printed case and prints everything about it; exit
// status 1 when it violates a claim.
func runCase(r *properties.Runner, entries []properties.Entry, line string, stdout, stderr io.Writer) int {
	seed, b := r.Seed, r.Budget
	c, ok := findCase(r, entries, line)
	if !ok {
		var ids []string
		for _, e := range entries {
			ids = append(ids, e.ID)
		}
		return fail(stderr, "verify", fmt.Errorf("--case: no draw of %s at seed %d (budget %s) prints as %q (give the --seed, --budget and --only of the run that printed it)", strings.Join(ids, ", "), seed, b, line))
	}
	start := time.Now()
	v := c.prop.Verdict(r, c.value)
	fmt.Fprintf(stdout, "entry      %s (%s): %s\n", c.entry.ID, c.entry.Source, c.entry.Claim)
	fmt.Fprintf(stdout, "%-10s %d: %s\n", c.role, c.index, c.prop.Meta().Name)
	if drops := c.prop.Meta().Drops; drops != "" {
		fmt.Fprintf(stdout, "drops      %s\n", drops)
	}
	fmt.Fprintf(stdout, "case       %s\n", properties.Describe(r, c.value))
	fmt.Fprintf(stdout, "drawn      draw %d of the generator seeded %d (verify --seed %d)\n", c.draw, c.seed, seed)
	fmt.Fprintf(stdout, "status     %s\n", v.Status)
	fmt.Fprintf(stdout, "statistic  %s\n", report.Stat(v))
	fmt.Fprintf(stdout, "detail     %s\n", v.Detail)
	fmt.Fprintf(stdout, "time       %s\n", time.Since(start).Round(time.Millisecond))
	if c.role == "claim" && v.Status == theorems.Violated {
		return exitViolated
	}
	return exitOK
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// failure is a stored failing case (DIR/ID.fail, like rapid's fail files
// under testdata/rapid): the case of a violated entry, with how to rerun it.
// verify reruns the stored cases of its selected entries first, adds their
// verdicts to the entries' results, and removes a file whose case now holds.
type failure struct {
	ID     string `json:"id"`
	Seed   int64  `json:"seed"`
	Budget string `json:"budget"`
	Case   string `json:"case"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Rerun  string `json:"rerun"`
}

func failurePath(dir, id string) string {
	return filepath.Join(dir, strings.NewReplacer("/", "_", ".", "_").Replace(id)+".fail")
}

// storeFailures writes a fail file for every violated entry and names it
// on stderr with the command that reruns its case.
func storeFailures(dir string, seed int64, budget string, rs []theorems.Result, stderr io.Writer) error {
	for _, r := range rs {
		if r.Status() != theorems.Violated {
			continue
		}
		v, c := r.Claims.Decided, r.Claims.DecidedCase
		if v.Status != theorems.Violated {
			v, c = r.Claims.Worst, r.Claims.WorstCase
		}
		if c == "" {
			continue
		}
		f := failure{ID: r.ID, Seed: seed, Budget: budget, Case: c, Status: v.Status.String(), Detail: v.Detail,
			Rerun: fmt.Sprintf("implicitbias verify --only %s --seed %d --budget %s --case %s", r.ID, seed, budget, shellQuote(c))}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		b, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			return err
		}
		p := failurePath(dir, r.ID)
		if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "implicitbias verify: %s violated; its case is stored in %s and rerun first next time; rerun it alone: %s\n", r.ID, p, f.Rerun)
	}
	return nil
}

// storedVerdict is the verdict of a stored failing case, rerun.
type storedVerdict struct {
	id, caseLine string
	verdict      theorems.Verdict
}

// rerunStored reruns the stored failing cases of the entries first (their
// own seeds) and returns their verdicts; a case that now holds has its file
// removed.
func rerunStored(dir string, entries []properties.Entry, stderr io.Writer) ([]storedVerdict, error) {
	var out []storedVerdict
	for _, e := range entries {
		p := failurePath(dir, e.ID)
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var f failure
		if err := json.Unmarshal(b, &f); err != nil || f.ID != e.ID {
			return nil, fmt.Errorf("%s: not a fail file of %s (%v)", p, e.ID, err)
		}
		budget, err := properties.ParseBudget(f.Budget)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		r := properties.NewRunner(f.Seed, budget)
		c, ok := findCase(r, []properties.Entry{e}, f.Case)
		if !ok || c.role != "claim" {
			fmt.Fprintf(stderr, "implicitbias verify: %s: its case is no longer drawn at seed %d (the generator changed); left in place\n", p, f.Seed)
			continue
		}
		v := c.prop.Verdict(r, c.value)
		fmt.Fprintf(stderr, "implicitbias verify: rerun first, the stored case of %s: %s\n", e.ID, v.Status)
		if v.Status == theorems.Holds {
			if err := os.Remove(p); err != nil {
				return nil, err
			}
			fmt.Fprintf(stderr, "implicitbias verify: %s now holds; %s removed\n", e.ID, p)
		}
		out = append(out, storedVerdict{e.ID, f.Case, v})
	}
	return out, nil
}

// addStored adds the rerun stored cases to their entries' results (a case
// that still fails makes its entry violated whatever the fresh cases said).
func addStored(rs []theorems.Result, stored []storedVerdict) {
	for _, s := range stored {
		for i := range rs {
			if rs[i].ID == s.id {
				rs[i].Claims.Add(s.verdict, s.caseLine)
			}
		}
	}
}
