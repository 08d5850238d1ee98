package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// separableCSV writes n points on the unit circle with |x₁| ≥ 0.2, labelled
// by the sign of x₁ (a separable case for every homogeneous model here).
func separableCSV(t *testing.T, n int) string {
	r := rand.New(rand.NewPCG(7, 7))
	var b strings.Builder
	b.WriteString("label,x1,x2\n")
	for k := 0; k < n; {
		a := 2 * math.Pi * r.Float64()
		x1, x2 := math.Cos(a), math.Sin(a)
		if math.Abs(x1) < 0.2 {
			continue
		}
		fmt.Fprintf(&b, "%g,%.17g,%.17g\n", math.Copysign(1, x1), x1, x2)
		k++
	}
	p := filepath.Join(t.TempDir(), "sep.csv")
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	return p
}

// TestTrainLossBasedFarBelowFloat64: the "must show": the loss-based
// schedule on a separable 2-layer ReLU case reaches log 𝓛 < −2000 in under
// 10 s, with finite margins that satisfy LL Lemma A.5 for the exponential
// loss, 0 ≤ γ̄ − γ̃ ≤ log N/ρ^L.
func TestTrainLossBasedFarBelowFloat64(t *testing.T) {
	const n = 24
	data := separableCSV(t, n)
	start := time.Now()
	code, out, errOut := runCLI("train", "--data", data, "--model", "mlp:relu:2x16", "--loss", "exp", "--opt", "lossbased",
		"--steps", "1000000", "--stop-log-loss", "-2000", "--record", "1000")
	elapsed := time.Since(start)
	require.Equal(t, exitOK, code, errOut)
	assert.Less(t, elapsed, 10*time.Second)
	var res struct {
		Steps            int
		LogLoss          *float64 `json:"log_loss"`
		LogT             *float64 `json:"log_T"`
		Norm, Degree     *float64
		NormalizedMargin *float64 `json:"normalized_margin"`
		Smoothed         *float64 `json:"smoothed_margin"`
		Stalled          bool
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.NotNil(t, res.LogLoss, "log_loss must be finite")
	require.NotNil(t, res.NormalizedMargin, "normalized_margin must be finite")
	require.NotNil(t, res.Smoothed, "smoothed_margin must be finite")
	require.NotNil(t, res.Norm)
	require.NotNil(t, res.LogT)
	assert.Less(t, *res.LogLoss, -2000.0)
	assert.False(t, res.Stalled)
	assert.Equal(t, 2.0, *res.Degree)
	gbar, gt := *res.NormalizedMargin, *res.Smoothed
	assert.Greater(t, gt, 0.0)
	// LL Lemma A.5, exponential loss: 0 ≤ γ̄ − γ̃ ≤ log N/ρ^L (up to the
	// rounding of log 𝓛 ≈ 2000 and q_min: 1e-12 relative).
	gap, bound := gbar-gt, math.Log(n)/math.Pow(*res.Norm, *res.Degree)
	tol := 1e-12 * gbar
	assert.GreaterOrEqual(t, gap, -tol)
	assert.LessOrEqual(t, gap, bound+tol)
	// Hence the relative gap is at most log N/|log 𝓛|.
	assert.LessOrEqual(t, gap/gbar, math.Log(n)/-*res.LogLoss+1e-12)
	t.Logf("%d steps in %v: log 𝓛 = %.6g, log T = %.6g, ρ = %.6g, γ̄ = %.10g, γ̃ = %.10g, γ̄ − γ̃ = %.3g ≤ log N/ρ^L = %.3g",
		res.Steps, elapsed, *res.LogLoss, *res.LogT, *res.Norm, gbar, gt, gap, bound)
}

// TestTrainFlow: the flow optimizer through the CLI reports the true flow
// time, and the trace carries the integrator's local error.
func TestTrainFlow(t *testing.T) {
	data := separableCSV(t, 12)
	trace := filepath.Join(t.TempDir(), "trace.csv")
	code, out, errOut := runCLI("train", "--data", data, "--model", "linear", "--loss", "logistic", "--opt", "flow", "--tol", "1e-10",
		"--steps", "5000", "--stop-log-loss", "-40", "--trace", trace)
	require.Equal(t, exitOK, code, errOut)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.LessOrEqual(t, res["log_loss"].(float64), -40.0)
	// Flow time: 𝓛 ≈ N·e^{−γρ} with ρ ≈ log T/γ, so log T ≈ −log 𝓛 + O(log N).
	assert.InDelta(t, -res["log_loss"].(float64), res["log_T"].(float64), 5)
	b, err := os.ReadFile(trace)
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(strings.SplitN(string(b), "\n", 2)[0], "log_eta,local_error"))
	for _, args := range [][]string{
		{"--opt", "flow", "--tol", "2"},
		{"--stop-log-loss", "1"},
		{"--opt", "lossbased", "--lr", "-1"},
	} {
		code, _, errOut := runCLI(append([]string{"train", "--data", data}, args...)...)
		assert.Equal(t, exitUsage, code, args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
	}
}
