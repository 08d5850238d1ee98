package check

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/implicitbias/implicitbias/models"
)

// TestMappingMatchesPyTorch reads the networks examples/pytorch/
// mapping_cases.py wrote once with PyTorch (float64, random θ) and asserts
// that the spec MapModel reads from the modules and the state_dict gives the
// outputs PyTorch recorded to MappingTolerance (1e-12 relative). The CNNs
// (map_conv_*) go through Mapping.Apply, which permutes θ and X from NCHW to
// channels last; their X is saved (n, C, H, W) (max, stride, even) or
// flattened with input_shape (avg); even has a 2×2 kernel with padding
// "same", whose odd pixel of padding PyTorch and the engine put after.
func TestMappingMatchesPyTorch(t *testing.T) {
	cases := []struct{ file, spec string }{
		{"map_linear.npz", "linear"},
		{"map_relu.npz", "mlp:relu:2x7"},
		{"map_lrelu3.npz", "mlp:lrelu0.2:6-4"},
		{"map_relupow3.npz", "mlp:relu3:2x6"},
		{"map_square.npz", "mlp:quad:2x4"},
		{"map_deeplinear.npz", "mlp:id:3x3"},
		{"map_multiclass.npz", "mlp:relu:2x6/3"},
		{"map_bias.npz", "mlp:relu:2x6+bias@1+bias@2"},
		{"map_tanh.npz", "mlp:tanh:2x6"},
		{"map_conv_max.npz", "cnn2d:8x8x1:relu:3c3-valid-max2"},
		{"map_conv_avg.npz", "cnn2d:6x6x2:lrelu0.2:3c3-avg2,4c2-valid:5:2+bias@1"},
		{"map_conv_stride.npz", "cnn2d:8x8x1:relu:2c2s2-valid,3c3-max2"},
		{"map_conv_even.npz", "cnn2d:6x6x1:relu:2c2-avg2"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			tr, m, model := mappedFile(t, c.file)
			if m.Spec != c.spec || m.Note != "" {
				t.Fatalf("spec %q (note %q), want %q", m.Spec, m.Note, c.spec)
			}
			applied := m.Apply(tr)
			rel, err := CompareOutputs(applied, model)
			if err != nil {
				t.Fatal(err)
			}
			// Move is Apply in place: the same run, θ's buffers reused.
			again, _, _ := mappedFile(t, c.file)
			moved := m.Move(again)
			if !reflect.DeepEqual(moved, applied) {
				t.Errorf("Move gives another run than Apply")
			}
			if m.layout != nil && (again.Theta != nil || &moved.Theta[0][0] == &applied.Theta[0][0]) {
				t.Errorf("Move left θ in the run it took, or shares Apply's")
			}
			if !(rel <= 1e-15) {
				// Far inside MappingTolerance: the rounding of two
				// summation orders (see its comment).
				t.Errorf("outputs agree to %.3g relative, want rounding level", rel)
			}
			t.Logf("%s → %s: outputs agree to %.2g", c.file, m.Spec, rel)
		})
	}
}

// mappedFile reads a golden file of testdata/pytorch, maps it and builds
// the engine's model of the mapping.
func mappedFile(t *testing.T, file string) (*Trajectory, Mapping, models.Model) {
	t.Helper()
	tr, err := ReadFile(filepath.Join("testdata", "pytorch", file))
	if err != nil {
		t.Fatal(err)
	}
	m, err := MapModel(tr)
	if err != nil {
		t.Fatal(err)
	}
	model, err := models.Parse(m.Spec, m.In)
	if err != nil {
		t.Fatal(err)
	}
	return tr, m, model
}

// TestMappingCatchesLayoutErrors is the mapping check's negative control:
// a transposed first weight, swapped tensors and a wrong activation must
// each be reported (CompareOutputs errs), not pass at 1e-12.
func TestMappingCatchesLayoutErrors(t *testing.T) {
	tr, err := ReadFile(filepath.Join("testdata", "pytorch", "map_lrelu3.npz"))
	if err != nil {
		t.Fatal(err)
	}
	last := len(tr.Theta) - 1
	faults := map[string]func(th []float64) string{
		"transposed W1": func(th []float64) string {
			w := append([]float64(nil), th[:30]...) // W1 is 6×5
			for i := range 6 {
				for j := range 5 {
					th[j*6+i] = w[i*5+j]
				}
			}
			return "mlp:lrelu0.2:6-4"
		},
		"wrong slope":      func([]float64) string { return "mlp:lrelu0.1:6-4" },
		"wrong activation": func([]float64) string { return "mlp:relu:6-4" },
	}
	for name, fault := range faults {
		t.Run(name, func(t *testing.T) {
			c := *tr
			c.Theta = append([][]float64(nil), tr.Theta...)
			c.Theta[last] = append([]float64(nil), tr.Theta[last]...)
			spec := fault(c.Theta[last])
			model, err := models.Parse(spec, 5)
			if err != nil {
				t.Fatal(err)
			}
			rel, err := CompareOutputs(&c, model)
			if err == nil || !strings.Contains(err.Error(), "does not reproduce") {
				t.Fatalf("%s not caught: relative difference %.3g, error %v", name, rel, err)
			}
		})
	}
}

// TestMapModelIdentityAndFlatten: Identity and Flatten map to nothing.
func TestMapModelIdentityAndFlatten(t *testing.T) {
	w := func(name string, out, in int) Param { return Param{Name: name, Shape: []int{out, in}} }
	m, err := MapModel(&Trajectory{Params: []Param{w("1.weight", 4, 3), w("4.weight", 1, 4)},
		Modules: []string{"Flatten(start_dim=1, end_dim=-1)", "Linear(in_features=3, out_features=4, bias=False)", "Identity()", "LeakyReLU(negative_slope=0.5)", "Linear(in_features=4, out_features=1, bias=False)"}})
	if err != nil || m.Spec != "mlp:lrelu0.5:2x4" {
		t.Fatalf("spec %q, %v", m.Spec, err)
	}
}

// TestMapModelRefuses asserts that modules the engine cannot map are
// refused with a message naming the module.
func TestMapModelRefuses(t *testing.T) {
	w := func(name string, out, in int) Param { return Param{Name: name, Shape: []int{out, in}} }
	two := []Param{w("0.weight", 4, 3), w("2.weight", 1, 4)}
	cases := []struct {
		name    string
		params  []Param
		modules []string
		want    string
	}{
		{"batchnorm", two, []string{"Linear(in_features=3, out_features=4, bias=False)", "BatchNorm1d(4, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)", "Linear(in_features=4, out_features=1, bias=False)"}, "BatchNorm1d(4"},
		{"unknown", two, []string{"Linear(in_features=3, out_features=4, bias=False)", "Mish()", "Linear(in_features=4, out_features=1, bias=False)"}, "Mish() is not supported"},
		{"conv without input shape", two, []string{"Conv1d(1, 4, kernel_size=(3,), stride=(1,), bias=False)"}, "a Conv1d network needs the input shape (C, W)"},
		{"conv3d", two, []string{"Linear(in_features=3, out_features=4, bias=False)", "Conv3d(1, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1), bias=False)", "Linear(in_features=4, out_features=1, bias=False)"}, "Conv3d(1, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1), bias=False) is a convolution the engine has no model for"},
		{"dropout", two, []string{"Linear(in_features=3, out_features=4, bias=False)", "Dropout(p=0.5, inplace=False)", "ReLU()", "Linear(in_features=4, out_features=1, bias=False)"}, "Dropout(p=0.5"},
		{"shape mismatch", two, []string{"Linear(in_features=3, out_features=5, bias=False)", "ReLU()", "Linear(in_features=4, out_features=1, bias=False)"}, "does not match theta/0.weight"},
		{"bias disagrees", two, []string{"Linear(in_features=3, out_features=4, bias=True)", "ReLU()", "Linear(in_features=4, out_features=1, bias=False)"}, "bias=True"},
		{"two activations", two, []string{"Linear(in_features=3, out_features=4, bias=False)", "ReLU()", "LeakyReLU(negative_slope=0.2)", "Linear(in_features=4, out_features=1, bias=False)"}, "one activation"},
		{"ends with activation", two, []string{"Linear(in_features=3, out_features=4, bias=False)", "ReLU()", "Linear(in_features=4, out_features=1, bias=False)", "ReLU()"}, "end with a Linear"},
		{"not str(m)", two, []string{"relu"}, `"relu"`},
		{"linears in a row with ReLU elsewhere", []Param{w("0.weight", 4, 3), w("1.weight", 4, 4), w("3.weight", 1, 4)}, []string{"Linear(in_features=3, out_features=4, bias=False)", "Linear(in_features=4, out_features=4, bias=False)", "ReLU()", "Linear(in_features=4, out_features=1, bias=False)"}, "modules[1] = Linear(in_features=4, out_features=4, bias=False) follows a Linear directly"},
		{"chained shapes", []Param{w("0.weight", 4, 3), w("2.weight", 1, 5)}, nil, "takes 5 inputs"},
		{"conv tensor without modules", []Param{{Name: "0.weight", Shape: []int{4, 1, 3}}}, nil, "a Conv1d network needs its modules array"},
		{"conv3d tensor", []Param{{Name: "0.weight", Shape: []int{4, 1, 3, 3, 3}}}, nil, "want (out_features, in_features) of a Linear"},
		{"stray bias", []Param{{Name: "0.bias", Shape: []int{4}}}, nil, "expected a weight"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := MapModel(&Trajectory{Params: c.params, Modules: c.modules})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestCompareOutputsShapes: outputs of another shape than the model's, or
// recorded on inputs of another dimension, are errors, not a panic.
func TestCompareOutputsShapes(t *testing.T) {
	tr, err := ReadFile(filepath.Join("testdata", "pytorch", "map_relu.npz"))
	if err != nil {
		t.Fatal(err)
	}
	for spec, in := range map[string]int{"mlp:relu:2x7/2": 5, "mlp:relu:2x7": 6} {
		model, err := models.Parse(spec, in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := CompareOutputs(tr, model); err == nil {
			t.Errorf("%s on %d inputs: no error", spec, in)
		}
	}
}
