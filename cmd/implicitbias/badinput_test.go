package main

// The bad-input table across the CLI (TestBadInput in main_test.go holds the
// first cases; these do not repeat them). Every malformed file or flag value
// gives a one-line error on stderr that names the problem, the documented
// exit status (2 for bad input, 3 for data that no model or hyperplane
// separates where maxmargin or kkt need separability), nothing on stdout,
// and never a panic. TestEdgeInputs lists the inputs that look odd but are
// valid, with the reason, and checks that their output holds no NaN or Inf.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// badFiles writes the malformed inputs of the table into dir and returns
// their paths by name.
func badFiles(t *testing.T) map[string]string {
	dir := t.TempDir()
	files := map[string]string{
		"ok.csv":       "1,1,0\n-1,0,1\n",
		"posinf.csv":   "1,Inf\n-1,2\n",
		"neginf.csv":   "1,1\n-1,-Inf\n",
		"nan.csv":      "1,1\n-1,nan\n",
		"ragged.csv":   "1,1,2\n-1,2\n",
		"empty.csv":    "",
		"header.csv":   "label,x1,x2\n",
		"d0.csv":       "1\n-1\n",
		"label2.csv":   "2,1\n-1,2\n",
		"label0.csv":   "0,1\n1,2\n",
		"ce5.csv":      "5,1\n0,2\n",
		"cehalf.csv":   "0.5,1\n0,2\n",
		"dupopp.csv":   "1,1,2\n-1,0,1\n-1,1,2\n",
		"mirror.csv":   "1,1,0\n1,-1,0\n",
		"w3.txt":       "1\n2\n3\n",
		"wneg.txt":     "1\n-2\n",
		"wzero.txt":    "0\n1\n",
		"wnan.txt":     "NaN\n1\n",
		"wempty.txt":   "",
		"gneg.txt":     "-1\n0\n",
		"g3.txt":       "0\n1\n1\n",
		"kernel1.csv":  "1\n2\n",
		"theta3.txt":   "1\n2\n3\n",
		"oneclass.csv": "1,1,0\n1,0,1\n",
		"pixels.csv":   "1,255,0,128,255\n-1,0,255,255,64\n1,200,10,90,250\n-1,5,240,220,30\n",
		"classes.csv":  "0,1,0\n1,0,1\n2,1,1\n",
		"bom.csv":      "\ufeff1,1,0\n-1,0,1\n",
		"text.csv.gz":  "1,1,0\n-1,0,1\n",
		"tiny.csv":     "1,1e-160,0\n-1,0,1e-160\n",
		"huge.csv":     "1,1e160,0\n-1,0,1e160\n",
	}
	paths := map[string]string{}
	for name, content := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		paths[name] = p
	}
	for name, p := range badRuns(t, dir) { // trajectory files (check_test.go)
		paths[name] = p
	}
	// Gzip files: ok.csv compressed, and the same cut before its trailer.
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(files["ok.csv"]))
	require.NoError(t, zw.Close())
	for name, content := range map[string][]byte{"ok.csv.gz": b.Bytes(), "corrupt.csv.gz": b.Bytes()[:b.Len()-6]} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, content, 0o644))
		paths[name] = p
	}
	paths["missing.csv"] = filepath.Join(dir, "missing.csv")
	paths["nodir"] = filepath.Join(dir, "no", "such", "dir")
	return paths
}

func TestBadInputTable(t *testing.T) {
	f := badFiles(t)
	ok := f["ok.csv"]
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		// Data files.
		{"+Inf in data", []string{"train", "--data", f["posinf.csv"]}, exitUsage, "+Inf is not finite"},
		{"−Inf in data (maxmargin)", []string{"maxmargin", "--data", f["neginf.csv"]}, exitUsage, "-Inf is not finite"},
		{"NaN in data (kkt)", []string{"kkt", "--data", f["nan.csv"]}, exitUsage, "NaN is not finite"},
		{"ragged rows (maxmargin)", []string{"maxmargin", "--data", f["ragged.csv"]}, exitUsage, "2 columns, but earlier rows have 3"},
		{"empty file (kkt)", []string{"kkt", "--data", f["empty.csv"]}, exitUsage, "no samples"},
		{"header only (interpolate)", []string{"interpolate", "--data", f["header.csv"]}, exitUsage, "no samples"},
		{"d = 0 (train)", []string{"train", "--data", f["d0.csv"]}, exitUsage, "at least one feature"},
		{"d = 0 (maxmargin)", []string{"maxmargin", "--data", f["d0.csv"]}, exitUsage, "at least one feature"},
		{"label 2 (maxmargin)", []string{"maxmargin", "--data", f["label2.csv"]}, exitUsage, "label 2; binary losses need labels −1 or +1"},
		{"label 0 (kkt)", []string{"kkt", "--data", f["label0.csv"]}, exitUsage, "label 0; binary losses need labels −1 or +1"},
		{"label 0 (train logistic)", []string{"train", "--data", f["label0.csv"], "--loss", "logistic"}, exitUsage, "label 0"},
		{"class label out of range (ce)", []string{"train", "--data", f["ce5.csv"], "--loss", "ce", "--model", "linear/2"}, exitUsage, "label 5; 2-class losses need labels 0…1"},
		{"class label not an integer (ce)", []string{"train", "--data", f["cehalf.csv"], "--loss", "ce", "--model", "linear/2"}, exitUsage, "label 0.5"},
		// Separability.
		{"opposite duplicates (maxmargin)", []string{"maxmargin", "--data", f["dupopp.csv"]}, exitNotSeparable, "not separable"},
		{"x and −x same label (maxmargin)", []string{"maxmargin", "--data", f["mirror.csv"]}, exitNotSeparable, "not separable"},
		{"opposite duplicates (kkt)", []string{"kkt", "--data", f["dupopp.csv"]}, exitNotSeparable, "samples 1 and 3 have the same features and opposite labels"},
		{"dependent samples (interpolate)", []string{"interpolate", "--data", f["dupopp.csv"]}, exitUsage, "linearly dependent"},
		// Step sizes, step counts, sizes.
		{"lr < 0 (flow ignores it, still an error)", []string{"train", "--data", ok, "--opt", "flow", "--lr", "-1"}, exitUsage, "learning rate must be a finite number > 0"},
		{"lr = 0 (kkt)", []string{"kkt", "--data", ok, "--lr", "0"}, exitUsage, "learning rate must be a finite number > 0"},
		{"lr = +Inf (adam)", []string{"train", "--data", ok, "--opt", "adam", "--lr", "+Inf"}, exitUsage, "learning rate must be a finite number > 0"},
		{"lr < 0 (momentum)", []string{"train", "--data", ok, "--opt", "momentum", "--lr", "-0.1"}, exitUsage, "learning rate must be a finite number > 0"},
		{"steps < 0 (kkt)", []string{"kkt", "--data", ok, "--steps", "-5"}, exitUsage, "--steps must be ≥ 1"},
		{"steps < 0 (bench)", []string{"bench", "--workload", "W1", "--steps", "-1"}, exitUsage, "--steps must be ≥ 0"},
		{"steps overflow int", []string{"train", "--data", ok, "--steps", "99999999999999999999"}, exitUsage, "value out of range"},
		{"record 0", []string{"train", "--data", ok, "--record", "0"}, exitUsage, "--record must be ≥ 1"},
		{"stop-log-loss > 0", []string{"train", "--data", ok, "--stop-log-loss", "1"}, exitUsage, "--stop-log-loss must be a number < 0"},
		{"l2 < 0", []string{"train", "--data", ok, "--l2", "-1"}, exitUsage, "--l2 must be a finite number ≥ 0"},
		{"flow tolerance ≥ 1", []string{"train", "--data", ok, "--opt", "flow", "--tol", "2"}, exitUsage, "flow tolerance must be in (0, 1)"},
		{"mu NaN (interpolate)", []string{"interpolate", "--data", ok, "--mu", "NaN"}, exitUsage, "--mu must be a finite number > 0"},
		{"threads 0 (bench)", []string{"bench", "--workload", "W1", "--threads", "0"}, exitUsage, "--threads must be ≥ 1"},
		{"threads 100000 (bench)", []string{"bench", "--workload", "W1", "--threads", "100000"}, exitUsage, "--threads must be ≤ 1024, got 100000"},
		{"growth ≤ 1 (kkt)", []string{"kkt", "--data", ok, "--growth", "1"}, exitUsage, "--growth must be > 1"},
		// Names.
		{"empty --only selects nothing", []string{"verify", "--only", ""}, exitUsage, "--only needs a value, got an empty one"},
		{"empty --report", []string{"verify", "--only", "LL-B3", "--report", ""}, exitUsage, "--report needs a value"},
		{"unknown weighting", []string{"train", "--data", ok, "--weights", "focal"}, exitUsage, `unknown weighting "focal"`},
		{"weighting parameter out of range", []string{"train", "--data", ok, "--weights", "cvar:2"}, exitUsage, "CVaR-DRO needs a level α in (0, 1]"},
		{"weighting parameter not a number", []string{"train", "--data", ok, "--weights", "gdro:fast"}, exitUsage, `parameter "fast" is not a finite number`},
		{"unknown activation", []string{"train", "--data", ok, "--model", "mlp:swish:2x4"}, exitUsage, `unknown activation "swish"`},
		{"width 0 (kkt)", []string{"kkt", "--data", ok, "--model", "mlp:relu:2x0"}, exitUsage, "width must be ≥ 1"},
		{"depth 0", []string{"train", "--data", ok, "--model", "mlp:relu:0x2"}, exitUsage, "depth must be ≥ 1"},
		{"loss not LL's (kkt)", []string{"kkt", "--data", ok, "--loss", "squared"}, exitUsage, "--loss must be exp or logistic"},
		{"unknown workload", []string{"bench", "--workload", "W9"}, exitUsage, `unknown workload "W9"`},
		{"unterminated formula", []string{"loss", "log(1+exp(-q)"}, exitUsage, "bad formula"},
		// Losses that are not positive and decreasing (issue 21: train ran them).
		{"increasing loss (train expr)", []string{"train", "--data", ok, "--loss", "expr:exp(q)"}, exitUsage, "the loss is not decreasing: (B3.2) fails"},
		{"loss undefined for q ≤ 0 (train expr)", []string{"train", "--data", ok, "--loss", "expr:log(q)"}, exitUsage, "not positive and finite everywhere: (B3.1) fails at q = 0"},
		{"loss with a pole (train expr)", []string{"train", "--data", ok, "--loss", "expr:1/(1+q)^2"}, exitUsage, "(B3.1) fails at q = -1: division by zero (a pole of ℓ"},
		// Weights, groups, θ₀ and kernel files.
		{"weights file too long (train)", []string{"train", "--data", ok, "--weights", "file:" + f["w3.txt"]}, exitUsage, "has 3 weights for 2 samples"},
		{"weights file too long (interpolate)", []string{"interpolate", "--data", ok, "--mu", "1", "--weights", f["w3.txt"]}, exitUsage, "has 3 weights for 2 samples"},
		{"negative weight", []string{"train", "--data", ok, "--weights", "file:" + f["wneg.txt"]}, exitUsage, "weight 2 is -2; weights must be positive"},
		{"zero weight (interpolate)", []string{"interpolate", "--data", ok, "--mu", "1", "--weights", f["wzero.txt"]}, exitUsage, "weight 1 is 0; weights must be positive"},
		{"NaN weight", []string{"train", "--data", ok, "--weights", "file:" + f["wnan.txt"]}, exitUsage, `"NaN" is not a finite number`},
		{"empty weights file", []string{"train", "--data", ok, "--weights", "file:" + f["wempty.txt"]}, exitUsage, "no numbers"},
		{"negative group", []string{"train", "--data", ok, "--weights", "iw", "--groups", f["gneg.txt"]}, exitUsage, "group 1 is -1; groups are integers ≥ 0"},
		{"groups file too long", []string{"train", "--data", ok, "--weights", "gdro", "--groups", f["g3.txt"]}, exitUsage, "has 3 group labels for 2 samples"},
		{"θ₀ of the wrong length", []string{"interpolate", "--data", ok, "--theta0", f["theta3.txt"]}, exitUsage, "has 3 entries, but the samples have 2 features"},
		{"kernel of the wrong size", []string{"maxmargin", "--data", ok, "--kernel", f["kernel1.csv"]}, exitUsage, "needs 2 per row"},
		// Trajectory files (check --run, train --init; docs/check.md).
		{"run is not an NPZ", []string{"check", "--run", f["run_csv.npz"]}, exitUsage, "not an NPZ archive"},
		{"run missing", []string{"check", "--run", filepath.Join(filepath.Dir(ok), "none.npz")}, exitUsage, "no such file"},
		{"no --run", []string{"check"}, exitUsage, "--run FILE.npz is required"},
		{"run without step", []string{"check", "--run", f["run_nostep.npz"]}, exitUsage, "missing array step"},
		{"run without lr", []string{"check", "--run", f["run_nolr.npz"]}, exitUsage, "missing array lr"},
		{"run without parameters", []string{"check", "--run", f["run_notheta.npz"]}, exitUsage, "missing parameter arrays"},
		{"NaN in θ", []string{"check", "--run", f["run_nan.npz"]}, exitUsage, "theta/2.weight: record 2 (step 10) has NaN"},
		{"snapshots disagree", []string{"check", "--run", f["run_snapshot.npz"]}, exitUsage, "theta/2.weight has shape (2, 1, 3), want (3, *shape)"},
		{"malformed NPY header", []string{"check", "--run", f["run_badnpy.npz"]}, exitUsage, "array lr: NPY header"},
		{"unknown module", []string{"check", "--run", f["run_bn.npz"]}, exitUsage, "modules[1] = BatchNorm1d(3"},
		{"tensors that do not chain", []string{"check", "--run", f["run_chain.npz"]}, exitUsage, "theta/2.weight takes 4 inputs, the layer before it gives 3"},
		{"outputs the mapping does not reproduce", []string{"check", "--run", f["run_out.npz"]}, exitUsage, "does not reproduce the run's outputs"},
		{"no data in the run", []string{"check", "--run", f["run_nodata.npz"]}, exitUsage, "has no X and y: give the data (--data FILE)"},
		{"model spec of another size", []string{"check", "--run", f["run_ok.npz"], "--model", "mlp:relu:2x4"}, exitUsage, "has 12 parameters, the run's tensors 9"},
		{"data of another dimension", []string{"check", "--run", f["run_ok.npz"], "--data", f["label0.csv"]}, exitUsage, "has 6 parameters, the run's tensors 9"},
		{"loss not one check knows", []string{"check", "--run", f["run_ok.npz"], "--loss", "poly"}, exitUsage, `loss "poly": want exp, logistic, ce or squared`},
		{"--init of another size", []string{"train", "--data", ok, "--model", "mlp:relu:2x4", "--init", f["run_ok.npz"]}, exitUsage, "θ has 9 entries, model mlp:relu:2x4 needs 12"},
		{"--init malformed", []string{"train", "--data", ok, "--init", f["run_nan.npz"]}, exitUsage, "has NaN"},
		{"--export-npz with GRW weights", []string{"train", "--data", ok, "--weights", "iw", "--export-npz", filepath.Join(filepath.Dir(ok), "x.npz")}, exitUsage, "--export-npz with --weights is not supported yet"},
		// Divergence (the engine's guard rails, train/divergence_test.go).
		{"loss-based step overflows ‖θ‖", []string{"train", "--data", ok, "--opt", "lossbased", "--lr", "1e300"}, exitDiverged, "‖θ‖ overflows float64 (diverged); try a smaller --lr (now 1e+300), or --standardize"},
		{"diverging step (squared loss)", []string{"train", "--data", ok, "--loss", "squared", "--lr", "1e300"}, exitDiverged, "diverged"},
		{"kkt diverges: the step of the whole run, not \"step A: step B\"", []string{"kkt", "--data", ok, "--lr", "1e300"}, exitDiverged, "kkt: training diverged: step 1: train: non-finite value"},
		{"heavy ball beyond stability", []string{"train", "--data", ok, "--opt", "momentum", "--loss", "squared", "--lr", "5"}, exitDiverged, "diverged"},
		{"raw pixels, summed exp loss (issue 21)", []string{"train", "--data", f["pixels.csv"]}, exitDiverged, "training diverged: step 1: train: non-finite value: θ[0] became NaN (diverged); try a smaller --lr (now 0.1), or --opt lossbased (LL App. K.1: the step adapts to the loss), or --standardize (every feature to mean 0, standard deviation 1), or --reduce mean"},
		// Real data (issue 21).
		{"class labels with a binary loss", []string{"train", "--data", f["classes.csv"]}, exitUsage, "for class labels 0…2 use --loss ce --model linear/3"},
		{"unknown reduction", []string{"train", "--data", ok, "--reduce", "median"}, exitUsage, `--reduce must be sum or mean, got "median"`},
		{"mean with GRW weights", []string{"train", "--data", ok, "--reduce", "mean", "--weights", "iw"}, exitUsage, "--reduce mean with --weights"},
		{"corrupt gzip", []string{"train", "--data", f["corrupt.csv.gz"]}, exitUsage, "corrupt gzip data"},
		{"text named .gz (kkt)", []string{"kkt", "--data", f["text.csv.gz"]}, exitUsage, "the name ends in .gz, but the content is not gzip"},
		// Output paths are checked before any work (issue 21: lost work).
		{"unwritable --report, before any check runs", []string{"verify", "--only", "LL-B3", "--report", ok + "/report"}, exitUsage, "--report: mkdir"},
		{"unwritable --trace, before the data are read", []string{"train", "--data", f["missing.csv"], "--trace", f["nodir"] + "/t.csv"}, exitUsage, "--trace: open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(tc.args...)
			assert.Equal(t, tc.code, code, "stderr: %s", errOut)
			assert.Empty(t, out)
			assert.Contains(t, errOut, tc.want)
			assert.True(t, strings.HasPrefix(errOut, "implicitbias "+tc.args[0]+": "), "error %q does not name the command", errOut)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one-line error, got %q", errOut)
		})
	}
}

// TestEdgeInputs: inputs that look odd but are valid, and why.
//
//   - A single class is not an error: for a binary loss the data are then
//     separable by any θ with y·Φ(θ; x_n) > 0 for all n (e.g. x_n in an open
//     half-space for a linear model), and the theory (LL, ZD) does not need
//     both labels; maxmargin returns the max-margin direction of that
//     one-sided problem. For ce, labels of one class with K outputs train
//     the logits of that class up, as the loss says.
//   - Non-separable data are not an error for train (the loss then tends to a
//     positive minimum; the output says separated: false); only maxmargin and
//     kkt need separability (exit 3 above).
//   - --steps 0 reports the initialization.
func TestEdgeInputs(t *testing.T) {
	f := badFiles(t)
	for _, tc := range []struct {
		name string
		args []string
		// separated is the expected "separated" field of train's output
		// (nil: not a train run).
		separated *bool
	}{
		{"single class (train exp)", []string{"train", "--data", f["oneclass.csv"], "--steps", "200"}, ptr(true)},
		{"single class (train ce, K = 2)", []string{"train", "--data", f["label0.csv"], "--loss", "ce", "--model", "linear/2", "--steps", "200"}, nil},
		{"single class (maxmargin)", []string{"maxmargin", "--data", f["oneclass.csv"]}, nil},
		{"single class (kkt)", []string{"kkt", "--data", f["oneclass.csv"], "--steps", "64", "--json"}, nil},
		{"non-separable (train)", []string{"train", "--data", f["dupopp.csv"], "--steps", "200"}, ptr(false)},
		{"non-separable (train flow)", []string{"train", "--data", f["dupopp.csv"], "--opt", "flow", "--steps", "50"}, ptr(false)},
		{"steps 0", []string{"train", "--data", f["ok.csv"], "--steps", "0"}, ptr(false)},
		{"gzip data (train)", []string{"train", "--data", f["ok.csv.gz"], "--steps", "200"}, ptr(true)},
		{"gzip data (maxmargin)", []string{"maxmargin", "--data", f["ok.csv.gz"]}, nil},
		{"features at 1e-160 (maxmargin)", []string{"maxmargin", "--data", f["tiny.csv"]}, nil},
		{"features at 1e160 (maxmargin)", []string{"maxmargin", "--data", f["huge.csv"]}, nil},
		{"byte order mark", []string{"train", "--data", f["bom.csv"], "--steps", "200"}, ptr(true)},
		{"raw pixels, mean of the standardized features", []string{"train", "--data", f["pixels.csv"], "--reduce", "mean", "--standardize", "--steps", "200"}, ptr(true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(tc.args...)
			require.Equal(t, exitOK, code, errOut)
			assert.Empty(t, errOut)
			assert.NotContains(t, out, "NaN")
			assert.NotContains(t, out, "Inf")
			var doc any
			require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
			if tc.separated != nil {
				assert.Equal(t, *tc.separated, doc.(map[string]any)["separated"], out)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestIssue21Table: every input of issue 21 ("the CLI and the report as a
// researcher meets them") with its exit status and what it must say (on
// stdout or stderr), and never NaN or a panic. Rows that are bad input
// are also in TestBadInputTable, which checks their one-line form; the
// rest are here only.
func TestIssue21Table(t *testing.T) {
	f := badFiles(t)
	ok := f["ok.csv"]
	line := worstCase(t, "LL-B3", "7")
	for _, tc := range []struct {
		name      string
		args      []string
		code      int
		stdout    string // a substring of stdout ("" for none expected)
		stderr    string // a substring of stderr
		notStdout string // what stdout must not say
	}{
		// Silent wrong results.
		{"train refuses an increasing loss", []string{"train", "--data", ok, "--loss", "expr:exp(q)"}, exitUsage, "", "(B3.2) fails", ""},
		{"train refuses log(q)", []string{"train", "--data", ok, "--loss", "expr:log(q)"}, exitUsage, "", "(B3.1) fails at q = 0", ""},
		{"loss: a pole fails (B3.1)", []string{"loss", "1/(1+q)^2"}, exitViolated, "(B3.1)           LL App. A.1                    fails at q = -1", "", "+Inf"},
		{"loss --json: the pole and L = +Inf", []string{"loss", "--json", "1/(1+q)^2"}, exitViolated, `"status_text": "fails at q = -1"`, "", "holds (L"},
		// Help.
		{"-h", []string{"-h"}, exitOK, "Exit status", "", ""},
		{"CMD -h", []string{"train", "-h"}, exitOK, "Exit status", "", ""},
		{"merge -h", []string{"merge", "-h"}, exitOK, "implicitbias merge FILE.json", "", "help requested"},
		{"bare implicitbias", nil, exitUsage, "", "Commands:", ""},
		{"verify --only ''", []string{"verify", "--only", ""}, exitUsage, "", "--only needs a value", ""},
		// Lost work.
		{"unwritable --report before the run", []string{"verify", "--only", "LL-B3", "--report", ok + "/r"}, exitUsage, "", "--report: mkdir", ""},
		{"unwritable --trace before the data", []string{"train", "--data", f["missing.csv"], "--trace", f["nodir"] + "/t.csv"}, exitUsage, "", "--trace: open", ""},
		// Misleading text.
		{"verify --only X counts the checks left out", []string{"verify", "--only", "LL-B3"}, exitOK, "44 other checks not selected; 0 catalog entries have no check yet", "", "44 catalog entries"},
		{"hunt: assumption-failed is no counterexample", []string{"verify", "--hunt", "ZD-P17", "--drop", "psd"}, exitViolated, "not a counterexample", "", "Reproduce"},
		{"hunt --json", []string{"verify", "--hunt", "ZD-P17", "--drop", "psd", "--json"}, exitViolated, `"found": false`, "", ""},
		{"kkt: the step of the whole run", []string{"kkt", "--data", ok, "--lr", "1e300"}, exitDiverged, "", "training diverged: step 1: train", ""},
		// Real data.
		{"raw pixels diverge: what to try", []string{"train", "--data", f["pixels.csv"]}, exitDiverged, "", "try a smaller --lr (now 0.1), or --opt lossbased", ""},
		{"--reduce mean --standardize", []string{"train", "--data", f["pixels.csv"], "--reduce", "mean", "--standardize", "--steps", "200"}, exitOK, `"reduce":"mean"`, "", ""},
		{".csv.gz", []string{"train", "--data", f["ok.csv.gz"], "--steps", "10"}, exitOK, `"steps":10`, "", ""},
		{"a byte order mark", []string{"train", "--data", f["bom.csv"], "--steps", "10"}, exitOK, `"steps":10`, "", ""},
		{"a corrupt gzip", []string{"train", "--data", f["corrupt.csv.gz"]}, exitUsage, "", "corrupt gzip data", ""},
		{"maxmargin at 1e-160", []string{"maxmargin", "--data", f["tiny.csv"]}, exitOK, `"feature_scale"`, "", "NaN"},
		{"maxmargin at 1e160", []string{"maxmargin", "--data", f["huge.csv"]}, exitOK, `"margin":7.07`, "", "NaN"},
		{"bench --threads 100000", []string{"bench", "--workload", "W1", "--threads", "100000"}, exitUsage, "", "--threads must be ≤ 1024", ""},
		// Replay.
		{"verify --case", []string{"verify", "--only", "LL-B3", "--seed", "7", "--case", line}, exitOK, "status     holds", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(tc.args...)
			assert.Equal(t, tc.code, code, "stderr: %s", errOut)
			if tc.stdout != "" {
				assert.Contains(t, out, tc.stdout)
			}
			if tc.stderr != "" {
				assert.Contains(t, errOut, tc.stderr)
			}
			if tc.notStdout != "" {
				assert.NotContains(t, out, tc.notStdout)
			}
			assert.NotContains(t, out, "NaN")
			assert.NotContains(t, errOut, "panic")
		})
	}
}
