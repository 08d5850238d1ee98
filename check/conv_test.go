package check

import (
	"reflect"
	"strings"
	"testing"
)

// TestConvMappingCatchesLayoutErrors is the Conv2d mapping's negative
// control: each plausible layout mistake (no permutation at all, X left in
// NCHW, the kernel read as (out, kh, kw, in) or with kh and kw swapped,
// Flatten's columns left in (C, H, W) order) must make CompareOutputs fail on
// the PyTorch golden file, not pass at MappingTolerance.
func TestConvMappingCatchesLayoutErrors(t *testing.T) {
	// map_conv_avg: Conv2d(2, 3, 3, same, bias) first (54 weights, 3
	// biases), then Conv2d(3, 4, 2) (48), then Linear(16, 5) at 105.
	const cin, k, cout, lin = 2, 3, 3, 105
	faults := map[string]func(l *convLayout){
		"no permutation": func(l *convLayout) {
			for j := range l.theta {
				l.theta[j] = j
			}
			for j := range l.input {
				l.input[j] = j
			}
		},
		"X left in NCHW": func(l *convLayout) {
			for j := range l.input {
				l.input[j] = j
			}
		},
		"kernel as (out, kh, kw, in)": func(l *convLayout) {
			for j := range cout * k * k * cin {
				l.theta[j] = j
			}
		},
		"kh and kw swapped": func(l *convLayout) {
			for o := range cout {
				for a := range k {
					for b := range k {
						for c := range cin {
							l.theta[o*k*k*cin+(a*k+b)*cin+c] = ((o*cin+c)*k+b)*k + a
						}
					}
				}
			}
		},
		"Flatten in (C, H, W) order": func(l *convLayout) {
			for j := lin; j < lin+16*5; j++ {
				l.theta[j] = j
			}
		},
	}
	tr, m, model := mappedFile(t, "map_conv_avg.npz")
	for name, fault := range faults {
		t.Run(name, func(t *testing.T) {
			l := &convLayout{theta: append([]int(nil), m.layout.theta...), input: append([]int(nil), m.layout.input...)}
			fault(l)
			rel, err := CompareOutputs(l.permuted(tr), model)
			if err == nil || !strings.Contains(err.Error(), "does not reproduce") {
				t.Fatalf("%s not caught: relative difference %.3g, error %v", name, rel, err)
			}
			t.Logf("%s: relative difference %.2g", name, rel)
		})
	}
}

// TestMapConv2dRefuses: what the engine's cnn2d cannot compute is refused
// with a message naming the module, never mapped to something else.
func TestMapConv2dRefuses(t *testing.T) {
	conv := "Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 1), bias=False)"
	params := []Param{{Name: "0.weight", Shape: []int{2, 1, 3, 3}}, {Name: "4.weight", Shape: []int{1, 18}}}
	// modules: conv, ReLU, slot, Flatten, Linear on 1×5×5 images.
	net := func(conv, slot string) []string {
		return []string{conv, "ReLU()", slot, "Flatten(start_dim=1, end_dim=-1)", "Linear(in_features=18, out_features=1, bias=False)"}
	}
	cases := []refusal{
		{"stride with padding", net("Conv2d(1, 2, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)", "Identity()"), []int{1, 5, 5}, "padding (1, 1) is neither valid nor same"},
		{"asymmetric padding", net("Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 1), padding=(2, 2), bias=False)", "Identity()"), []int{1, 5, 5}, "padding (2, 2)"},
		{"dilation", net("Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 1), dilation=(2, 2), bias=False)", "Identity()"), []int{1, 5, 5}, "dilation (2, 2) is not supported"},
		{"groups", net("Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 1), groups=2, bias=False)", "Identity()"), []int{1, 5, 5}, "groups=2 is not supported"},
		{"rectangular kernel", net("Conv2d(1, 2, kernel_size=(3, 1), stride=(1, 1), bias=False)", "Identity()"), []int{1, 5, 5}, "kernel_size (3, 1)"},
		{"rectangular stride", net("Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 2), bias=False)", "Identity()"), []int{1, 5, 5}, "stride (1, 2) is not supported"},
		{"circular padding", net("Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 1), padding=same, bias=False, padding_mode=circular)", "Identity()"), []int{1, 5, 5}, "padding_mode=circular"},
		{"overlapping pool", net(conv, "MaxPool2d(kernel_size=3, stride=2, padding=0, dilation=1, ceil_mode=False)"), []int{1, 5, 5}, "MaxPool2d(kernel_size=3, stride=2"},
		{"ceil mode", net(conv, "AvgPool2d(kernel_size=2, stride=2, padding=0, ceil_mode=True)"), []int{1, 5, 5}, "ceil_mode=True"},
		{"batchnorm", net(conv, "BatchNorm2d(2, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)"), []int{1, 5, 5}, "BatchNorm2d(2"},
		{"pool before activation", []string{conv, "MaxPool2d(kernel_size=1, stride=1, padding=0, dilation=1, ceil_mode=False)", "ReLU()", "Flatten(start_dim=1, end_dim=-1)", "Linear(in_features=18, out_features=1, bias=False)"}, []int{1, 5, 5}, "only right after a conv's activation"},
		{"flatten size", net(conv, "Identity()"), []int{1, 6, 6}, "takes 18 features, Flatten gives 2×4×4 = 32"},
		{"channels", net(conv, "Identity()"), []int{3, 5, 5}, "takes 1 channels, the layer before gives 3"},
		{"no input shape", net(conv, "Identity()"), nil, "input_shape"},
		{"huge input shape", net(conv, "MaxPool2d(kernel_size=1048576, stride=1048576, padding=0, dilation=1, ceil_mode=False)"), []int{1, 1 << 20, 1 << 20}, "at most 67108864"},
		{"no modules", nil, []int{1, 5, 5}, "modules array"},
		{"no flatten", []string{conv, "ReLU()"}, []int{1, 5, 5}, "theta/4.weight belongs to no module"},
		{"no linear", []string{conv, "ReLU()", "Flatten(start_dim=1, end_dim=-1)"}, []int{1, 5, 5}, "theta/4.weight belongs to no module"},
	}
	assertRefused(t, params, cases)
}

// refusal is a network MapModel must refuse: its modules, input shape and
// a part of the message.
type refusal struct {
	name    string
	modules []string
	shape   []int
	want    string
}

// assertRefused asserts that MapModel refuses each network (the given
// state_dict with the case's modules and input shape) with the message.
func assertRefused(t *testing.T, params []Param, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := MapModel(&Trajectory{Params: params, Modules: c.modules, InputShape: c.shape})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestReadNPZInputShape: the input shape comes from X (n, C, H, W) or from
// input_shape (3,) beside X (n, C·H·W), and for a Conv1d network from X
// (n, C, W) or input_shape (2,) beside X (n, C·W); a malformed or inconsistent one is a
// one-line error naming the array.
func TestReadNPZInputShape(t *testing.T) {
	with := func(x npyArray, extra ...npyArray) []npyArray {
		as := validArrays()
		for i := range as {
			if as[i].name == "X" {
				as[i] = x
			}
		}
		return append(as, extra...)
	}
	flat := npyArray{name: "X", descr: "<f8", shape: []int{2, 2}, data: f64(1, 0.5, -1, 0.25)}
	images := npyArray{name: "X", descr: "<f8", shape: []int{2, 1, 1, 2}, data: f64(1, 0.5, -1, 0.25)}
	shape := func(descr string, v ...int64) npyArray {
		return npyArray{name: "input_shape", descr: descr, shape: []int{len(v)}, data: i64(v...)}
	}
	sequences := npyArray{name: "X", descr: "<f8", shape: []int{2, 1, 2}, data: f64(1, 0.5, -1, 0.25)}
	for _, as := range [][]npyArray{with(images), with(flat, shape("<i8", 2, 1, 1)), with(sequences), with(flat, shape("<i8", 1, 2))} {
		tr, err := readBytes(buildNPZ(t, as))
		if err != nil {
			t.Fatal(err)
		}
		size := 1
		for _, v := range tr.InputShape {
			size *= v
		}
		if tr.D != 2 || len(tr.InputShape) < 2 || size != 2 {
			t.Fatalf("D %d, input shape %v", tr.D, tr.InputShape)
		}
	}
	cases := []struct {
		name   string
		arrays []npyArray
		want   string
	}{
		{"wrong size", with(flat, shape("<i8", 1, 3, 1)), "input_shape [1 3 1] has 3 values, X has 2 features"},
		{"four entries", with(flat, shape("<i8", 1, 1, 1, 2)), "input_shape has dtype"},
		{"wrong size (C, W)", with(flat, shape("<i8", 1, 3)), "input_shape [1 3] has 3 values, X has 2 features"},
		{"both (C, W)", with(sequences, shape("<i8", 1, 2)), "input_shape has dtype"},
		{"zero", with(flat, shape("<i8", 0, 1, 2)), "input_shape: entry 0 is 0"},
		{"floats", with(flat, npyArray{name: "input_shape", descr: "<f8", shape: []int{3}, data: f64(1, 1, 2)}), "want (3,) integers"},
		{"both", with(images, shape("<i8", 1, 1, 2)), "input_shape has dtype"},
		{"5-D X", with(npyArray{name: "X", descr: "<f8", shape: []int{2, 1, 1, 1, 2}, data: f64(1, 0.5, -1, 0.25)}), "X has dtype <f8 and shape (2, 1, 1, 1, 2)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readBytes(buildNPZ(t, c.arrays))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestWriteNPZInputShape: a CNN run read from X (n, C, H, W), or a Conv1d
// run from X (n, C, W), survives WriteNPZ (which writes X flattened and
// input_shape) and maps the same.
func TestWriteNPZInputShape(t *testing.T) {
	for _, file := range []string{"map_conv_max.npz", "map_conv1d_max.npz"} {
		t.Run(file, func(t *testing.T) {
			if file == "map_conv1d_max.npz" {
				needGolden(t, file)
			}
			tr, m, _ := mappedFile(t, file)
			back := writeRead(t, tr)
			if !reflect.DeepEqual(back.InputShape, tr.InputShape) || !reflect.DeepEqual(back.X, tr.X) {
				t.Fatalf("input shape %v, want %v (X equal: %v)", back.InputShape, tr.InputShape, reflect.DeepEqual(back.X, tr.X))
			}
			if mb, err := MapModel(back); err != nil || mb.Spec != m.Spec {
				t.Fatalf("read back: spec %q, %v; want %q", mb.Spec, err, m.Spec)
			}
		})
	}
}
