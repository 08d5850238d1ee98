package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/properties/suite"
	"github.com/implicitbias/implicitbias/theorems"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestVerifyTable(t *testing.T) {
	code, out, errOut := runCLI("verify", "--only", "LL-B3,LL-B2a")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "ID")
	assert.Contains(t, out, "LL-B3 ")
	assert.Contains(t, out, "LL-B2a")
	assert.Contains(t, out, "holds")
	assert.Contains(t, out, "caught")
	assert.Contains(t, out, "2 entries checked: 2 holds, 0 violated")
	// Catalog order, whatever the order asked for.
	assert.Less(t, strings.Index(out, "LL-B2a"), strings.Index(out, "LL-B3 "))
}

func TestVerifyJSON(t *testing.T) {
	code, out, _ := runCLI("verify", "--only", "LL-B3", "--json", "--seed", "7")
	require.Equal(t, exitOK, code)
	var doc struct {
		SchemaVersion int    `json:"schema_version"`
		Seed          int64  `json:"seed"`
		Budget        string `json:"budget"`
		Entries       []struct {
			ID, Status     string
			Cases          int
			Statistic      *float64
			Bound          *float64
			Controls       int `json:"controls"`
			ControlsCaught int `json:"controls_caught"`
		} `json:"entries"`
		Totals map[string]int `json:"totals"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, 1, doc.SchemaVersion)
	assert.Equal(t, int64(7), doc.Seed)
	assert.Equal(t, "quick", doc.Budget)
	require.Len(t, doc.Entries, 1)
	e := doc.Entries[0]
	assert.Equal(t, "LL-B3", e.ID)
	assert.Equal(t, "holds", e.Status)
	assert.Equal(t, 100, e.Cases)
	require.NotNil(t, e.Statistic)
	assert.LessOrEqual(t, *e.Statistic, *e.Bound)
	assert.Equal(t, e.Controls, e.ControlsCaught)
	assert.Equal(t, 1, doc.Totals["holds"])
}

// TestVerifyDeterministic: the same seed gives the same bytes.
func TestVerifyDeterministic(t *testing.T) {
	_, a, _ := runCLI("verify", "--only", "LL-B4,LL-B2a", "--json")
	_, b, _ := runCLI("verify", "--only", "LL-B4,LL-B2a", "--json")
	assert.Equal(t, a, b)
}

// TestBadInput: every malformed invocation or file gives a one-line error
// on stderr and exit status 2, never a panic.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	good := "testdata/sep2d.csv"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"unknown ID", []string{"verify", "--only", "LL-Z9"}, `unknown catalog entry "LL-Z9"`},
		{"bad budget", []string{"verify", "--budget", "huge"}, "unknown budget"},
		{"bad seed", []string{"verify", "--seed", "x"}, "invalid value"},
		{"unknown flag", []string{"verify", "--frob"}, "flag provided but not defined"},
		{"stray argument", []string{"verify", "LL-B3"}, "unexpected argument"},
		{"no data", []string{"train"}, "--data FILE is required"},
		{"missing file", []string{"train", "--data", filepath.Join(dir, "nope.csv")}, "no such file"},
		{"NaN in data", []string{"train", "--data", file("nan.csv", "1,2\n-1,NaN\n")}, "NaN is not finite"},
		{"ragged rows", []string{"train", "--data", file("ragged.csv", "1,2,3\n-1,2\n")}, "2 columns, but earlier rows have 3"},
		{"empty data", []string{"train", "--data", file("empty.csv", "")}, "no samples"},
		{"header only", []string{"train", "--data", file("header.csv", "y,x\n")}, "no samples"},
		{"labels not ±1", []string{"train", "--data", file("labels.csv", "2,1\n-1,2\n")}, "label 2"},
		{"lr ≤ 0", []string{"train", "--data", good, "--lr", "0"}, "learning rate must be"},
		{"lr NaN", []string{"train", "--data", good, "--lr", "NaN"}, "learning rate must be"},
		{"steps < 0", []string{"train", "--data", good, "--steps", "-3"}, "--steps must be ≥ 0"},
		{"unknown model", []string{"train", "--data", good, "--model", "resnet"}, "unknown model family"},
		{"width 0", []string{"train", "--data", good, "--model", "mlp:relu:2x0"}, "width must be ≥ 1"},
		{"unknown loss", []string{"train", "--data", good, "--loss", "hinge"}, "unknown loss"},
		{"unknown optimizer", []string{"train", "--data", good, "--opt", "lbfgs"}, "unknown optimizer"},
		{"ce without K outputs", []string{"train", "--data", good, "--loss", "ce"}, "≥ 2 outputs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(tc.args...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out)
			assert.Contains(t, errOut, tc.want)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one-line error, got %q", errOut)
		})
	}
}

// TestUncheckedID: a catalog ID without a check is a clear error (while any
// is left).
func TestUncheckedID(t *testing.T) {
	checked := map[string]bool{}
	for _, e := range suite.Entries() {
		checked[e.ID] = true
	}
	for _, c := range theorems.Catalog() {
		if !checked[c.ID] {
			code, _, errOut := runCLI("verify", "--only", c.ID)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, errOut, "has no check yet")
			return
		}
	}
	t.Skip("every catalog entry has a check")
}

func TestTrain(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.csv")
	code, out, errOut := runCLI("train", "--data", "testdata/sep2d.csv", "--model", "mlp:relu:2x8", "--loss", "logistic", "--lr", "0.05", "--steps", "300", "--record", "100", "--trace", trace)
	require.Equal(t, exitOK, code, errOut)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	for _, k := range []string{"steps", "log_loss", "norm", "degree", "normalized_margin", "smoothed_margin", "theta"} {
		assert.Contains(t, res, k)
	}
	assert.Equal(t, 300.0, res["steps"])
	assert.Equal(t, 2.0, res["degree"])
	b, err := os.ReadFile(trace)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	assert.Len(t, lines, 5) // header + steps 0, 100, 200, 300
	assert.True(t, strings.HasPrefix(lines[0], "step,log_T,log_loss"))
}

func TestHelp(t *testing.T) {
	code, out, _ := runCLI("help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "verify")
	code, out, _ = runCLI("help", "train")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "mlp:relu:2x16")
	code, _, _ = runCLI("help", "nope")
	assert.Equal(t, exitUsage, code)
}
