package check

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/implicitbias/implicitbias/theorems"
)

// TestPyTorchScriptFresh runs examples/pytorch/train_digits.py now (a short
// run) and checks what it writes: the format, the mapping and the
// gradient-descent premise, end to end. It needs Debian's python3-torch and
// python3-numpy and is skipped without them; the committed runs
// (TestPyTorchDigitsRuns) cover the same without Python.
func TestPyTorchScriptFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("runs PyTorch")
	}
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import torch, numpy").Run(); err != nil {
		t.Skipf("PyTorch is not installed (apt-get install -y python3-torch python3-numpy): %v", err)
	}
	out := filepath.Join(t.TempDir(), "gd.npz")
	cmd := exec.Command(py, filepath.Join("..", "examples", "pytorch", "train_digits.py"),
		"--variant", "gd", "--steps", "300", "--pairs", "6", "--n", "40", "--out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
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
