package check

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// conv1dGolden is where examples/pytorch/conv1d_cases.py writes its cases.
var conv1dGolden = map[string]string{
	"map_conv1d_max.npz": "cnn:relu:3c3-max2",
	"map_conv1d_avg.npz": "cnn:lrelu0.2:3c3s2-avg2,4c2:5@2/2+bias@1",
}

// needGolden skips the test, saying how to regenerate it, when a golden
// file of conv1d_cases.py is missing.
func needGolden(t *testing.T, file string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join("testdata", "pytorch", file)); err != nil {
		how := "apt-get install -y python3-torch python3-numpy, then "
		if _, err := torchMissing(); err == nil {
			how = ""
		}
		t.Skipf("%s is missing: regenerate it (%s/usr/bin/python3 examples/pytorch/conv1d_cases.py check/testdata/pytorch from the repository root)", file, how)
	}
}

// TestConv1dMappingMatchesPyTorch: the Conv1d networks conv1d_cases.py wrote
// with PyTorch map to the engine's cnn spec and, permuted by Mapping.Apply
// (θ's conv weights (out, in, k) → (out, k, in), X and the first Linear's
// columns channels first → last), give PyTorch's outputs to rounding. One
// case saves X as (n, C, W), the other flattened with input_shape (C, W);
// the second has two channels, a stride, a bias, average pooling, two
// convs, a hidden Linear and two outputs.
func TestConv1dMappingMatchesPyTorch(t *testing.T) {
	for file, spec := range conv1dGolden {
		t.Run(file, func(t *testing.T) {
			needGolden(t, file)
			tr, m, model := mappedFile(t, file)
			if m.Spec != spec || m.Note != "" {
				t.Fatalf("spec %q (note %q), want %q", m.Spec, m.Note, spec)
			}
			rel, err := CompareOutputs(m.Apply(tr), model)
			if err != nil {
				t.Fatal(err)
			}
			if !(rel <= 1e-15) {
				t.Errorf("outputs agree to %.3g relative, want ≤ 1e-15", rel)
			}
			t.Logf("%s → %s: outputs agree to %.2g", file, m.Spec, rel)
		})
	}
}

// TestConv1dMappingCatchesLayoutErrors is the Conv1d mapping's negative
// control: leaving out any one permutation (all of them, X's, the kernel's
// (out, in, k) → (out, k, in), the flatten order of the first Linear's
// columns) must fail the outputs check on the PyTorch golden file.
func TestConv1dMappingCatchesLayoutErrors(t *testing.T) {
	const file = "map_conv1d_avg.npz"
	needGolden(t, file)
	// map_conv1d_avg: Conv1d(2, 3, 3, stride 2, bias): 18 weights and 3
	// biases; Conv1d(3, 4, 2): 24 weights at 21; Linear(12, 5) at 45.
	const first, second, lin = 18, 21, 45
	identity := func(idx []int, from, to int) {
		for j := from; j < to; j++ {
			idx[j] = j
		}
	}
	faults := map[string]func(l *convLayout){
		"no permutation": func(l *convLayout) {
			identity(l.theta, 0, len(l.theta))
			identity(l.input, 0, len(l.input))
		},
		"X left channels first":          func(l *convLayout) { identity(l.input, 0, len(l.input)) },
		"first kernel left (out, in, k)": func(l *convLayout) { identity(l.theta, 0, first) },
		"second kernel left (out, in, k)": func(l *convLayout) {
			identity(l.theta, second, second+24)
		},
		"Flatten in (C, W) order": func(l *convLayout) { identity(l.theta, lin, lin+12*5) },
	}
	tr, m, model := mappedFile(t, file)
	for name, fault := range faults {
		t.Run(name, func(t *testing.T) {
			l := &convLayout{theta: append([]int(nil), m.layout.theta...), input: append([]int(nil), m.layout.input...)}
			fault(l)
			if reflect.DeepEqual(l.theta, m.layout.theta) && reflect.DeepEqual(l.input, m.layout.input) {
				t.Fatal("the fault changed nothing")
			}
			rel, err := CompareOutputs(l.permuted(tr), model)
			if err == nil || !strings.Contains(err.Error(), "does not reproduce") {
				t.Fatalf("%s not caught: relative difference %.3g, error %v", name, rel, err)
			}
			t.Logf("%s: relative difference %.2g", name, rel)
		})
	}
}

// TestMapConv1dRefuses: what the engine's cnn cannot compute is refused
// with a message naming the module.
func TestMapConv1dRefuses(t *testing.T) {
	conv := "Conv1d(1, 2, kernel_size=(3,), stride=(1,), bias=False)"
	params := []Param{{Name: "0.weight", Shape: []int{2, 1, 3}}, {Name: "4.weight", Shape: []int{1, 6}}}
	// modules: conv, ReLU, slot, Flatten, Linear on 1×5 sequences.
	net := func(conv, slot string) []string {
		return []string{conv, "ReLU()", slot, "Flatten(start_dim=1, end_dim=-1)", "Linear(in_features=6, out_features=1, bias=False)"}
	}
	cases := []refusal{
		{"padding", net("Conv1d(1, 2, kernel_size=(3,), stride=(1,), padding=(1,), bias=False)", "Identity()"), []int{1, 5}, "padding (1,) is not supported"},
		{"same padding", net("Conv1d(1, 2, kernel_size=(3,), stride=(1,), padding=same, bias=False)", "Identity()"), []int{1, 5}, "padding same is not supported"},
		{"dilation", net("Conv1d(1, 2, kernel_size=(3,), stride=(1,), dilation=(2,), bias=False)", "Identity()"), []int{1, 5}, "dilation (2,) is not supported"},
		{"groups", net("Conv1d(1, 2, kernel_size=(3,), stride=(1,), groups=2, bias=False)", "Identity()"), []int{1, 5}, "groups=2 is not supported"},
		{"circular padding", net("Conv1d(1, 2, kernel_size=(3,), stride=(1,), bias=False, padding_mode=circular)", "Identity()"), []int{1, 5}, "padding_mode=circular"},
		{"overlapping pool", net(conv, "MaxPool1d(kernel_size=3, stride=2, padding=0, dilation=1, ceil_mode=False)"), []int{1, 5}, "stride 2 differs from kernel_size 3"},
		{"ceil mode", net(conv, "AvgPool1d(kernel_size=(1,), stride=(1,), padding=(0,), ceil_mode=True)"), []int{1, 5}, "ceil_mode=True"},
		{"batchnorm", net(conv, "BatchNorm1d(2, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)"), []int{1, 5}, "BatchNorm1d(2"},
		{"flatten size", net(conv, "Identity()"), []int{1, 6}, "takes 6 features, Flatten gives 2×1×4 = 8"},
		{"channels", net(conv, "Identity()"), []int{3, 5}, "takes 1 channels, the layer before gives 3"},
		{"kernel too long", net(conv, "Identity()"), []int{1, 2}, "kernel 3 longer than its input of length 2"},
		{"no input shape", net(conv, "Identity()"), nil, "input shape (C, W)"},
		{"image input shape", net(conv, "Identity()"), []int{1, 1, 5}, "input shape (C, W)"},
		{"no modules", nil, []int{1, 5}, "modules array"},
		{"a Conv2d pool", net(conv, "MaxPool2d(kernel_size=1, stride=1, padding=0, dilation=1, ceil_mode=False)"), []int{1, 5}, "in a Conv1d network"},
	}
	assertRefused(t, params, cases)
}

// TestConv1dGeneratorReproducesGolden re-runs conv1d_cases.py when
// PyTorch is installed and asserts that it writes the committed files'
// arrays, so that the golden files are the script's (skipped without torch:
// the core tests read the committed files).
func TestConv1dGeneratorReproducesGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Python and PyTorch")
	}
	py, err := torchMissing()
	if err != nil {
		t.Skipf("PyTorch not installed (apt-get install -y python3-torch python3-numpy): the committed golden files are not re-derived: %v", err)
	}
	dir := t.TempDir()
	if out, err := py.Output(filepath.Join("..", "examples", "pytorch"), "conv1d_cases.py", dir); err != nil {
		t.Fatalf("conv1d_cases.py: %v\n%s", err, out)
	}
	for file := range conv1dGolden {
		needGolden(t, file)
		fresh, err := ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		golden, err := ReadFile(filepath.Join("testdata", "pytorch", file))
		if err != nil {
			t.Fatal(err)
		}
		// PyTorch's conv1d sums in another order on another CPU (AVX2 or
		// AVX-512 kernels): the outputs agree to rounding, not bit for bit.
		// They are compared to MappingTolerance relative, the bound check
		// itself puts on two float64 evaluations of one network; every
		// other array (seeded data and initialization) must be the same bits.
		if d := maxRelDiff(fresh.Outputs, golden.Outputs); !(d <= MappingTolerance) {
			t.Errorf("%s: the script's outputs differ from the committed file's by %.3g relative (bound %g): regenerate it", file, d, MappingTolerance)
		}
		fresh.Outputs, golden.Outputs = nil, nil
		if !reflect.DeepEqual(fresh, golden) {
			t.Errorf("%s: the script writes other arrays than the committed file: regenerate it", file)
		}
	}
}

// maxRelDiff returns max_i |a_i − b_i| / max_i |b_i| (+Inf for different
// lengths).
func maxRelDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d, m := 0.0, 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
		m = math.Max(m, math.Abs(b[i]))
	}
	if m == 0 {
		return d
	}
	return d / m
}
