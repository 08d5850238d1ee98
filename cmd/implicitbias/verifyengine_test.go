package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/engines/fakeengine"
)

// TestMain lets the test binary be the fake engine: `TESTBINARY
// fakeengine -behave …` runs fakeengine.Main (CI needs no Python); it
// removes the folders the tests share.
func TestMain(m *testing.M) {
	fakeengine.ServeIfAsked()
	code := m.Run()
	for _, dir := range []string{fashion.dir, sections.dir} { // fakeFashion's, sectionsReport's
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

func fakeEngine(args ...string) string { return fakeengine.Command(args...) }

// TestVerifyEngineFake drives the whole harness through the fake Go
// engine: answering correctly it gives our engine's verdicts on LL-lin
// (the same cases and statuses, the statistics to rounding; the fault
// control, planted in our engine, is not run on it); answering garbage,
// hanging or dying on some cases it gives one engine-error line per such
// case, exit status 1 and nothing that holds. The misbehaving engines
// answer LL-C10's runs: the same requests as LL-lin's (kkt.Trained's GD
// runs of KKT cases, recorded), at a quarter of the CPU time (LL-lin's
// 10⁵-step linear runs are the longest of the KKT family; issue 28).
func TestVerifyEngineFake(t *testing.T) {
	if testing.Short() {
		t.Skip("trains LL-lin's cases twice and LL-C10's three times")
	}
	t.Parallel() // runCLI keeps no state between runs; the hanging engine's timeouts wait beside other tests
	only := []string{"verify", "--only", "LL-lin", "--json", "--failures", "off"}
	code, ours, errOut := runCLI(only...)
	require.Equal(t, exitOK, code, errOut)
	code, theirs, errOut := runCLI(append(only, "--engine", fakeEngine())...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "engine implicitbias (Go)")
	a, b := entryOf(t, ours), entryOf(t, theirs)
	assert.Equal(t, "holds", b.Status)
	assert.Equal(t, a.Cases, b.Cases)
	// The same θ bit for bit; the time T = Σ η the answer's records carry
	// is summed per gap between records, ours per step: the statistic
	// agrees to rounding.
	require.NotNil(t, a.Statistic)
	require.NotNil(t, b.Statistic)
	assert.InEpsilon(t, *a.Statistic, *b.Statistic, 1e-9)
	assert.Equal(t, a.WorstCase, b.WorstCase)
	assert.Equal(t, a.Controls-2, b.Controls, "the fault controls (preconditioner, missing-zero-grad) are planted in our engine only")

	for _, behave := range []string{"garbage", "hang", "die"} {
		t.Run(behave, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI("verify", "--only", "LL-C10", "--failures", "off", "--engine-timeout", "3s",
				"--engine", fakeEngine("-behave", behave, "-on", "loss=exp"))
			require.Equal(t, exitViolated, code, errOut)
			assert.Contains(t, out, "engine-error")
			assert.NotContains(t, out, " holds ")
			lines := strings.Count(out, "\n  engine error: ")
			assert.Positive(t, lines)
			assert.Contains(t, out, fmt.Sprintf("(%d engine errors)", lines))
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "  engine error: ") {
					assert.Contains(t, l, "loss=exp", "only the cases the fake misbehaves on")
				}
			}
		})
	}
}

// jsonEntry is what the test reads of verify --json's entries.
type jsonEntry struct {
	ID, Status      string
	WorstCase       string `json:"worst_case"`
	Cases, Controls int
	Statistic       *float64
	NotApplicable   int `json:"not_applicable"`
}

func entryOf(t *testing.T, out string) jsonEntry {
	t.Helper()
	var doc struct{ Entries []jsonEntry }
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Entries, 1)
	return doc.Entries[0]
}

// TestVerifyEnginePyTorch runs LL-B3 through the PyTorch adapter
// (Debian's python3-torch; skipped without it): the Euler identity holds
// on PyTorch's Φ and ∇Φ (eval requests: the cheapest claim; the GD claims
// train 10⁵-step runs in Python, measured in docs/engines.md), with the
// cases the protocol cannot express counted not applicable.
func TestVerifyEnginePyTorch(t *testing.T) {
	const python = "/usr/bin/python3" // Debian's, which has python3-torch
	if testing.Short() {
		t.Skip("runs Python")
	}
	t.Parallel() // Python's start and import of torch wait beside other tests
	// find_spec looks torch up without importing it (an import costs a
	// second of CPU, which the adapter pays again).
	if err := exec.Command(python, "-c", "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch') is None)").Run(); err != nil {
		t.Skipf("python3-torch is not installed (apt-get install -y python3-torch): %v", err)
	}
	code, out, errOut := runCLI("verify", "--only", "LL-B3", "--json", "--failures", "off",
		"--engine", python+" ../../engines/pytorch/engine.py")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "engine pytorch")
	e := entryOf(t, out)
	assert.Equal(t, "holds", e.Status)
	assert.Equal(t, 100, e.Cases)
}

// TestVerifyEngineFakeWired runs claims wired after LL-lin through the
// fake Go engine (our engine behind the protocol): LL-B4 (eval requests,
// our loss on the engine's Φ and ∇Φ), ZD-span (GD with static weights on
// the wire, every step recorded), LL-K1 (the loss-based rule, the engine's
// log η per step). Each holds on the same number of cases as on our
// engine, and the cases the protocol cannot carry (models without an
// nn.Sequential, moving weights, heavy ball, Adam) are counted not
// applicable, never as holds.
func TestVerifyEngineFakeWired(t *testing.T) {
	if testing.Short() {
		t.Skip("trains each claim's cases twice")
	}
	t.Parallel()
	for _, tc := range []struct {
		id        string
		someNotOn bool // some cases are not applicable on another engine
	}{
		{"LL-B4", true},
		{"ZD-span", true},
		{"LL-K1", false},
	} {
		t.Run(tc.id, func(t *testing.T) {
			only := []string{"verify", "--only", tc.id, "--json", "--failures", "off"}
			code, ours, errOut := runCLI(only...)
			require.Equal(t, exitOK, code, errOut)
			code, theirs, errOut := runCLI(append(only, "--engine", fakeEngine())...)
			require.Equal(t, exitOK, code, errOut)
			a, b := entryOf(t, ours), entryOf(t, theirs)
			assert.Equal(t, "holds", b.Status)
			assert.Equal(t, a.Cases, b.Cases)
			if tc.someNotOn {
				assert.Positive(t, b.NotApplicable)
				assert.Less(t, b.NotApplicable, b.Cases)
			} else {
				assert.Zero(t, b.NotApplicable)
			}
		})
	}
}
