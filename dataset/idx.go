package dataset

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
)

// IDX is one array of an IDX file, the format of MNIST and Fashion-MNIST:
// a big-endian header — two zero bytes, the element type (0x08: unsigned
// byte, the only one those sets use and ReadIDX reads), the number of
// dimensions — then each dimension as a uint32, then the elements in
// row-major order.
type IDX struct {
	Dims []int
	Data []byte
}

// maxIDXElements bounds an IDX array (1 GiB of bytes): a corrupt header
// gives an error, not an attempt to read without end. Fashion-MNIST's
// largest file has 60 000·28·28 = 47 040 000.
const maxIDXElements = 1 << 30

// ReadIDX reads an IDX array of unsigned bytes, gzip-compressed or not (told
// apart by the gzip magic 1f 8b; an IDX file starts with 00 00). Memory
// grows with the bytes actually read, not with what the header claims.
func ReadIDX(r io.Reader) (*IDX, error) {
	br := bufio.NewReader(r)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("idx: gzip: %v", err)
		}
		defer zr.Close()
		br = bufio.NewReader(zr)
	}
	var head [4]byte
	if _, err := io.ReadFull(br, head[:]); err != nil {
		return nil, fmt.Errorf("idx: header: %v", noEOF(err))
	}
	if head[0] != 0 || head[1] != 0 {
		return nil, fmt.Errorf("idx: not an IDX file (starts % x, want 00 00)", head[:2])
	}
	if head[2] != 0x08 {
		return nil, fmt.Errorf("idx: element type 0x%02x, only unsigned bytes (0x08) are read", head[2])
	}
	nd := int(head[3])
	if nd < 1 {
		return nil, errors.New("idx: no dimensions")
	}
	x := &IDX{Dims: make([]int, nd)}
	total := 1
	for i := range x.Dims {
		var d uint32
		if err := binary.Read(br, binary.BigEndian, &d); err != nil {
			return nil, fmt.Errorf("idx: dimension %d: %v", i+1, noEOF(err))
		}
		if d > maxIDXElements || (d > 0 && total > maxIDXElements/int(d)) {
			return nil, fmt.Errorf("idx: more than %d elements", maxIDXElements)
		}
		x.Dims[i] = int(d)
		total *= int(d)
	}
	data, err := io.ReadAll(io.LimitReader(br, int64(total)+1))
	if err != nil {
		return nil, fmt.Errorf("idx: data: %v", err)
	}
	if len(data) != total {
		return nil, fmt.Errorf("idx: header %v promises %d bytes of data, file has %s", x.Dims, total, count(len(data), total))
	}
	x.Data = data
	return x, nil
}

// count says how many bytes a file has against the want it was read for:
// read stops one past want.
func count(got, want int) string {
	if got > want {
		return "more"
	}
	return fmt.Sprint(got)
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("file ends early")
	}
	return err
}

// ReadIDXFile reads the IDX file at path (see ReadIDX).
func ReadIDXFile(path string) (*IDX, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	x, err := ReadIDX(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return x, nil
}

// FromIDX pairs an images array (N×rows×cols, or N×…) with a labels array
// (N) into a dataset: each image is a row of features, its pixels scaled
// from 0…255 to [0, 1] (LL App. J), and the label is the class index.
func FromIDX(images, labels *IDX) (*Dataset, error) {
	if len(images.Dims) < 2 {
		return nil, fmt.Errorf("idx: images have dimensions %v, want N×rows×cols", images.Dims)
	}
	if len(labels.Dims) != 1 {
		return nil, fmt.Errorf("idx: labels have dimensions %v, want N", labels.Dims)
	}
	n := images.Dims[0]
	if labels.Dims[0] != n {
		return nil, fmt.Errorf("idx: %d images but %d labels", n, labels.Dims[0])
	}
	if n == 0 {
		return nil, ErrEmpty
	}
	d := len(images.Data) / n
	if d == 0 {
		return nil, fmt.Errorf("idx: images have dimensions %v: no pixels", images.Dims)
	}
	ds := &Dataset{N: n, D: d, X: make([]float64, n*d), Y: make([]float64, n)}
	for i, v := range images.Data {
		ds.X[i] = float64(v) / 255
	}
	for i, v := range labels.Data {
		ds.Y[i] = float64(v)
	}
	return ds, nil
}

// FashionMNISTDir is where Debian's dataset-fashion-mnist package installs
// Fashion-MNIST (Xiao, Rasul and Vollgraf 2017): 60 000 training and 10 000
// test images of 28×28 pixels in 10 classes, as gzipped IDX files.
const FashionMNISTDir = "/usr/share/datasets/fashion-mnist"

// FashionMNIST loads the "train" or "test" split from dir (""
// means FashionMNISTDir): 784 features in [0, 1] per image (row-major
// 28×28), labels 0…9. When the files are missing the error says how to
// install them and wraps fs.ErrNotExist.
func FashionMNIST(dir, split string) (*Dataset, error) {
	if dir == "" {
		dir = FashionMNISTDir
	}
	prefix := map[string]string{"train": "train", "test": "t10k"}[split]
	if prefix == "" {
		return nil, fmt.Errorf("dataset: Fashion-MNIST split %q: want train or test", split)
	}
	var arrays [2]*IDX
	for i, kind := range []string{"images-idx3", "labels-idx1"} {
		path := filepath.Join(dir, prefix+"-"+kind+"-ubyte.gz")
		x, err := ReadIDXFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("dataset: Fashion-MNIST is not installed (%s is missing): install it with `apt-get install dataset-fashion-mnist`: %w", path, err)
		}
		if err != nil {
			return nil, fmt.Errorf("dataset: Fashion-MNIST: %w", err)
		}
		arrays[i] = x
	}
	d, err := FromIDX(arrays[0], arrays[1])
	if err != nil {
		return nil, fmt.Errorf("dataset: Fashion-MNIST %s: %w", split, err)
	}
	return d, nil
}

// Balanced returns a seeded balanced subset of d: perClass samples of
// each class in classes, drawn without replacement (a PCG stream seeded by
// seed shuffles each class's samples, and the first perClass are taken),
// kept in d's order, and relabelled 0…len(classes)−1 in the order classes
// lists them, so that a K-class loss reads them.
func Balanced(d *Dataset, classes []int, perClass int, seed uint64) (*Dataset, error) {
	if len(classes) == 0 || perClass < 1 {
		return nil, fmt.Errorf("dataset: a balanced subset needs classes and ≥ 1 sample per class (got %d classes, %d per class)", len(classes), perClass)
	}
	label := map[float64]int{}
	for i, c := range classes {
		if _, dup := label[float64(c)]; dup {
			return nil, fmt.Errorf("dataset: class %d listed twice", c)
		}
		label[float64(c)] = i
	}
	byClass := make([][]int, len(classes))
	for i, y := range d.Y {
		if c, ok := label[y]; ok {
			byClass[c] = append(byClass[c], i)
		}
	}
	r := rand.New(rand.NewPCG(seed, 0xba1a))
	var idx []int
	for c, members := range byClass {
		if len(members) < perClass {
			return nil, fmt.Errorf("dataset: class %d has %d samples, %d asked for", classes[c], len(members), perClass)
		}
		r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		idx = append(idx, members[:perClass]...)
	}
	slices.Sort(idx)
	s := d.Subset(idx)
	for i, y := range s.Y {
		s.Y[i] = float64(label[y])
	}
	return s, nil
}
