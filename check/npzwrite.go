package check

import (
	"archive/zip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// WriteFile writes t to path in the trajectory format (WriteNPZ).
func WriteFile(path string, t *Trajectory) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := WriteNPZ(f, t); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WriteNPZ writes t as numpy.savez would (an uncompressed zip of .npy
// arrays, version 1.0 headers, little-endian, C order): step as int64, every
// float array as float64 bit for bit, reduction and modules as unicode
// strings. The arrays come in the order ReadNPZ documents, theta/ in the
// order of t.Params.
func WriteNPZ(w io.Writer, t *Trajectory) error {
	if err := t.Validate(); err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	T := len(t.Steps)
	put := func(name, descr string, shape []int, data []byte) error {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: zip.Store})
		if err != nil {
			return err
		}
		if _, err := f.Write(npyHeader(descr, shape)); err != nil {
			return err
		}
		_, err = f.Write(data)
		return err
	}
	floats := func(v ...[]float64) []byte {
		var b []byte
		for _, row := range v {
			for _, x := range row {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
			}
		}
		return b
	}
	steps := make([]byte, 0, 8*T)
	for _, s := range t.Steps {
		steps = binary.LittleEndian.AppendUint64(steps, uint64(int64(s)))
	}
	if err := put("step", "<i8", []int{T}, steps); err != nil {
		return err
	}
	if t.LR != nil {
		if err := put("lr", "<f8", []int{T}, floats(t.LR)); err != nil {
			return err
		}
	} else if err := put("time", "<f8", []int{T}, floats(t.Time)); err != nil {
		return err
	}
	if t.LocalError != nil {
		if err := put("local_error", "<f8", []int{T}, floats(t.LocalError)); err != nil {
			return err
		}
	}
	if err := putStrings(put, "reduction", []string{t.Reduction}, nil); err != nil {
		return err
	}
	if sc := t.Scalars; sc != nil {
		S := len(sc.Steps)
		st := make([]byte, 0, 8*S)
		for _, s := range sc.Steps {
			st = binary.LittleEndian.AppendUint64(st, uint64(int64(s)))
		}
		if err := put("scalars/step", "<i8", []int{S}, st); err != nil {
			return err
		}
		for _, a := range []struct {
			name string
			v    []float64
		}{{"scalars/log_loss", sc.LogLoss}, {"scalars/norm", sc.Norm}, {"scalars/lr", sc.LR}, {"scalars/q_min", sc.QMin}} {
			if a.v == nil {
				continue
			}
			if err := put(a.name, "<f8", []int{S}, floats(a.v)); err != nil {
				return err
			}
		}
	}
	off := 0
	for _, p := range t.Params {
		k := p.Size()
		rows := make([][]float64, T)
		for i, th := range t.Theta {
			rows[i] = th[off : off+k]
		}
		if err := put("theta/"+p.Name, "<f8", append([]int{T}, p.Shape...), floats(rows...)); err != nil {
			return err
		}
		off += k
	}
	if t.X != nil {
		if err := put("X", "<f8", []int{t.N, t.D}, floats(t.X)); err != nil {
			return err
		}
		if err := put("y", "<f8", []int{t.N}, floats(t.Y)); err != nil {
			return err
		}
	}
	if t.InputShape != nil {
		shape := make([]byte, 0, 8*len(t.InputShape))
		for _, v := range t.InputShape {
			shape = binary.LittleEndian.AppendUint64(shape, uint64(int64(v)))
		}
		if err := put("input_shape", "<i8", []int{len(t.InputShape)}, shape); err != nil {
			return err
		}
	}
	if t.Weights != nil {
		if err := put("weights", "<f8", []int{T, len(t.Weights[0])}, floats(t.Weights...)); err != nil {
			return err
		}
	}
	if t.Scheme != "" {
		if err := putStrings(put, "scheme", []string{t.Scheme}, nil); err != nil {
			return err
		}
	}
	if t.WeightSum != nil {
		if err := put("weight_sum", "<f8", []int{T, len(t.WeightSum[0])}, floats(t.WeightSum...)); err != nil {
			return err
		}
	}
	if t.Outputs != nil {
		if err := put("outputs", "<f8", []int{t.N, len(t.Outputs) / max(t.N, 1)}, floats(t.Outputs)); err != nil {
			return err
		}
	}
	if t.Modules != nil {
		if err := putStrings(put, "modules", t.Modules, []int{len(t.Modules)}); err != nil {
			return err
		}
	}
	return zw.Close()
}

// putStrings writes strings as a '<U' array (shape nil: a 0-d array).
func putStrings(put func(string, string, []int, []byte) error, name string, ss []string, shape []int) error {
	width := 1
	for _, s := range ss {
		width = max(width, len([]rune(s)))
	}
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
	return put(name, fmt.Sprintf("<U%d", width), shape, b)
}

// npyHeader returns the NPY 1.0 preamble and header for descr and shape,
// padded with spaces and a newline to a multiple of 64 bytes (as numpy
// writes it).
func npyHeader(descr string, shape []int) []byte {
	dims := make([]string, len(shape))
	for i, s := range shape {
		dims[i] = fmt.Sprint(s)
	}
	sh := strings.Join(dims, ", ")
	if len(shape) == 1 {
		sh += ","
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, sh)
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	dict += strings.Repeat(" ", pad) + "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), 0, 0)
	binary.LittleEndian.PutUint16(b[8:], uint16(len(dict)))
	return append(b, dict...)
}
