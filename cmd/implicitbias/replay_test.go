package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/properties/suite"
	"github.com/implicitbias/implicitbias/report"
	"github.com/implicitbias/implicitbias/theorems"
)

// worstCase runs verify and returns the worst case line of the entry.
func worstCase(t *testing.T, id, seed string) string {
	code, out, errOut := runCLI("verify", "--only", id, "--seed", seed, "--json", "--failures", "off")
	require.Equal(t, exitOK, code, errOut)
	var d report.Document
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	require.Len(t, d.Entries, 1)
	return d.Entries[0].WorstCase
}

// TestVerifyCase: the case line verify printed reruns alone, verbosely,
// with the verdict the run gave it; a line no draw prints is an error.
func TestVerifyCase(t *testing.T) {
	line := worstCase(t, "LL-B3", "7")
	code, out, errOut := runCLI("verify", "--only", "LL-B3", "--seed", "7", "--case", line)
	require.Equal(t, exitOK, code, errOut)
	for _, want := range []string{"entry      LL-B3", "case       " + line, "status     holds", "statistic  ", "detail     ", "drawn      draw "} {
		assert.Contains(t, out, want)
	}
	code, _, errOut = runCLI("verify", "--only", "LL-B3", "--seed", "8", "--case", line)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "no draw of LL-B3 at seed 8 (budget quick) prints as")
}

// TestFailFiles: a violated entry's case is stored with the command that
// reruns it; the next run that selects the entry reruns it first and adds
// its verdict; a stored case that now holds is removed. (The violated
// result is made by hand: the engine has no violation to find.)
func TestFailFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "failures")
	line := worstCase(t, "LL-B3", "7")
	info, _ := theorems.Lookup("LL-B3")
	r := theorems.Result{Info: info, Claims: theorems.Summary{ID: "LL-B3"}}
	r.Claims.Add(theorems.Verdict{Status: theorems.Violated, Statistic: 1, Bound: 1e-10, Detail: "planted"}, line)
	var msg strings.Builder
	require.NoError(t, storeFailures(dir, 7, "quick", []theorems.Result{r}, &msg))
	p := failurePath(dir, "LL-B3")
	assert.Contains(t, msg.String(), p)
	var f failure
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &f))
	assert.Equal(t, line, f.Case)
	assert.Equal(t, "implicitbias verify --only LL-B3 --seed 7 --budget quick --case "+shellQuote(line), f.Rerun)

	// The next verify of LL-B3 (another seed) reruns the stored case first.
	code, out, errOut := runCLI("verify", "--only", "LL-B3", "--seed", "1", "--json", "--failures", dir)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "rerun first, the stored case of LL-B3: holds")
	assert.Contains(t, errOut, "removed")
	assert.NoFileExists(t, p)
	var d report.Document
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	assert.Equal(t, 101, d.Entries[0].Cases, "the fresh 100 cases and the stored one")

	// A stored case that still fails makes its entry violated.
	entries, err := suite.Select("LL-B3")
	require.NoError(t, err)
	rs := []theorems.Result{{Info: info, Claims: theorems.Summary{ID: "LL-B3"}}}
	addStored(rs, []storedVerdict{{"LL-B3", line, theorems.Verdict{Status: theorems.Violated, Statistic: 1, Bound: 0}}})
	assert.Equal(t, theorems.Violated, rs[0].Status())
	// A case the generators no longer draw is left in place.
	f.Case = "no such case"
	b, _ = json.Marshal(f)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	var w strings.Builder
	stored, err := rerunStored(dir, entries, &w)
	require.NoError(t, err)
	assert.Empty(t, stored)
	assert.Contains(t, w.String(), "no longer drawn")
	assert.FileExists(t, p)
}
