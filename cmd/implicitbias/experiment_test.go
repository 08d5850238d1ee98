package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// experimentTinyModel is a bias-free CNN on 28×28 images small enough that
// an epoch on 1000 images costs a fraction of a second.
const experimentTinyModel = "cnn2d:28x28x1:relu:4c4s4,4c3-max7:8:10+bias@1"

// fakeFashion returns a Fashion-MNIST folder of synthetic images: 1100
// training and 1000 test images, 10 classes in turn, each a bright 3×5
// patch at a class's own place on dim noise, as gzipped IDX files. The
// tests only read it: it is written once per test binary (TestMain removes
// it).
func fakeFashion(t *testing.T) string {
	t.Helper()
	fashion.Do(func() {
		fashion.dir, fashion.err = os.MkdirTemp("", "implicitbias-fashion-")
		if fashion.err == nil {
			fashion.err = writeFakeFashion(fashion.dir)
		}
	})
	require.NoError(t, fashion.err)
	return fashion.dir
}

// fashion is fakeFashion's folder.
var fashion struct {
	sync.Once
	dir string
	err error
}

func writeFakeFashion(dir string) error {
	r := rand.New(rand.NewPCG(20, 1))
	for _, s := range []struct {
		prefix string
		n      int
	}{{"train", 1100}, {"t10k", 1000}} {
		images := make([]byte, s.n*784)
		labels := make([]byte, s.n)
		for i := range s.n {
			c := i % 10
			labels[i] = byte(c)
			img := images[i*784 : (i+1)*784]
			for j := range img {
				img[j] = byte(r.IntN(60))
			}
			top, left := 4+12*(c/5), 2+5*(c%5)
			for a := range 3 {
				for b := range 5 {
					img[(top+a)*28+left+b] = byte(200 + r.IntN(56))
				}
			}
		}
		if err := writeIDX(filepath.Join(dir, s.prefix+"-images-idx3-ubyte.gz"), images, s.n, 28, 28); err != nil {
			return err
		}
		if err := writeIDX(filepath.Join(dir, s.prefix+"-labels-idx1-ubyte.gz"), labels, s.n); err != nil {
			return err
		}
	}
	return nil
}

func writeIDX(path string, data []byte, dims ...int) error {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte{0, 0, 8, byte(len(dims))})
	for _, d := range dims {
		binary.Write(zw, binary.BigEndian, uint32(d))
	}
	zw.Write(data)
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// fig1Args are the flags of the ll-fig1 run that
// TestExperimentResumeAfterInterrupt and TestExperimentFig1ContinuesTable1
// resume and continue (3 epochs, evaluated at each); straightFig1 is its
// JSON run without a stop, trained once for both.
func fig1Args(data string) []string {
	return []string{"ll-fig1", "--data", data, "--model", experimentTinyModel, "--max-epochs", "3", "--eval-every", "1", "--json"}
}

func straightFig1(t *testing.T) string {
	t.Helper()
	data := fakeFashion(t)
	fig1.Do(func() {
		fig1.code, fig1.out, fig1.errOut = runExperimentCLI(context.Background(), nil, fig1Args(data)...)
	})
	require.Equal(t, exitOK, fig1.code, fig1.errOut)
	return fig1.out
}

var fig1 struct {
	sync.Once
	code        int
	out, errOut string
}

func runExperimentCLI(ctx context.Context, after func(string, int), args ...string) (int, string, string) {
	var o, e bytes.Buffer
	code := runExperimentContext(ctx, args, &o, &e, after)
	return code, o.String(), e.String()
}

// TestExperimentBadInput: every bad flag, missing data and unwritable
// output is exit status 2 with a one-line message, before any training.
func TestExperimentBadInput(t *testing.T) {
	data := fakeFashion(t)
	tmp := t.TempDir()
	file := filepath.Join(tmp, "a-file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	garbage := filepath.Join(tmp, "garbage.ck")
	require.NoError(t, os.WriteFile(garbage, []byte("not a checkpoint"), 0o644))
	base := []string{"--data", data, "--model", experimentTinyModel, "--max-epochs", "1"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "want ll-table1 or ll-fig1"},
		{[]string{"ll-table2"}, "want ll-table1 or ll-fig1"},
		{[]string{"ll-table1", "--n-train", "999"}, "--n-train 999"},
		{[]string{"ll-table1", "--n-train", "1005"}, "--n-train 1005"},
		{[]string{"ll-table1", "--n-test", "5"}, "--n-test 5"},
		{[]string{"ll-table1", "--n-train", "0"}, "--n-train 0"},
		{[]string{"ll-table1", "--image", "5"}, "--image 5"},
		{[]string{"ll-table1", "--image", "0"}, "--image 0"},
		{[]string{"ll-table1", "--batch", "-1"}, "--batch -1"},
		{[]string{"ll-table1", "--preset", "huge"}, `--preset "huge": want one of small`},
		{[]string{"ll-table1", "--preset", ""}, "--preset needs a value"},
		{append([]string{"ll-table1"}, append(base, "--image", "14")...), "--model"},
		{[]string{"ll-table1", "--width-scale", "0"}, "--width-scale 0"},
		{[]string{"ll-table1", "--width-scale", "NaN"}, "--width-scale NaN"},
		{[]string{"ll-table1", "--stop-log10-loss", "1"}, "--stop-log10-loss 1"},
		{[]string{"ll-table1", "--max-epochs", "0"}, "--max-epochs 0"},
		{[]string{"ll-table1", "--eval-every", "0"}, "--eval-every 0"},
		{[]string{"ll-fig1", "--lr-constant", "-1"}, "--lr-constant -1"},
		{[]string{"ll-table1", "--seed", "x"}, "invalid value"},
		{[]string{"ll-table1", "--report", ""}, "--report needs a value"},
		{[]string{"ll-table1", "--data", filepath.Join(tmp, "none")}, "apt-get install dataset-fashion-mnist"},
		{append([]string{"ll-table1"}, append(base, "--model", "mlp:relu:4/10+bias")...), "not multi-homogeneous"},
		{append([]string{"ll-table1"}, append(base, "--model", "mlp:relu:4")...), "gives 1 scores per image, want 10"},
		{append([]string{"ll-table1"}, append(base, "--model", "cnn2d:8x8x1:relu:2c3:10")...), "--model"},
		{append([]string{"ll-table1"}, append(base, "--report", filepath.Join(file, "rep"))...), "--report"},
		{append([]string{"ll-table1"}, append(base, "--checkpoint", filepath.Join(tmp, "no-dir", "ck"))...), "--checkpoint"},
		{append([]string{"ll-table1"}, append(base, "--checkpoint", garbage)...), "not readable"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := runExperimentCLI(context.Background(), func(string, int) { t.Error("trained on bad input") }, tc.args...)
			assert.Equal(t, exitUsage, code, errOut)
			assert.Empty(t, out)
			assert.Contains(t, errOut, tc.want)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
		})
	}
}

// TestExperimentJSONAndReport: ll-fig1's JSON has the schema of issue 20
// (rows with model, epoch, log10_loss, normalized_margin, train_acc,
// test_acc; the curve), five rows per schedule, the constant run as many
// epochs as the loss-based one; --report writes the page, the plots and
// results.json.
func TestExperimentJSONAndReport(t *testing.T) {
	data := fakeFashion(t)
	rep := filepath.Join(t.TempDir(), "rep")
	code, out, errOut := runExperimentCLI(context.Background(), nil, "ll-fig1", "--data", data, "--model", experimentTinyModel,
		"--max-epochs", "3", "--eval-every", "2", "--json", "--report", rep)
	require.Equal(t, exitOK, code, errOut)
	assert.NotContains(t, errOut, "\r", "a progress line on stderr that is no terminal")
	var res struct {
		Rows  []map[string]any `json:"rows"`
		Curve []map[string]any `json:"curve"`
		Runs  []experimentRunSummary
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	require.Len(t, res.Rows, 10)
	for _, r := range res.Rows {
		for _, k := range []string{"model", "epoch", "log10_loss", "normalized_margin", "train_acc", "test_acc", "schedule"} {
			assert.Contains(t, r, k)
		}
	}
	require.Len(t, res.Runs, 2)
	assert.Equal(t, 3, res.Runs[0].Epochs)
	assert.Equal(t, res.Runs[0].Epochs, res.Runs[1].Epochs)
	// Epochs 0, 2 and 3 of each run (the last is always evaluated).
	assert.Len(t, res.Curve, 6)
	for _, f := range []string{"index.html", "results.json", "figures/ll-fig1-loss.png", "figures/ll-fig1-margin.svg"} {
		_, err := os.Stat(filepath.Join(rep, f))
		assert.NoError(t, err, f)
	}
	page, err := os.ReadFile(filepath.Join(rep, "index.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "model-5")

	code, out, errOut = runExperimentCLI(context.Background(), nil, "ll-table1", "--data", data, "--model", experimentTinyModel, "--max-epochs", "2")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "model-4")
	assert.Contains(t, out, "not reached")
	assert.Contains(t, out, "881.51")
	assert.NotContains(t, out, "constant schedule")
}

// TestExperimentResumeAfterInterrupt: an ll-fig1 run interrupted (in its
// loss-based run, then in its constant run) and resumed from its
// checkpoint prints the same JSON, byte for byte, as the run never
// stopped; the interrupted runs exit 130 with partial JSON. Fault caught:
// a checkpoint that loses θ, α, 𝓛̄(t−1) or the shuffle position.
func TestExperimentResumeAfterInterrupt(t *testing.T) {
	args := fig1Args(fakeFashion(t))
	straight := straightFig1(t)

	ck := filepath.Join(t.TempDir(), "ck")
	withCk := append(append([]string(nil), args...), "--checkpoint", ck, "--checkpoint-every", "2")
	for _, cut := range []struct {
		schedule string
		epoch    int
	}{{"loss-based", 2}, {"constant", 2}} {
		ctx, cancel := context.WithCancel(context.Background())
		code, partial, errOut := runExperimentCLI(ctx, func(s string, e int) {
			if s == cut.schedule && e == cut.epoch {
				cancel()
			}
		}, withCk...)
		cancel()
		require.Equal(t, exitInterrupted, code, errOut)
		assert.Contains(t, partial, `"interrupted": true`)
		assert.Contains(t, errOut, "interrupted")
	}
	code, resumed, errOut := runExperimentCLI(context.Background(), nil, withCk...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "resuming")
	assert.Equal(t, straight, resumed)

	// Another seed is another run: its checkpoint is refused.
	code, _, errOut = runExperimentCLI(context.Background(), nil, append(withCk, "--seed", "2")...)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "made by another run")
}

// TestExperimentPreset: --preset small prints the flags it sets, a flag
// given beside it wins (and is not printed), and the small images reach the
// model (a 28×28 model on --image 14 is refused before any training).
func TestExperimentPreset(t *testing.T) {
	data := fakeFashion(t)
	code, out, errOut := runExperimentCLI(context.Background(), nil, "ll-table1", "--preset", "small", "--data", data,
		"--max-epochs", "2", "--n-test", "100", "--json")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "--preset small sets --image 14 --n-train 50 --batch 5 --width-scale 0.125 --eval-every 1000")
	assert.NotContains(t, errOut, "--max-epochs 1000000")
	assert.NotContains(t, errOut, "--n-test 1000")
	var res experimentResults
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	assert.Equal(t, "cnn2d:14x14x1:relu:4c5-max2,8c3-max2:128:10+bias@1", res.Model)
	assert.Equal(t, 50, res.NTrain)
	assert.Equal(t, 100, res.NTest)
	require.Len(t, res.Runs, 1)
	assert.Equal(t, 2, res.Runs[0].Epochs)
}

// TestExperimentFig1ContinuesTable1: ll-fig1 given an ll-table1
// checkpoint of the same flags continues it with the constant run and
// prints what ll-fig1 run from scratch prints, byte for byte; with other
// flags the checkpoint is refused. Fault caught: a constant run started from
// another θ₀, or the loss-based run trained again with other bits.
func TestExperimentFig1ContinuesTable1(t *testing.T) {
	args := fig1Args(fakeFashion(t))[1:] // without the experiment's name
	straight := straightFig1(t)

	ck := filepath.Join(t.TempDir(), "ck")
	withCk := append(append([]string(nil), args...), "--checkpoint", ck)
	code, _, errOut := runExperimentCLI(context.Background(), nil, append([]string{"ll-table1"}, withCk...)...)
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = runExperimentCLI(context.Background(), nil, append([]string{"ll-fig1", "--seed", "2"}, withCk...)...)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "made by another run")
	code, fig1, errOut := runExperimentCLI(context.Background(), func(s string, _ int) {
		if s != "constant" {
			t.Errorf("trained the %s run again", s)
		}
	}, append([]string{"ll-fig1"}, withCk...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "resuming")
	assert.Equal(t, straight, fig1)
}
