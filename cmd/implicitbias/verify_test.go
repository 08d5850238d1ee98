package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/suite"
	"github.com/implicitbias/implicitbias/report"
)

// TestShardsMerge: two shards merged give the unsharded result.
func TestShardsMerge(t *testing.T) {
	sel := "LL-B2a,LL-B3,LL-B3m,LL-B4"
	_, all, _ := runCLI("verify", "--only", sel, "--json")
	dir := t.TempDir()
	var files []string
	for _, s := range []string{"0/2", "1/2"} {
		code, out, errOut := runCLI("verify", "--only", sel, "--json", "--shard", s)
		require.Equal(t, exitOK, code, errOut)
		p := filepath.Join(dir, strings.ReplaceAll(s, "/", "-")+".json")
		require.NoError(t, os.WriteFile(p, []byte(out), 0o644))
		files = append(files, p)
	}
	code, merged, errOut := runCLI(append([]string{"merge"}, files...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.JSONEq(t, all, merged)

	for _, bad := range []string{"2/2", "x", "1/0", "-1/3"} {
		code, _, errOut := runCLI("verify", "--shard", bad)
		assert.Equal(t, exitUsage, code, bad)
		assert.Contains(t, errOut, "want I/N")
	}
	code, _, errOut = runCLI("merge", files[0], files[0])
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "appears in two documents")
	code, _, _ = runCLI("merge")
	assert.Equal(t, exitUsage, code)
}

func TestVerifyReport(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runCLI("verify", "--only", "LL-B3", "--report", dir)
	require.Equal(t, exitOK, code, errOut)
	for _, f := range []string{"index.html", "report.md", "report.json", "figures/LL-B3-cases.png", "figures/LL-B3-cases.svg"} {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
		assert.Positive(t, st.Size(), f)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	var doc report.Document
	require.NoError(t, json.Unmarshal(b, &doc))
	assert.Equal(t, []string{"figures/LL-B3-cases.png", "figures/LL-B3-cases.svg"}, doc.Entries[0].Figures)
	// The controls' cases the run kept (properties.Runner.ControlRuns):
	// drawn on the plot, and each of the catalog's controls listed caught
	// (TestReportInChromium opens a larger report, where Chromium is).
	n, err := report.ControlPixels(filepath.Join(dir, "figures", "LL-B3-cases.png"))
	require.NoError(t, err)
	assert.Positive(t, n, "no control drawn")
	es, err := suite.Select("LL-B3")
	require.NoError(t, err)
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	assert.Equal(t, len(es[0].Controls), strings.Count(string(page), `<td class="caught">caught</td>`))
}

// TestHunt: dropping the bias-free hypothesis of the Euler identity yields a
// shrunk counterexample.
func TestHunt(t *testing.T) {
	code, out, errOut := runCLI("verify", "--hunt", "LL-B3", "--drop", "bias", "--seed", "3")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "ARG_0:")
	assert.Contains(t, out, "+bias")
	assert.Contains(t, out, "Reproduce: implicitbias verify --hunt LL-B3 --drop bias --seed 3")

	code, _, errOut = runCLI("verify", "--hunt", "LL-B3", "--drop", "nonsense")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "its keys: bias, activation, degree")
	code, _, errOut = runCLI("verify", "--hunt", "LL-B3")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "go together")
}

// TestInterrupted: a cancelled run returns what finished, marked.
func TestInterrupted(t *testing.T) {
	es, err := suite.Select("LL-B3,LL-B4")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rs := runEntries(ctx, properties.NewRunner(1, properties.Quick), es, newProgress(nil, len(es)))
	for _, r := range rs {
		if r.ID != "" {
			assert.True(t, r.Interrupted)
		}
	}
}

// TestEveryControlHasAKey: the hunt mode can reach every negative control.
func TestEveryControlHasAKey(t *testing.T) {
	for _, e := range suite.Entries() {
		for _, c := range e.Controls {
			assert.NotEmpty(t, c.Meta().Drops, "%s: control %q has no Drops key", e.ID, c.Meta().Name)
		}
	}
}
