package check

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"unicode/utf8"

	"codeberg.org/sbinet/npyio"
)

// MaxArrayBytes bounds the uncompressed size of one array of a trajectory
// file (1 GiB): a corrupt or hostile zip entry cannot make the reader
// allocate more. A real run is far below it (10⁶ parameters × 100 records of
// float64 is 800 MB).
const MaxArrayBytes = 1 << 30

// array is one decoded NPY array: its dtype and shape, and its values as
// float64 (numeric dtypes) or strings (unicode and byte-string dtypes), in C
// (row-major) order.
type array struct {
	name  string
	dtype string
	shape []int
	f     []float64
	s     []string
	// exact reports a float64 dtype (values kept bit for bit); integer dtypes
	// whose values fit in 2⁵³ are exact too, but are flagged by integer.
	exact, integer bool
	// entry, when set, holds a theta/ array's values, not read yet: they
	// start dataAt bytes into it (npztheta.go).
	entry  *zip.File
	dataAt int
}

func (a *array) size() int {
	n := 1
	for _, s := range a.shape {
		n *= s
	}
	return n
}

func (a *array) shapeString() string {
	parts := make([]string, len(a.shape))
	for i, s := range a.shape {
		parts[i] = fmt.Sprint(s)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// ReadFile reads a trajectory file written by numpy.savez (docs/check.md).
func ReadFile(path string) (*Trajectory, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	t, err := ReadNPZ(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ReadNPZ reads a trajectory from the NPZ archive in r (size bytes): the
// arrays of docs/check.md, every one validated (dtype, shape, finite
// values). An unknown array is an error that names it, so that a misspelt
// key is not silently ignored.
func ReadNPZ(r io.ReaderAt, size int64) (*Trajectory, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("not an NPZ archive (numpy.savez writes a zip file): %v", err)
	}
	arrays := map[string]*array{}
	var order []string
	for _, f := range zr.File {
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok {
			return nil, fmt.Errorf("archive member %q is not an .npy array", f.Name)
		}
		if _, dup := arrays[name]; dup {
			return nil, fmt.Errorf("array %q appears twice", name)
		}
		read := readMember
		if strings.HasPrefix(name, "theta/") {
			read = thetaHeader
		}
		a, err := read(f)
		if err != nil {
			return nil, fmt.Errorf("array %s: %w", name, err)
		}
		a.name = name
		arrays[name] = a
		order = append(order, name)
	}
	return assemble(arrays, order)
}

// readMember reads one .npy member: its bytes (bounded by MaxArrayBytes and
// by the size the zip declares), a header check before npyio parses it (so
// that a malformed header is an error, not a panic or an allocation of the
// size it claims), and the data, whose length must match the shape.
func readMember(f *zip.File) (a *array, err error) {
	if f.UncompressedSize64 > MaxArrayBytes {
		return nil, fmt.Errorf("%d bytes uncompressed, more than the limit of %d", f.UncompressedSize64, MaxArrayBytes)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	raw, err := io.ReadAll(io.LimitReader(rc, int64(f.UncompressedSize64)+1))
	if err != nil {
		return nil, err
	}
	if uint64(len(raw)) != f.UncompressedSize64 {
		return nil, fmt.Errorf("the zip entry holds %d bytes, not the %d it declares", len(raw), f.UncompressedSize64)
	}
	dataAt, err := headerEnd(raw)
	if err != nil {
		return nil, err
	}
	// npyio parses the header dictionary; a header our check let through
	// but npyio cannot slice is reported, never propagated as a panic.
	defer func() {
		if p := recover(); p != nil {
			a, err = nil, fmt.Errorf("malformed NPY header: %v", p)
		}
	}()
	nr, err := npyio.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("malformed NPY data: %v", err)
	}
	h := nr.Header.Descr
	a = &array{dtype: strings.Trim(h.Type, "'\""), shape: append([]int(nil), h.Shape...)}
	n := 1
	for _, s := range a.shape {
		if s < 0 || (s > 0 && n > MaxArrayBytes/s) {
			return nil, fmt.Errorf("shape %v is not a valid array shape", a.shape)
		}
		n *= s
	}
	data := raw[dataAt:]
	if err := a.decode(nr, data, n); err != nil {
		return nil, err
	}
	if h.Fortran && len(a.shape) > 1 {
		a.toRowMajor()
	}
	return a, nil
}

// headerEnd checks the NPY preamble (magic, version, header length) and
// returns the offset of the data.
func headerEnd(raw []byte) (int, error) {
	const magic = "\x93NUMPY"
	if len(raw) < 10 || string(raw[:6]) != magic {
		return 0, errors.New("not an NPY array (bad magic)")
	}
	var hlen, pre int
	switch raw[6] {
	case 1:
		hlen, pre = int(binary.LittleEndian.Uint16(raw[8:10])), 10
	case 2, 3:
		if len(raw) < 12 {
			return 0, errors.New("truncated NPY header")
		}
		hlen, pre = int(binary.LittleEndian.Uint32(raw[8:12])), 12
	default:
		return 0, fmt.Errorf("NPY format version %d is not known", raw[6])
	}
	if hlen > len(raw)-pre || hlen < 1 {
		return 0, fmt.Errorf("NPY header of %d bytes in an entry of %d", hlen, len(raw))
	}
	hdr := raw[pre : pre+hlen]
	if hdr[len(hdr)-1] != '\n' || !bytes.Contains(hdr, []byte("'descr': ")) ||
		!bytes.Contains(hdr, []byte("'fortran_order': ")) || !bytes.Contains(hdr, []byte("'shape': (")) {
		return 0, errors.New("malformed NPY header dictionary")
	}
	// npyio slices the header between these keys in this order.
	d := bytes.Index(hdr, []byte("'descr': "))
	o := bytes.Index(hdr, []byte("'fortran_order': "))
	s := bytes.Index(hdr, []byte("'shape': ("))
	e := bytes.IndexByte(hdr, '}')
	if !(d+len("'descr': ")+2 <= o && o+len("'fortran_order': ")+2 <= s && s+len("'shape': (")+1 <= e) {
		return 0, errors.New("malformed NPY header dictionary (keys out of order)")
	}
	return pre + hlen, nil
}

// itemSize returns the byte size of the dtypes the format accepts.
var itemSize = map[string]int{
	"<f8": 8, "<f4": 4, "<i8": 8, "<i4": 4, "<i2": 2, "|i1": 1, "|u1": 1, "<u2": 2, "<u4": 4, "|b1": 1,
}

// decode reads n values of the array's dtype from data (through npyio for
// numeric dtypes; unicode and byte strings, which npyio does not read into
// slices, decoded here).
func (a *array) decode(nr *npyio.Reader, data []byte, n int) error {
	dt := a.dtype
	if strings.HasPrefix(dt, "<U") || strings.HasPrefix(dt, "|S") {
		var width int
		if _, err := fmt.Sscanf(dt[2:], "%d", &width); err != nil || width < 1 {
			return fmt.Errorf("string dtype %q", dt)
		}
		item := width
		if dt[0] == '<' {
			item = 4 * width
		}
		if n > len(data)/item || len(data) != n*item {
			return fmt.Errorf("shape %v of %s needs %d bytes of data, the array has %d", a.shape, dt, n*item, len(data))
		}
		a.s = make([]string, n)
		for i := range a.s {
			a.s[i] = decodeString(data[i*item:(i+1)*item], dt[0] == '<')
		}
		return nil
	}
	size, ok := itemSize[dt]
	if !ok {
		return fmt.Errorf("dtype %q is not supported (want float64 '<f8', an integer type or strings)", dt)
	}
	if n > len(data)/size || len(data) != n*size {
		return fmt.Errorf("shape %v of %s needs %d bytes of data, the array has %d", a.shape, dt, n*size, len(data))
	}
	a.f = make([]float64, n)
	var err error
	switch dt {
	case "<f8":
		a.exact = true
		err = nr.Read(&a.f)
	case "<f4":
		v := make([]float32, n)
		if err = nr.Read(&v); err == nil {
			for i, x := range v {
				a.f[i] = float64(x)
			}
		}
	default:
		a.integer = true
		err = readInts(nr, dt, a.f)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("reading %s data: %v", dt, err)
	}
	return nil
}

// readInts reads an integer or boolean array into dst.
func readInts(nr *npyio.Reader, dt string, dst []float64) error {
	switch dt {
	case "<i8":
		if err := readAs[int64](nr, dst); err != nil {
			return err
		}
		for i, x := range dst {
			// float64(int64) rounds beyond 2⁵³: a step number that large
			// is not a step number.
			if math.Abs(x) > 1<<53 {
				return fmt.Errorf("integer %g at %d is beyond 2⁵³", x, i)
			}
		}
		return nil
	case "<i4":
		return readAs[int32](nr, dst)
	case "<i2":
		return readAs[int16](nr, dst)
	case "|i1":
		return readAs[int8](nr, dst)
	case "|u1":
		return readAs[uint8](nr, dst)
	case "<u2":
		return readAs[uint16](nr, dst)
	case "<u4":
		return readAs[uint32](nr, dst)
	case "|b1":
		v := make([]bool, len(dst))
		if err := nr.Read(&v); err != nil {
			return err
		}
		for i, b := range v {
			dst[i] = 0
			if b {
				dst[i] = 1
			}
		}
	}
	return nil
}

// readAs reads len(dst) values of the integer type T into dst.
func readAs[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32](nr *npyio.Reader, dst []float64) error {
	v := make([]T, len(dst))
	if err := nr.Read(&v); err != nil {
		return err
	}
	for i, x := range v {
		dst[i] = float64(x)
	}
	return nil
}

// decodeString decodes one fixed-width NumPy string (UTF-32LE for '<U',
// bytes for '|S'), without its trailing NULs.
func decodeString(b []byte, utf32 bool) string {
	var sb strings.Builder
	if utf32 {
		for i := 0; i+4 <= len(b); i += 4 {
			r := rune(binary.LittleEndian.Uint32(b[i:]))
			if r == 0 {
				break
			}
			if !utf8.ValidRune(r) {
				r = utf8.RuneError
			}
			sb.WriteRune(r)
		}
		return sb.String()
	}
	return strings.ToValidUTF8(string(bytes.TrimRight(b, "\x00")), "\uFFFD")
}

// toRowMajor reorders a Fortran-order (column-major) array to C order.
func (a *array) toRowMajor() {
	n := a.size()
	src := a.f
	if a.s != nil {
		n = len(a.s)
	}
	idx := make([]int, len(a.shape))
	perm := make([]int, n) // perm[c] = the column-major offset of C offset c
	for c := 0; c < n; c++ {
		// idx is the multi-index of C offset c.
		off, stride := 0, 1
		for k := range a.shape {
			off += idx[k] * stride
			stride *= a.shape[k]
		}
		perm[c] = off
		for k := len(a.shape) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < a.shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	if a.s != nil {
		out := make([]string, n)
		for c, o := range perm {
			out[c] = a.s[o]
		}
		a.s = out
		return
	}
	out := make([]float64, n)
	for c, o := range perm {
		out[c] = src[o]
	}
	a.f = out
}

// assemble builds the trajectory from the decoded arrays (order is the
// archive's, which numpy.savez writes in the order of its keyword arguments:
// the state_dict order of the theta/ arrays).
func assemble(arrays map[string]*array, order []string) (*Trajectory, error) {
	t := &Trajectory{Reduction: "mean"}
	step, ok := arrays["step"]
	if !ok {
		return nil, errors.New("missing array step (T,) int64: the recorded step indices")
	}
	if len(step.shape) != 1 || step.shape[0] < 1 {
		return nil, fmt.Errorf("step has shape %s, want (T,) with T ≥ 1", step.shapeString())
	}
	if !step.integer {
		return nil, fmt.Errorf("step has dtype %s, want an integer type (int64)", step.dtype)
	}
	T := step.shape[0]
	t.Steps = make([]int, T)
	for i, v := range step.f {
		t.Steps[i] = int(v)
	}
	vector := func(name string, need bool) ([]float64, error) {
		a, ok := arrays[name]
		if !ok {
			return nil, nil
		}
		if need && !a.exact {
			return nil, fmt.Errorf("%s has dtype %s, want float64 ('<f8'): the checks compare to float64 rounding (train and save in float64)", name, a.dtype)
		}
		if a.f == nil {
			return nil, fmt.Errorf("%s has dtype %s, want numbers", name, a.dtype)
		}
		if len(a.shape) != 1 || a.shape[0] != T {
			return nil, fmt.Errorf("%s has shape %s, want (%d,): one value per record (step has %d)", name, a.shapeString(), T, T)
		}
		return a.f, nil
	}
	var err error
	if t.LR, err = vector("lr", true); err != nil {
		return nil, err
	}
	if t.Time, err = vector("time", true); err != nil {
		return nil, err
	}
	if t.LocalError, err = vector("local_error", true); err != nil {
		return nil, err
	}
	if a, ok := arrays["reduction"]; ok {
		if a.s == nil || len(a.s) != 1 {
			return nil, fmt.Errorf("reduction has dtype %s and shape %s, want one string, 'mean' or 'sum'", a.dtype, a.shapeString())
		}
		t.Reduction = a.s[0]
	}
	if a, ok := arrays["modules"]; ok {
		if a.s == nil || len(a.shape) != 1 {
			return nil, fmt.Errorf("modules has dtype %s and shape %s, want (k,) strings: str(m) of each module", a.dtype, a.shapeString())
		}
		t.Modules = a.s
	}
	if x, ok := arrays["X"]; ok {
		switch {
		case x.f != nil && len(x.shape) == 2:
			t.N, t.D, t.X = x.shape[0], x.shape[1], x.f
		case x.f != nil && len(x.shape) == 3:
			// sequences as PyTorch holds them, (n, C, W): flattened in
			// that order, the shape kept for the Conv1d mapping
			t.N, t.D, t.X = x.shape[0], x.shape[1]*x.shape[2], x.f
			t.InputShape = append([]int(nil), x.shape[1:]...)
		case x.f != nil && len(x.shape) == 4:
			// images as PyTorch holds them, (n, C, H, W): flattened in
			// that order, the shape kept for the Conv2d mapping
			t.N, t.D, t.X = x.shape[0], x.shape[1]*x.shape[2]*x.shape[3], x.f
			t.InputShape = append([]int(nil), x.shape[1:]...)
		default:
			return nil, fmt.Errorf("X has dtype %s and shape %s, want (n, d), sequences (n, C, W) or images (n, C, H, W) numbers", x.dtype, x.shapeString())
		}
	}
	if s, ok := arrays["input_shape"]; ok {
		if !s.integer || len(s.shape) != 1 || (s.shape[0] != 3 && s.shape[0] != 2) || t.InputShape != nil {
			return nil, fmt.Errorf("input_shape has dtype %s and shape %s, want (3,) integers (C, H, W), or (2,) (C, W) for a Conv1d network, beside an X of shape (n, C·H·W) or (n, C·W)", s.dtype, s.shapeString())
		}
		t.InputShape = make([]int, s.shape[0])
		size := 1
		for i, v := range s.f {
			if !(v >= 1) || v > 1<<20 {
				return nil, fmt.Errorf("input_shape: entry %d is %v, want an integer ≥ 1", i, v)
			}
			t.InputShape[i] = int(v)
			size *= int(v)
		}
		if t.X != nil && size != t.D {
			return nil, fmt.Errorf("input_shape %v has %d values, X has %d features", t.InputShape, size, t.D)
		}
	}
	if y, ok := arrays["y"]; ok {
		if y.f == nil || len(y.shape) != 1 {
			return nil, fmt.Errorf("y has dtype %s and shape %s, want (n,) numbers", y.dtype, y.shapeString())
		}
		if t.X != nil && y.shape[0] != t.N {
			return nil, fmt.Errorf("y has %d values, X has %d samples", y.shape[0], t.N)
		}
		t.Y = y.f
	}
	if w, ok := arrays["weights"]; ok {
		if !w.exact {
			return nil, fmt.Errorf("weights has dtype %s, want float64", w.dtype)
		}
		switch {
		case len(w.shape) == 1:
			for range T {
				t.Weights = append(t.Weights, w.f)
			}
		case len(w.shape) == 2 && w.shape[0] == T:
			for i := range T {
				t.Weights = append(t.Weights, w.f[i*w.shape[1]:(i+1)*w.shape[1]])
			}
		default:
			return nil, fmt.Errorf("weights has shape %s, want (n,) or (%d, n)", w.shapeString(), T)
		}
	}
	if err := readScheme(arrays, t); err != nil {
		return nil, err
	}
	if w, ok := arrays["weight_sum"]; ok {
		if !w.exact || len(w.shape) != 2 || w.shape[0] != T {
			return nil, fmt.Errorf("weight_sum has dtype %s and shape %s, want float64 (%d, n)", w.dtype, w.shapeString(), T)
		}
		for i := range T {
			t.WeightSum = append(t.WeightSum, w.f[i*w.shape[1]:(i+1)*w.shape[1]])
		}
	}
	// A run in float32 is refused for its precision first, whichever of its
	// arrays is met first (outputs is read before the tensors).
	for _, name := range order {
		if msg := lowPrecision(name, arrays[name]); msg != "" {
			return nil, errors.New(msg)
		}
	}
	if o, ok := arrays["outputs"]; ok {
		if !o.exact || (len(o.shape) != 1 && len(o.shape) != 2) || (t.X != nil && o.shape[0] != t.N) {
			return nil, fmt.Errorf("outputs has dtype %s and shape %s, want float64 (n,) or (n, K): net(X) at the last record", o.dtype, o.shapeString())
		}
		t.Outputs = o.f
	}
	for _, name := range order {
		a := arrays[name]
		key, ok := strings.CutPrefix(name, "theta/")
		if strings.HasPrefix(name, "scalars/") {
			continue // readScalars
		}
		if !ok {
			switch name {
			case "step", "lr", "time", "local_error", "reduction", "modules", "X", "input_shape", "y", "weights", "weight_sum", "scheme", "outputs":
				continue
			}
			return nil, fmt.Errorf("unknown array %q (known: step, lr, time, reduction, theta/<key>, X, input_shape, y, weights, weight_sum, scheme, modules, outputs, local_error, scalars/{step,log_loss,norm,lr,q_min})", name)
		}
		if key == "" {
			return nil, errors.New("array theta/ has no state_dict key")
		}
		if !a.exact {
			if msg := bufferOf(key); msg != "" {
				return nil, fmt.Errorf("%s has dtype %s: %s", name, a.dtype, msg)
			}
			return nil, fmt.Errorf("%s has dtype %s, want float64 ('<f8'): train and save in float64 (model.double())", name, a.dtype)
		}
		if len(a.shape) < 2 || a.shape[0] != T {
			return nil, fmt.Errorf("%s has shape %s, want (%d, *shape): one snapshot per record (step has %d)", name, a.shapeString(), T, T)
		}
		p := Param{Name: key, Shape: append([]int(nil), a.shape[1:]...)}
		t.Params = append(t.Params, p)
	}
	if len(t.Params) == 0 {
		return nil, errors.New("missing parameter arrays: want theta/<state_dict key> (T, *shape) for every tensor")
	}
	sc, err := readScalars(arrays)
	if err != nil {
		return nil, err
	}
	t.Scalars = sc
	P := t.NumParams()
	t.Theta = make([][]float64, T)
	for i := range t.Theta {
		t.Theta[i] = make([]float64, P)
	}
	off := 0
	for _, p := range t.Params {
		a := arrays["theta/"+p.Name]
		k := p.Size()
		if a.entry != nil {
			if err := fillTheta(a, t.Theta, off, k); err != nil {
				return nil, fmt.Errorf("array theta/%s: %w", p.Name, err)
			}
		} else {
			for i := range T {
				copy(t.Theta[i][off:off+k], a.f[i*k:(i+1)*k])
			}
		}
		off += k
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t, nil
}

// lowPrecision returns the refusal of a float32 (or float16) array of the
// run's numbers: the run was trained in that precision, and converting
// when saving keeps its rounding in every step; "" otherwise.
func lowPrecision(name string, a *array) string {
	switch name {
	case "step", "reduction", "modules", "input_shape", "y":
		return ""
	}
	switch strings.TrimLeft(a.dtype, "<>|=") {
	case "f4", "f2":
		return fmt.Sprintf("%s has dtype %s: the run was trained in float32 (or float16), and check compares every step to float64 rounding, 10⁹ times finer; train in float64 from the first step — torch.set_default_dtype(torch.float64), or model.double() and float64 data before the optimizer is built — and save float64 (converting when saving keeps float32's rounding in every step)", name, a.dtype)
	}
	return ""
}

// bufferOf names the module a state_dict buffer belongs to when it is a
// normalization layer's (an int64 num_batches_tracked is the first array a
// BatchNorm net fails on): "" for other keys.
func bufferOf(key string) string {
	for _, b := range []string{"num_batches_tracked", "running_mean", "running_var"} {
		if mod, ok := strings.CutSuffix(key, "."+b); ok {
			return fmt.Sprintf("%s is a buffer of a normalization layer (module %s, BatchNorm): check maps networks of Linear, Conv and activation modules (LL's theorems are about homogeneous networks; a BatchNorm net is not one), so remove module %s", b, mod, mod)
		}
	}
	return ""
}

// readScalars reads the scalars/… arrays (Scalars), nil when there are none.
func readScalars(arrays map[string]*array) (*Scalars, error) {
	var names []string
	for name := range arrays {
		if strings.HasPrefix(name, "scalars/") {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	sc := &Scalars{}
	for _, name := range names {
		a := arrays[name]
		if len(a.shape) != 1 || a.f == nil {
			return nil, fmt.Errorf("%s has dtype %s and shape %s, want (S,) numbers, one per step", name, a.dtype, a.shapeString())
		}
		switch name {
		case "scalars/step":
			for _, v := range a.f {
				sc.Steps = append(sc.Steps, int(v))
			}
			continue
		case "scalars/log_loss", "scalars/norm", "scalars/lr", "scalars/q_min":
		default:
			return nil, fmt.Errorf("unknown array %q (known scalars: scalars/step, scalars/log_loss, scalars/norm, scalars/lr, scalars/q_min)", name)
		}
		if !a.exact {
			return nil, fmt.Errorf("%s has dtype %s, want float64", name, a.dtype)
		}
		switch name {
		case "scalars/log_loss":
			sc.LogLoss = a.f
		case "scalars/norm":
			sc.Norm = a.f
		case "scalars/lr":
			sc.LR = a.f
		case "scalars/q_min":
			sc.QMin = a.f
		}
	}
	if sc.Steps == nil || sc.LogLoss == nil || sc.Norm == nil || sc.LR == nil {
		return nil, errors.New("scalars: want scalars/step, scalars/log_loss, scalars/norm and scalars/lr together (scalars/q_min optional)")
	}
	return sc, nil
}
