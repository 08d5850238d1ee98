package check

import (
	"strings"
	"testing"

	"github.com/implicitbias/implicitbias/models"
)

// TestMapSpecPermutesPyTorchCNN: with a spec given (check --model), a
// PyTorch-layout CNN file is permuted as the mapped case is: the six
// golden CNNs (Conv2d and Conv1d) reproduce PyTorch's outputs to rounding after MapSpec, and
// fail the outputs check without the permutation (what --model did
// before). A spec that changes only what moves no parameter (max → avg
// pooling) is taken, with a note, and then caught by the outputs check,
// since it is not the network the run trained.
func TestMapSpecPermutesPyTorchCNN(t *testing.T) {
	for _, file := range []string{"map_conv_max.npz", "map_conv_avg.npz", "map_conv_stride.npz", "map_conv_even.npz", "map_conv1d_max.npz", "map_conv1d_avg.npz"} {
		t.Run(file, func(t *testing.T) {
			if strings.HasPrefix(file, "map_conv1d") {
				needGolden(t, file)
			}
			tr, mapped, model := mappedFile(t, file)
			m, err := MapSpec(tr, mapped.Spec, tr.D)
			if err != nil {
				t.Fatal(err)
			}
			if m.Spec != mapped.Spec || m.Note != "" {
				t.Errorf("MapSpec(%s) = %q (note %q)", mapped.Spec, m.Spec, m.Note)
			}
			rel, err := CompareOutputs(m.Apply(tr), model)
			if err != nil || !(rel <= 1e-15) {
				t.Errorf("permuted: outputs agree to %.3g (%v), want ≤ 1e-15", rel, err)
			}
			if rel, err := CompareOutputs(tr, model); err == nil {
				t.Errorf("unpermuted: outputs agree to %.3g, want the outputs check to fail", rel)
			}
		})
	}
	t.Run("pooling overridden", func(t *testing.T) {
		tr, _, _ := mappedFile(t, "map_conv_max.npz")
		const spec = "cnn2d:8x8x1:relu:3c3-valid-avg2"
		m, err := MapSpec(tr, spec, tr.D)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(m.Note, "overrides the modules' cnn2d:8x8x1:relu:3c3-valid-max2") {
			t.Errorf("note %q", m.Note)
		}
		model, err := models.Parse(m.Spec, m.In)
		if err != nil {
			t.Fatal(err)
		}
		if rel, err := CompareOutputs(m.Apply(tr), model); err == nil {
			t.Errorf("average pooling for the run's max pooling: outputs agree to %.3g, want the outputs check to fail", rel)
		}
	})
}

// TestMapSpecRefuses: a spec whose parameters are not the modules' (a
// "same" conv for the run's valid one, which changes the first Linear; a
// bias the run does not have), and a PyTorch CNN file without its modules,
// are refused with a message naming what disagrees; an MLP file is taken
// in its own layout, as before.
func TestMapSpecRefuses(t *testing.T) {
	tr, _, _ := mappedFile(t, "map_conv_max.npz")
	for spec, want := range map[string]string{
		"cnn2d:8x8x1:relu:3c3-max2":              "block 1 is layer1 conv2d(8x8x1→8x8x3, k=3, s=1, same) (27 parameters) in the spec",
		"cnn2d:8x8x1:relu:3c3-valid-max2+bias@1": "disagrees with the file's modules, which map to cnn2d:8x8x1:relu:3c3-valid-max2",
	} {
		if _, err := MapSpec(tr, spec, tr.D); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("MapSpec(%s): %v, want an error with %q", spec, err, want)
		}
	}
	bare := *tr
	bare.Modules = nil
	if _, err := MapSpec(&bare, "cnn2d:8x8x1:relu:3c3-valid-max2", tr.D); err == nil || !strings.Contains(err.Error(), "without its modules") {
		t.Errorf("a Conv2d file without modules: %v", err)
	}
	mlp, _, _ := mappedFile(t, "map_relu.npz")
	m, err := MapSpec(mlp, "mlp:relu:2x7", mlp.D)
	if err != nil || m.Apply(mlp) != mlp || m.Spec != "mlp:relu:2x7" {
		t.Errorf("an MLP file: %+v, %v", m, err)
	}
}
