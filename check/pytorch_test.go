package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/internal/pyfork"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
)

// TestPyTorchScriptFresh runs examples/pytorch/train_digits.py now (a short
// run) and checks what it writes: the format, the mapping and the
// gradient-descent premise, end to end. It needs Debian's python3-torch and
// python3-numpy and is skipped without them; the committed runs
// (TestPyTorchDigitsRuns) cover the same without Python.
func TestPyTorchScriptFresh(t *testing.T) {
	py := needPyTorch(t)
	out := filepath.Join(t.TempDir(), "gd.npz")
	if b, err := py.Output(".", filepath.Join("..", "examples", "pytorch", "train_digits.py"),
		"--variant", "gd", "--steps", "300", "--pairs", "6", "--n", "40", "--out", out); err != nil {
		t.Fatalf("train_digits.py: %v\n%s", err, b)
	}
	tr, err := ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rep := checkRun(t, tr, "gd.npz", "")
	if !(rep.OutputsDiff <= 1e-15) || rep.Premise.Status != theorems.Holds {
		t.Fatalf("outputs agree to %.3g; premise %s", rep.OutputsDiff, rep.Premise)
	}
	if s := statuses(rep)["LL-B3"]; s != theorems.Holds {
		t.Fatalf("LL-B3 %s", s)
	}
}

// torchServer is the package's one Python interpreter with torch and
// numpy imported: each script runs forked from it, not in an interpreter
// importing torch anew (about a CPU second each). One thread per script:
// on these toy sizes PyTorch's intra-op threads only wait for each other
// (experiment/pytorch_test.go). TestMain closes it.
var torchServer = &pyfork.Shared{Python: "/usr/bin/python3", Modules: []string{"torch", "numpy"}, Env: []string{"OMP_NUM_THREADS=1"}}

func TestMain(m *testing.M) {
	code := m.Run()
	torchServer.Close()
	os.Exit(code)
}

// torchMissing says why Debian's python3 does not import torch and numpy
// (nil: it does), and returns the fork server.
func torchMissing() (*pyfork.Server, error) {
	py, err := torchServer.Get()
	if err == nil {
		err = py.Missing(torchServer.Modules...)
	}
	return py, err
}

// needPyTorch skips the test in -short mode or without Debian's
// python3-torch and python3-numpy, and returns the fork server that runs
// the scripts.
func needPyTorch(t *testing.T) *pyfork.Server {
	t.Helper()
	if testing.Short() {
		t.Skip("runs PyTorch")
	}
	py, err := torchMissing()
	if err != nil {
		t.Skipf("PyTorch is not installed (apt-get install -y python3-torch python3-numpy): %v", err)
	}
	return py
}

// TestPyTorchTable1PlainGD runs examples/pytorch/ll_table1.py --gd-lr (plain
// full-batch GD with a constant step, pairs of consecutive steps recorded;
// the recipe of the full-width cost measurement, docs/check.md) on its toy
// size: the mapping reproduces PyTorch's outputs, the gradient-descent
// premise holds on the pairs after separation, LL-B3 holds. The negative
// control declares a step size 0.1% off: the premise is violated.
func TestPyTorchTable1PlainGD(t *testing.T) {
	py := needPyTorch(t)
	out := filepath.Join(t.TempDir(), "gd.npz")
	if b, err := py.Output(".", filepath.Join("..", "examples", "pytorch", "ll_table1.py"),
		"--toy", "--gd-lr", "0.2", "--gd-steps", "401", "--record-every", "100", "--out", out); err != nil {
		t.Fatalf("ll_table1.py: %v\n%s", err, b)
	}
	// The CNN's θ and X in the engine's layout, as the CLI reads them.
	read := func() (*Trajectory, models.Model, *dataset.Dataset) {
		tr, err := ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		model, data := mappedRun(t, tr, "")
		m, err := MapModel(tr)
		if err != nil {
			t.Fatal(err)
		}
		tr = m.Move(tr)
		data.X = tr.X
		return tr, model, data
	}
	tr, model, data := read()
	if len(tr.Steps) != 10 || tr.Steps[1] != 1 || tr.Steps[9] != 401 {
		t.Fatalf("records at steps %v, want 0, 1, 100, 101, …, 400, 401", tr.Steps)
	}
	rep, err := Check(tr, model, data, Options{Name: "gd.npz"})
	if err != nil {
		t.Fatal(err)
	}
	if !(rep.OutputsDiff <= 1e-14) || rep.Premise.Status != theorems.Holds {
		t.Fatalf("outputs agree to %.3g; premise %s", rep.OutputsDiff, rep.Premise)
	}
	if s := statuses(rep)["LL-B3"]; s != theorems.Holds {
		t.Fatalf("LL-B3 %s", s)
	}
	bad, model, data := read()
	for i := range bad.LR {
		bad.LR[i] *= 1.001
	}
	if rep, err := Check(bad, model, data, Options{Name: "gd.npz"}); err != nil || rep.Premise.Status != theorems.Violated {
		t.Fatalf("lr declared 0.1%% off: premise %v (%v), want violated", rep, err)
	}
}
