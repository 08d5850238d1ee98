package main

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/check"
)

// goldenRun is a committed PyTorch run (check/testdata/pytorch).
func goldenRun(name string) string {
	return filepath.Join("..", "..", "check", "testdata", "pytorch", name)
}

// validRun is a small valid trajectory: 3 records of a 2-3-1 ReLU net on two
// samples, with modules and outputs.
func validRun() *check.Trajectory {
	t := &check.Trajectory{
		Steps: []int{0, 1, 10}, LR: []float64{0.1, 0.1, 0.1}, Reduction: "mean",
		Params: []check.Param{{Name: "0.weight", Shape: []int{3, 2}}, {Name: "2.weight", Shape: []int{1, 3}}},
		X:      []float64{1, 0.5, -1, 0.25}, N: 2, D: 2, Y: []float64{1, 0},
		Modules: []string{"Linear(in_features=2, out_features=3, bias=False)", "ReLU()", "Linear(in_features=3, out_features=1, bias=False)"},
	}
	for r := range 3 {
		th := make([]float64, 9)
		for i := range th {
			th[i] = float64((i+r)%5)/4 - 0.3
		}
		t.Theta = append(t.Theta, th)
	}
	return t
}

// npzBytes writes t in the trajectory format.
func npzBytes(t *testing.T, tr *check.Trajectory) []byte {
	var buf bytes.Buffer
	require.NoError(t, check.WriteNPZ(&buf, tr))
	return buf.Bytes()
}

// rezip rewrites an NPZ archive: edit gets every member's name and bytes
// and returns the bytes to keep (nil drops the member).
func rezip(t *testing.T, b []byte, edit func(name string, data []byte) []byte) []byte {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		rc, err := f.Open()
		require.NoError(t, err)
		data, err := io.ReadAll(rc)
		require.NoError(t, err)
		rc.Close()
		if data = edit(f.Name, data); data == nil {
			continue
		}
		w, err := zw.Create(f.Name)
		require.NoError(t, err)
		w.Write(data)
	}
	require.NoError(t, zw.Close())
	return out.Bytes()
}

// member returns one member of an NPZ archive.
func member(t *testing.T, b []byte, name string) []byte {
	var got []byte
	rezip(t, b, func(n string, data []byte) []byte {
		if n == name {
			got = data
		}
		return data
	})
	require.NotNil(t, got, name)
	return got
}

// badRuns writes the malformed trajectory files of the bad-input table
// (badinput_test.go) into dir.
func badRuns(t *testing.T, dir string) map[string]string {
	valid := npzBytes(t, validRun())
	short := validRun()
	short.Steps, short.LR, short.Theta = short.Steps[:2], short.LR[:2], short.Theta[:2]
	shortBytes := npzBytes(t, short)
	bn := validRun()
	bn.Modules[1] = "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)"
	wrongOut := validRun()
	wrongOut.Outputs = []float64{5, 7}
	noData := validRun()
	noData.X, noData.Y, noData.N, noData.D, noData.Modules = nil, nil, 0, 0, nil
	wide := validRun()
	wide.Params[1].Shape = []int{1, 4}
	wide.Modules = nil
	for i := range wide.Theta {
		wide.Theta[i] = append(wide.Theta[i], 0.5)
	}
	files := map[string][]byte{
		"run_ok.npz":      valid,
		"run_csv.npz":     []byte("step,lr\n0,0.1\n"),
		"run_nostep.npz":  rezip(t, valid, func(n string, d []byte) []byte { return keepUnless(n == "step.npy", d) }),
		"run_nolr.npz":    rezip(t, valid, func(n string, d []byte) []byte { return keepUnless(n == "lr.npy", d) }),
		"run_notheta.npz": rezip(t, valid, func(n string, d []byte) []byte { return keepUnless(strings.HasPrefix(n, "theta/"), d) }),
		"run_nan.npz":     rezip(t, valid, func(n string, d []byte) []byte { return withNaN(n == "theta/2.weight.npy", d) }),
		"run_snapshot.npz": rezip(t, valid, func(n string, d []byte) []byte {
			return replaceIf(n == "theta/2.weight.npy", d, member(t, shortBytes, n))
		}),
		"run_badnpy.npz": rezip(t, valid, func(n string, d []byte) []byte {
			return replaceIf(n == "lr.npy", d, []byte("\x93NUMPY\x01\x00\xff\xff"))
		}),
		"run_bn.npz":     npzBytes(t, bn),
		"run_out.npz":    npzBytes(t, wrongOut),
		"run_nodata.npz": npzBytes(t, noData),
		"run_chain.npz":  npzBytes(t, wide),
	}
	paths := map[string]string{}
	for name, b := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		paths[name] = p
	}
	return paths
}

func keepUnless(drop bool, d []byte) []byte {
	if drop {
		return nil
	}
	return d
}

func replaceIf(cond bool, d, with []byte) []byte {
	if cond {
		return with
	}
	return d
}

// withNaN overwrites the last float64 of an .npy member with NaN.
func withNaN(cond bool, d []byte) []byte {
	if !cond {
		return d
	}
	d = append([]byte(nil), d...)
	binary.LittleEndian.PutUint64(d[len(d)-8:], math.Float64bits(math.NaN()))
	return d
}

// TestCheckPyTorchRun runs the command on the committed Adam run: the table
// (assumption-failed GD claims with the reason), the measured curves, the
// mapping line, JSON and the HTML report; exit status 5 (not gradient
// descent, nothing violated).
func TestCheckPyTorchRun(t *testing.T) {
	run := goldenRun("digits_adam.npz")
	code, out, errOut := runCLI("check", "--run", run)
	require.Equal(t, exitNotGD, code, errOut)
	assert.Contains(t, out, "model mlp:relu:2x8, loss logistic, step rule gd (the recorded η), 11 records")
	assert.Contains(t, out, "mapping: the engine's outputs at the last record agree with the run's")
	assert.Contains(t, out, "gradient-descent premise (every recorded step is −η∇𝓛): violated")
	assert.Contains(t, out, "LL-4.4 assumption-failed: not full-batch gradient descent on this loss")
	assert.Contains(t, out, "Measured at every record")
	assert.Regexp(t, `LL-B3 +LL Thm B.3 .* 11 +holds`, out)

	code, out, errOut = runCLI("check", "--run", run, "--json")
	require.Equal(t, exitNotGD, code, errOut)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)

	dir := t.TempDir()
	code, _, errOut = runCLI("check", "--run", run, "--report", dir)
	require.Equal(t, exitNotGD, code, errOut)
	for _, f := range []string{"index.html", "report.md", "report.json"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "<h1>implicitbias check</h1>")
	assert.Contains(t, string(page), "Run digits_adam.npz, model mlp:relu:2x8; gradient-descent premise violated.")
	assert.NotContains(t, string(page), "catalog entries have no check")
	figs, _ := filepath.Glob(filepath.Join(dir, "figures", "*kkt*.png"))
	assert.NotEmpty(t, figs, "the measured KKT residuals are drawn")
}

// TestTrainExportCheck: train --export-npz writes a run check reads back,
// with the same model and the gradient-descent premise verified; --init
// starts from a trajectory file's first record.
func TestTrainExportCheck(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "own.npz")
	code, _, errOut := runCLI("train", "--data", "testdata/sep2d.csv", "--model", "mlp:lrelu0.2:2x6", "--loss", "logistic",
		"--lr", "0.1", "--steps", "600", "--record", "50", "--export-npz", run)
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := runCLI("check", "--run", run)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "model mlp:lrelu0.2:2x6, loss logistic")
	assert.Contains(t, out, "agree with the run's to 0 relative")
	assert.Contains(t, out, "gradient-descent premise (every recorded step is −η∇𝓛): holds")
	assert.NotContains(t, out, "note:")

	// --init from the file: the same first θ, so the same run.
	again := filepath.Join(dir, "again.npz")
	code, _, errOut = runCLI("train", "--data", "testdata/sep2d.csv", "--model", "mlp:lrelu0.2:2x6", "--loss", "logistic",
		"--lr", "0.1", "--steps", "600", "--record", "50", "--seed", "99", "--init", run, "--export-npz", again)
	require.Equal(t, exitOK, code, errOut)
	a, err := check.ReadFile(run)
	require.NoError(t, err)
	b, err := check.ReadFile(again)
	require.NoError(t, err)
	assert.Equal(t, a.Theta, b.Theta)
}

// TestCheckModelPermutesCNN: --model with a PyTorch-layout CNN file permutes
// it as the mapped case does (the mapping line: PyTorch's outputs
// reproduced), and a spec whose parameters are not the modules' is bad input
// naming both.
func TestCheckModelPermutesCNN(t *testing.T) {
	run := goldenRun("map_conv_max.npz")
	code, out, errOut := runCLI("check", "--run", run, "--model", "cnn2d:8x8x1:relu:3c3-valid-max2")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "mapping: the engine's outputs at the last record agree with the run's")

	code, _, errOut = runCLI("check", "--run", run, "--model", "cnn2d:8x8x1:relu:3c3-max2")
	require.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "--model cnn2d:8x8x1:relu:3c3-max2 disagrees with the file's modules, which map to cnn2d:8x8x1:relu:3c3-valid-max2")
}

// TestCheckOnly: --only runs the claims named and no other; an unknown ID is
// bad input; the GD premise of a correct run exits 0.
func TestCheckOnly(t *testing.T) {
	run := goldenRun("digits_gd.npz")
	code, out, errOut := runCLI("check", "--run", run, "--only", "LL-B3,LL-4.1")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `LL-B3 +LL Thm B.3`, out)
	assert.Regexp(t, `LL-4.1 +LL Thm 4.1`, out)
	assert.NotRegexp(t, `LL-4.4 +LL Thm 4.4`, out)
	assert.Contains(t, out, "2 entries checked")
	code, _, errOut = runCLI("check", "--run", run, "--only", "LL-9.9")
	require.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `"LL-9.9" is not a catalog ID`)
}

// TestTrainExportMean: --reduce mean exports reduction "mean" with the
// mean's step, so check finds the steps to be −η∇𝓛 (it wrote "sum" with the
// mean's lr, and a correct run failed the premise by a factor n).
func TestTrainExportMean(t *testing.T) {
	run := filepath.Join(t.TempDir(), "mean.npz")
	code, _, errOut := runCLI("train", "--data", "testdata/sep2d.csv", "--model", "mlp:lrelu0.2:2x6", "--loss", "logistic",
		"--reduce", "mean", "--lr", "1", "--steps", "300", "--record", "50", "--export-npz", run)
	require.Equal(t, exitOK, code, errOut)
	tr, err := check.ReadFile(run)
	require.NoError(t, err)
	assert.Equal(t, "mean", tr.Reduction)
	code, out, errOut := runCLI("check", "--run", run, "--only", "LL-B3")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "gradient-descent premise (every recorded step is −η∇𝓛): holds")
}
