package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/fixtures"
	"github.com/implicitbias/implicitbias/properties/cases"
)

type maxMarginOut struct {
	W         []float64 `json:"w"`
	Margin    float64   `json:"margin"`
	Direction []float64 `json:"direction"`
	Dual      []float64 `json:"dual"`
	Support   []int     `json:"support"`
	Decision  []float64 `json:"decision_values"`
	KKT       float64   `json:"kkt_residual"`
	Kernel    bool      `json:"kernel"`
}

func decodeMaxMargin(t *testing.T, out string) maxMarginOut {
	t.Helper()
	var m maxMarginOut
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	require.Equal(t, 1, strings.Count(out, "\n"), "one JSON object on one line")
	return m
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func csvRows(rows [][]float64) string {
	var b strings.Builder
	for _, r := range rows {
		for j, v := range r {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestMaxMargin: the SVM of the 2-D example data, checked from its KKT
// conditions: y_n⟨w, x_n⟩ ≥ 1 with equality on the support, w = Σ α_n y_n x_n,
// margin = 1/‖w‖.
func TestMaxMargin(t *testing.T) {
	code, out, errOut := runCLI("maxmargin", "--data", "testdata/sep2d.csv")
	require.Equal(t, exitOK, code, errOut)
	m := decodeMaxMargin(t, out)
	d, err := dataset.LoadCSV("testdata/sep2d.csv")
	require.NoError(t, err)
	w := make([]float64, d.D)
	for n := 0; n < d.N; n++ {
		floats.AddScaled(w, m.Dual[n]*d.Y[n], d.Row(n))
		q := d.Y[n] * floats.Dot(m.W, d.Row(n))
		assert.GreaterOrEqual(t, q, 1-1e-10)
		if m.Dual[n] > 0 {
			assert.InDelta(t, 1, q, 1e-10)
			assert.Contains(t, m.Support, n)
		}
	}
	assert.InDeltaSlice(t, m.W, w, 1e-12)
	assert.InDelta(t, 1/floats.Norm(m.W, 2), m.Margin, 1e-15)
	assert.InDelta(t, 1, floats.Norm(m.Direction, 2), 1e-15)
	assert.False(t, m.Kernel)
	assert.LessOrEqual(t, m.KKT, 1e-10)
}

// TestMaxMarginKernelReference runs the CLI on every kernel case of the
// reference set (labels and K written to files) and compares the margin
// (1e-8 relative) and the dual (the reference README: unique, strictly
// convex dual).
func TestMaxMarginKernelReference(t *testing.T) {
	cases, err := fixtures.KernelSVMCases()
	require.NoError(t, err)
	for _, c := range cases {
		var data [][]float64
		for n, y := range c.Y {
			data = append(data, []float64{y, float64(n)})
		}
		code, out, errOut := runCLI("maxmargin", "--data", writeFile(t, "labels.csv", "label,index\n"+csvRows(data)), "--kernel", writeFile(t, "k.csv", csvRows(c.K)))
		require.Equal(t, exitOK, code, errOut)
		m := decodeMaxMargin(t, out)
		assert.True(t, m.Kernel)
		assert.InDelta(t, c.Margin, m.Margin, 1e-8*c.Margin, c.File)
		assert.InDelta(t, 0, floats.Distance(m.Dual, c.Alpha, math.Inf(1))/floats.Max(c.Alpha), 1e-6, c.File)
		// w lives in the eigen-coordinates of K: ‖w‖ = 1/margin and the
		// decision values are K(α∘y).
		assert.InDelta(t, 1/m.Margin, floats.Norm(m.W, 2), 1e-9/m.Margin)
		assert.InDeltaSlice(t, c.Decision, m.Decision, 1e-7)
	}
}

func TestMaxMarginLinearReference(t *testing.T) {
	cases, err := fixtures.LinearSVMCases()
	require.NoError(t, err)
	c := cases[len(cases)-1]
	var data [][]float64
	for n, y := range c.Y {
		data = append(data, append([]float64{y}, c.X[n]...))
	}
	code, out, errOut := runCLI("maxmargin", "--data", writeFile(t, "d.csv", csvRows(data)))
	require.Equal(t, exitOK, code, errOut)
	m := decodeMaxMargin(t, out)
	assert.InDelta(t, c.GammaStar, m.Margin, 1e-8*c.GammaStar)
	assert.InDeltaSlice(t, c.WDir, m.Direction, 1e-6)
}

// TestMaxMarginNotSeparable: a point with both labels: exit status 3 and
// one line saying so.
func TestMaxMarginNotSeparable(t *testing.T) {
	p := writeFile(t, "ns.csv", "1,1,2\n-1,1,2\n1,0,1\n")
	code, out, errOut := runCLI("maxmargin", "--data", p)
	assert.Equal(t, exitNotSeparable, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "not separable")
	assert.Equal(t, 1, strings.Count(errOut, "\n"))
	// The same through a kernel: K = XXᵀ.
	k := writeFile(t, "k.csv", "5,5,2\n5,5,2\n2,2,1\n")
	code, _, errOut = runCLI("maxmargin", "--data", p, "--kernel", k)
	assert.Equal(t, exitNotSeparable, code, errOut)
}

func TestMaxMarginBadInput(t *testing.T) {
	good := "testdata/sep2d.csv"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no data", []string{"maxmargin"}, "--data FILE is required"},
		{"labels not ±1", []string{"maxmargin", "--data", writeFile(t, "l.csv", "2,1\n-1,2\n")}, "label 2"},
		{"missing kernel", []string{"maxmargin", "--data", good, "--kernel", filepath.Join(t.TempDir(), "nope.csv")}, "no such file"},
		{"kernel too few rows", []string{"maxmargin", "--data", good, "--kernel", writeFile(t, "k.csv", "1,0,0,0\n0,1,0,0\n")}, "2 rows; the data have 4 samples"},
		{"kernel ragged", []string{"maxmargin", "--data", good, "--kernel", writeFile(t, "k.csv", "1,0,0\n")}, "needs 4 per row"},
		{"kernel NaN", []string{"maxmargin", "--data", good, "--kernel", writeFile(t, "k.csv", "1,0,0,NaN\n")}, "not a finite number"},
		{"kernel asymmetric", []string{"maxmargin", "--data", good, "--kernel", writeFile(t, "k.csv", "1,0.5,0,0\n0,1,0,0\n0,0,1,0\n0,0,0,1\n")}, "not symmetric"},
		{"kernel indefinite", []string{"maxmargin", "--data", good, "--kernel", writeFile(t, "k.csv", "1,2,0,0\n2,1,0,0\n0,0,1,0\n0,0,0,1\n")}, "positive semi-definite"},
		{"stray argument", []string{"maxmargin", "--data", good, "extra"}, "unexpected argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(tc.args...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out)
			assert.Contains(t, errOut, tc.want)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one-line error, got %q", errOut)
		})
	}
	// A header line in the kernel file is skipped.
	code, _, errOut := runCLI("maxmargin", "--data", good, "--kernel", writeFile(t, "k.csv", "k1,k2,k3,k4\n1,0,0,0\n0,1,0,0\n0,0,1,0\n0,0,0,1\n"))
	assert.Equal(t, exitOK, code, errOut)
}

// TestKKT: the kkt command's table and JSON on the ReLU teacher data.
func TestKKT(t *testing.T) {
	code, out, errOut := runCLI("kkt", "--data", "testdata/relu_teacher.csv", "--steps", "2000")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "mlp:relu:2x16, exp loss")
	assert.Contains(t, out, "ε_NNLS")
	code, out, errOut = runCLI("kkt", "--data", "testdata/relu_teacher.csv", "--steps", "2000", "--json")
	require.Equal(t, exitOK, code, errOut)
	var rows []struct {
		Step      int
		Separated bool
		Eps       *float64 `json:"eps"`
		Delta     *float64 `json:"delta"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	require.Greater(t, len(rows), 3)
	first, last := -1, len(rows)-1
	for i, r := range rows {
		if r.Separated && first < 0 {
			first = i
		}
	}
	require.GreaterOrEqual(t, first, 0)
	require.NotNil(t, rows[last].Eps)
	assert.Less(t, *rows[last].Eps, *rows[first].Eps)
	assert.Less(t, *rows[last].Delta, *rows[first].Delta)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"kkt"}, "--data FILE is required"},
		{[]string{"kkt", "--data", "testdata/relu_teacher.csv", "--loss", "poly"}, "exp or logistic"},
		{[]string{"kkt", "--data", "testdata/relu_teacher.csv", "--model", "mlp:relu:2x8+bias"}, "not homogeneous"},
		{[]string{"kkt", "--data", "testdata/relu_teacher.csv", "--growth", "1"}, "--growth must be > 1"},
		{[]string{"kkt", "--data", "testdata/relu_teacher.csv", "--steps", "0"}, "--steps must be ≥ 1"},
	} {
		code, out, errOut := runCLI(tc.args...)
		assert.Equal(t, exitUsage, code, tc.args)
		assert.Empty(t, out)
		assert.Contains(t, errOut, tc.want)
	}
}

// TestReluTeacherData: testdata/relu_teacher.csv (the README's KKT table)
// is cases.DataCase with a bias-free two-layer ReLU teacher of width 8
// on unit vectors of ℝ⁵, seed 5, 10 samples with teacher margin ≥ 30% of
// the median: regenerate and compare.
func TestReluTeacherData(t *testing.T) {
	dc := cases.DataCase{Teacher: cases.ArchCase{Family: cases.FamMLP, Depth: 2, Width: 8, Act: cases.ActReLU, In: 5, Seed: 5}, N: 10, Classes: 2, Separable: true, MarginFrac: 0.3}
	want, _, _, err := dc.Build()
	require.NoError(t, err)
	got, err := dataset.LoadCSV("testdata/relu_teacher.csv")
	require.NoError(t, err)
	assert.Equal(t, want.Y, got.Y)
	assert.Equal(t, want.X, got.X, fmt.Sprint("regenerate with cases.DataCase, seed 5"))
}
