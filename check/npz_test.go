package check

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"strings"
	"testing"
)

// npyArray is one array of a hand-built NPZ file.
type npyArray struct {
	name, descr string
	shape       []int
	data        []byte
	raw         []byte // the whole member, when set (a malformed header)
}

func f64(v ...float64) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

func i64(v ...int64) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return b
}

func f32(v ...float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func u32str(width int, ss ...string) []byte {
	var b []byte
	for _, s := range ss {
		r := []rune(s)
		for i := range width {
			var c rune
			if i < len(r) {
				c = r[i]
			}
			b = binary.LittleEndian.AppendUint32(b, uint32(c))
		}
	}
	return b
}

// buildNPZ writes the arrays as numpy.savez would.
func buildNPZ(t testing.TB, arrays []npyArray) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, a := range arrays {
		w, err := zw.Create(a.name + ".npy")
		if err != nil {
			t.Fatal(err)
		}
		if a.raw != nil {
			w.Write(a.raw)
			continue
		}
		w.Write(npyHeader(a.descr, a.shape))
		w.Write(a.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// validArrays is a small valid run: 3 records of a 2-3-1 ReLU net on 2
// samples.
func validArrays() []npyArray {
	w1 := make([]float64, 3*3*2)
	w2 := make([]float64, 3*1*3)
	for i := range w1 {
		w1[i] = float64(i%5) - 2
	}
	for i := range w2 {
		w2[i] = float64(i%3) + 0.5
	}
	return []npyArray{
		{name: "step", descr: "<i8", shape: []int{3}, data: i64(0, 1, 10)},
		{name: "lr", descr: "<f8", shape: []int{3}, data: f64(0.1, 0.1, 0.1)},
		{name: "theta/0.weight", descr: "<f8", shape: []int{3, 3, 2}, data: f64(w1...)},
		{name: "theta/2.weight", descr: "<f8", shape: []int{3, 1, 3}, data: f64(w2...)},
		{name: "X", descr: "<f8", shape: []int{2, 2}, data: f64(1, 0.5, -1, 0.25)},
		{name: "y", descr: "<i8", shape: []int{2}, data: i64(1, 0)},
		{name: "modules", descr: "<U52", shape: []int{3}, data: u32str(52, "Linear(in_features=2, out_features=3, bias=False)", "ReLU()", "Linear(in_features=3, out_features=1, bias=False)")},
	}
}

func readBytes(b []byte) (*Trajectory, error) {
	return ReadNPZ(bytes.NewReader(b), int64(len(b)))
}

func TestReadNPZValid(t *testing.T) {
	tr, err := readBytes(buildNPZ(t, validArrays()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tr.Steps, []int{0, 1, 10}) || tr.NumParams() != 9 || tr.N != 2 || tr.D != 2 || tr.Reduction != "mean" {
		t.Fatalf("read %+v", tr)
	}
	if tr.Theta[1][0] != -1 || tr.Theta[1][6] != 0.5 || tr.Theta[2][8] != 2.5 {
		t.Fatalf("θ layout: %v", tr.Theta)
	}
	m, err := MapModel(tr)
	if err != nil || m.Spec != "mlp:relu:2x3" {
		t.Fatalf("spec %q, %v", m.Spec, err)
	}
}

// TestReadNPZFortranOrder: an array numpy saved in Fortran order (a
// transposed view) is read in C order.
func TestReadNPZFortranOrder(t *testing.T) {
	as := validArrays()
	raw := npyHeader("<f8", []int{2, 2})
	raw = bytes.Replace(raw, []byte("'fortran_order': False, "), []byte("'fortran_order': True, "), 1)
	raw = bytes.Replace(raw, []byte("\n"), []byte(" \n"), 1) // same length
	as[4] = npyArray{name: "X", raw: append(raw, f64(1, -1, 0.5, 0.25)...)}
	tr, err := readBytes(buildNPZ(t, as))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tr.X, []float64{1, 0.5, -1, 0.25}) {
		t.Fatalf("X = %v", tr.X)
	}
}

// TestReadNPZMalformed: every malformed file is one error that names the
// array at fault, never a panic.
func TestReadNPZMalformed(t *testing.T) {
	with := func(edits ...func([]npyArray) []npyArray) []byte {
		as := validArrays()
		for _, edit := range edits {
			as = edit(as)
		}
		return buildNPZ(t, as)
	}
	set := func(i int, a npyArray) func([]npyArray) []npyArray {
		return func(as []npyArray) []npyArray { as[i] = a; return as }
	}
	drop := func(name string) func([]npyArray) []npyArray {
		return func(as []npyArray) []npyArray {
			var out []npyArray
			for _, a := range as {
				if a.name != name {
					out = append(out, a)
				}
			}
			return out
		}
	}
	add := func(a npyArray) func([]npyArray) []npyArray {
		return func(as []npyArray) []npyArray { return append(as, a) }
	}
	nan := make([]float64, 18)
	nan[7] = math.NaN()
	cases := []struct {
		name string
		file []byte
		want string
	}{
		{"not a zip", []byte("step,lr\n0,0.1\n"), "not an NPZ archive"},
		{"empty", nil, "not an NPZ archive"},
		{"missing step", with(drop("step")), "missing array step"},
		{"missing lr", with(drop("lr")), "missing array lr"},
		{"missing theta", with(func(as []npyArray) []npyArray { return drop("theta/2.weight")(drop("theta/0.weight")(as)) }), "missing parameter arrays"},
		{"lr and time", with(add(npyArray{name: "time", descr: "<f8", shape: []int{3}, data: f64(0, 1, 2)})), "both lr and time"},
		{"float step", with(set(0, npyArray{name: "step", descr: "<f8", shape: []int{3}, data: f64(0, 1, 10)})), "step has dtype <f8"},
		{"steps not increasing", with(set(0, npyArray{name: "step", descr: "<i8", shape: []int{3}, data: i64(0, 5, 5)})), "not strictly increasing"},
		{"lr length", with(set(1, npyArray{name: "lr", descr: "<f8", shape: []int{2}, data: f64(0.1, 0.1)})), "lr has shape (2,), want (3,)"},
		{"lr zero", with(set(1, npyArray{name: "lr", descr: "<f8", shape: []int{3}, data: f64(0.1, 0, 0.1)})), "lr: record 1 has 0"},
		{"float32 lr", with(set(1, npyArray{name: "lr", descr: "<f4", shape: []int{3}, data: f32(0.1, 0.1, 0.1)})), "lr has dtype <f4, want float64"},
		{"float32 theta", with(set(2, npyArray{name: "theta/0.weight", descr: "<f4", shape: []int{3, 3, 2}, data: f32(make([]float32, 18)...)})), "theta/0.weight has dtype <f4"},
		{"NaN in theta", with(set(2, npyArray{name: "theta/0.weight", descr: "<f8", shape: []int{3, 3, 2}, data: f64(nan...)})), "theta/0.weight: record 1 (step 1) has NaN at entry 1"},
		{"snapshot count", with(set(2, npyArray{name: "theta/0.weight", descr: "<f8", shape: []int{2, 3, 2}, data: f64(make([]float64, 12)...)})), "theta/0.weight has shape (2, 3, 2), want (3, *shape)"},
		{"theta without record axis", with(set(3, npyArray{name: "theta/2.weight", descr: "<f8", shape: []int{3}, data: f64(1, 2, 3)})), "theta/2.weight has shape (3,)"},
		{"unknown array", with(add(npyArray{name: "lrs", descr: "<f8", shape: []int{3}, data: f64(1, 2, 3)})), `unknown array "lrs"`},
		{"data shorter than shape", with(set(1, npyArray{name: "lr", descr: "<f8", shape: []int{3}, data: f64(0.1, 0.1)})), "array lr: shape [3] of <f8 needs 24 bytes"},
		{"bad magic", with(set(1, npyArray{name: "lr", raw: []byte("not an npy array at all")})), "array lr: not an NPY array"},
		{"header length past the end", with(set(1, npyArray{name: "lr", raw: []byte("\x93NUMPY\x01\x00\xff\xff{'descr'")})), "array lr: NPY header of 65535 bytes"},
		{"header without shape", with(set(1, npyArray{name: "lr", raw: append([]byte("\x93NUMPY\x01\x00\x1f\x00"), []byte("{'descr': '<f8', 'fortran': 1}\n")...)})), "array lr: malformed NPY header"},
		{"object dtype", with(set(1, npyArray{name: "lr", descr: "|O", shape: []int{3}, data: make([]byte, 24)})), `dtype "|O" is not supported`},
		{"y length", with(set(5, npyArray{name: "y", descr: "<i8", shape: []int{3}, data: i64(1, 0, 1)})), "y has 3 values, X has 2 samples"},
		{"X 1-D", with(set(4, npyArray{name: "X", descr: "<f8", shape: []int{4}, data: f64(1, 2, 3, 4)})), "X has dtype <f8 and shape (4,)"},
		{"X NaN", with(set(4, npyArray{name: "X", descr: "<f8", shape: []int{2, 2}, data: f64(1, math.NaN(), 3, 4)})), "X: sample 0 feature 1 is NaN"},
		{"X without y", with(drop("y")), "X and y go together"},
		{"weights shape", with(add(npyArray{name: "weights", descr: "<f8", shape: []int{2, 2}, data: f64(1, 1, 1, 1)})), "weights has shape (2, 2)"},
		{"negative weight", with(add(npyArray{name: "weights", descr: "<f8", shape: []int{2}, data: f64(1, -1)})), "weights: record 0 sample 1 is -1"},
		{"weight_sum without weights", with(add(npyArray{name: "weight_sum", descr: "<f8", shape: []int{3, 2}, data: f64(0, 0, 1, 1, 1, 1)})), "weight_sum: without weights"},
		{"weight_sum shape", with(add(npyArray{name: "weights", descr: "<f8", shape: []int{2}, data: f64(1, 1)}), add(npyArray{name: "weight_sum", descr: "<f8", shape: []int{2, 2}, data: f64(0, 0, 1, 1)})), "weight_sum has dtype <f8 and shape (2, 2), want float64 (3, n)"},
		{"weight_sum samples", with(add(npyArray{name: "weights", descr: "<f8", shape: []int{2}, data: f64(1, 1)}), add(npyArray{name: "weight_sum", descr: "<f8", shape: []int{3, 1}, data: f64(0, 1, 1)})), "weight_sum: record 0 has 1 sums for 2 weights"},
		{"negative weight_sum", with(add(npyArray{name: "weights", descr: "<f8", shape: []int{2}, data: f64(1, 1)}), add(npyArray{name: "weight_sum", descr: "<f8", shape: []int{3, 2}, data: f64(0, 0, 1, -1, 1, 1)})), "weight_sum: record 1 sample 1 is -1"},
		{"reduction", with(add(npyArray{name: "reduction", descr: "<U4", shape: nil, data: u32str(4, "avg")})), `reduction "avg"`},
		{"modules not strings", with(set(6, npyArray{name: "modules", descr: "<f8", shape: []int{1}, data: f64(1)})), "modules has dtype <f8"},
		{"duplicate", with(add(npyArray{name: "lr", descr: "<f8", shape: []int{3}, data: f64(0.1, 0.1, 0.1)})), `array "lr" appears twice`},
		{"not npy member", append([]byte{}, buildZipRaw(t, "notes.txt", []byte("hello"))...), `"notes.txt" is not an .npy array`},
		{"float32 outputs", with(add(npyArray{name: "outputs", descr: "<f4", shape: []int{2, 1}, data: f32(1, 2)})), "outputs has dtype <f4: the run was trained in float32"},
		{"BatchNorm counter", with(add(npyArray{name: "theta/1.num_batches_tracked", descr: "<i8", shape: []int{3}, data: i64(0, 1, 2)})), "num_batches_tracked is a buffer of a normalization layer (module 1, BatchNorm)"},
		{"outputs NaN", with(add(npyArray{name: "outputs", descr: "<f8", shape: []int{2, 1}, data: f64(1, math.NaN())})), "outputs: entry 1 is NaN"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readBytes(c.file)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
		})
	}
}

func buildZipRaw(t *testing.T, name string, data []byte) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	zw.Close()
	return buf.Bytes()
}

// TestWriteNPZRoundTrip: WriteNPZ then ReadNPZ gives the trajectory back,
// bit for bit.
func TestWriteNPZRoundTrip(t *testing.T) {
	tr, err := readBytes(buildNPZ(t, validArrays()))
	if err != nil {
		t.Fatal(err)
	}
	tr.Weights = [][]float64{{0.25, 0.75}, {0.5, 0.5}, {0.125, 0.875}}
	tr.WeightSum = [][]float64{{0, 0}, {0.0625, 0.1875}, {0.5, 0.25}}
	tr.Outputs = []float64{0.5, -1.25}
	tr.Reduction = "sum"
	back := writeRead(t, tr)
	if !reflect.DeepEqual(back, tr) {
		t.Fatalf("round trip changed the trajectory:\n%+v\n%+v", back, tr)
	}
}

// writeRead writes tr with WriteNPZ and reads it back.
func writeRead(t *testing.T, tr *Trajectory) *Trajectory {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteNPZ(&buf, tr); err != nil {
		t.Fatal(err)
	}
	back, err := readBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return back
}
