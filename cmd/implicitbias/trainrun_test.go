package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/fixtures"
)

// TestTrainDigitsMeanStandardized: the shared digits (1797 images, classes
// 0…9, raw pixels 0…16) with --reduce mean --standardize and otherwise
// default settings train without divergence and separate the classes:
// every sample's margin q_n = s_{n,y} − max_{j≠y} s_{n,j} > 0, and LL's
// (B4) separation (𝓛 < ℓ(b_f), computed on the sum).
func TestTrainDigitsMeanStandardized(t *testing.T) {
	path := filepath.Join(t.TempDir(), "digits.csv")
	require.NoError(t, os.WriteFile(path, fixtures.DigitsCSV(), 0o644))
	code, out, errOut := runCLI("train", "--data", path, "--loss", "ce", "--model", "linear/10", "--reduce", "mean", "--standardize")
	require.Equal(t, exitOK, code, errOut)
	var doc struct {
		QMin      float64   `json:"q_min"`
		Separated bool      `json:"separated"`
		Reduce    string    `json:"reduce"`
		Mean      []float64 `json:"feature_mean"`
		Scale     []float64 `json:"feature_scale"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Greater(t, doc.QMin, 0.0)
	assert.True(t, doc.Separated)
	assert.Equal(t, "mean", doc.Reduce)
	assert.Len(t, doc.Mean, 64)
	assert.Len(t, doc.Scale, 64)
	// The same data without the flags: the label hint, then with ce the
	// run on raw pixels.
	code, _, errOut = runCLI("train", "--data", path)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "use --loss ce --model linear/10")
}

// TestTrainStdin: --data - reads standard input (gzip too).
func TestTrainStdin(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stdin")
	require.NoError(t, err)
	_, err = f.WriteString("1,1,0\n-1,0,1\n")
	require.NoError(t, err)
	_, err = f.Seek(0, 0)
	require.NoError(t, err)
	saved := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = saved }()
	code, out, errOut := runCLI("train", "--data", "-", "--steps", "50")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, `"steps":50`)
}

// TestTrainInterrupt: SIGINT ends train with the JSON of the step it
// stopped at, exit status 130, and the trace holds every recorded step up
// to it, streamed while the run went on (issue 21: nothing was written).
func TestTrainInterrupt(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	require.NoError(t, os.WriteFile(data, []byte("1,1,0\n-1,0,1\n1,2,1\n"), 0o644))
	trace := filepath.Join(dir, "trace.csv")
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result)
	go func() {
		var o, e bytes.Buffer
		code := run([]string{"train", "--data", data, "--steps", "100000000", "--record", "10", "--trace", trace}, &o, &e)
		done <- result{code, o.String(), e.String()}
	}()
	// The trace is streamed: rows appear while the run goes on. Once there
	// are some, the signal handler is installed (it is before training).
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(trace)
		if strings.Count(string(b), "\n") > 5 {
			break
		}
		require.True(t, time.Now().Before(deadline), "no trace rows streamed")
		time.Sleep(10 * time.Millisecond)
	}
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGINT))
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("train did not stop at SIGINT")
	}
	assert.Equal(t, exitInterrupted, r.code, r.err)
	assert.Contains(t, r.err, "interrupted at step")
	var doc struct {
		Steps       int       `json:"steps"`
		Interrupted bool      `json:"interrupted"`
		Theta       []float64 `json:"theta"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.out), &doc), r.out)
	assert.True(t, doc.Interrupted)
	assert.Len(t, doc.Theta, 2)
	assert.Positive(t, doc.Steps)
	b, err := os.ReadFile(trace)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	last := strings.SplitN(lines[len(lines)-1], ",", 2)[0]
	assert.Equal(t, strconv.Itoa(doc.Steps), last, "the trace ends at the interrupted step")
	assert.Equal(t, doc.Steps/10+2, len(lines), "header + every 10th step from 0")
}
