package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tiny files in testdata were written by a few lines of Python's
// struct and gzip (mtime 0): 6 images of 2×3 pixels, pixel j of image i
// = (6i + j)·37 mod 256, gzipped; labels 0 1 2 0 1 2, uncompressed.
// testdata/fashion-tiny holds the same two arrays, both gzipped, under
// Fashion-MNIST's training file names.

func tinyPixel(i, j int) byte { return byte((6*i + j) * 37 % 256) }

func TestReadIDXFiles(t *testing.T) {
	img, err := ReadIDXFile("testdata/tiny-images-idx3-ubyte.gz")
	require.NoError(t, err)
	assert.Equal(t, []int{6, 2, 3}, img.Dims)
	require.Len(t, img.Data, 36)
	for i := 0; i < 6; i++ {
		for j := 0; j < 6; j++ {
			assert.Equal(t, tinyPixel(i, j), img.Data[6*i+j], "image %d pixel %d", i, j)
		}
	}
	lab, err := ReadIDXFile("testdata/tiny-labels-idx1-ubyte")
	require.NoError(t, err)
	assert.Equal(t, []int{6}, lab.Dims)
	assert.Equal(t, []byte{0, 1, 2, 0, 1, 2}, lab.Data)

	d, err := FromIDX(img, lab)
	require.NoError(t, err)
	require.NoError(t, d.ValidateClasses(3))
	assert.Equal(t, 6, d.N)
	assert.Equal(t, 6, d.D)
	assert.Equal(t, []float64{0, 1, 2, 0, 1, 2}, d.Y)
	for i := 0; i < 6; i++ {
		for j := 0; j < 6; j++ {
			assert.Equal(t, float64(tinyPixel(i, j))/255, d.Row(i)[j])
		}
	}
}

func TestFashionMNISTTiny(t *testing.T) {
	d, err := FashionMNIST("testdata/fashion-tiny", "train")
	require.NoError(t, err)
	assert.Equal(t, 6, d.N)
	assert.Equal(t, float64(tinyPixel(5, 5))/255, d.X[35])

	_, err = FashionMNIST("testdata/fashion-tiny", "test")
	require.ErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, err.Error(), "apt-get install dataset-fashion-mnist")
	assert.Contains(t, err.Error(), "t10k-images-idx3-ubyte.gz")
	assert.NotContains(t, err.Error(), "\n")

	_, err = FashionMNIST("testdata/fashion-tiny", "validation")
	assert.ErrorContains(t, err, "want train or test")
}

// TestFashionMNISTInstalled reads the real set where Debian's package is
// installed (the test needs it, not the build).
func TestFashionMNISTInstalled(t *testing.T) {
	if _, err := os.Stat(filepath.Join(FashionMNISTDir, "t10k-labels-idx1-ubyte.gz")); err != nil {
		t.Skip("Fashion-MNIST is not installed: apt-get install dataset-fashion-mnist")
	}
	d, err := FashionMNIST("", "test")
	require.NoError(t, err)
	assert.Equal(t, 10000, d.N)
	assert.Equal(t, 784, d.D)
	require.NoError(t, d.ValidateClasses(10))
	lo, hi := 1.0, 0.0
	for _, v := range d.X {
		lo, hi = min(lo, v), max(hi, v)
	}
	assert.Equal(t, 0.0, lo)
	assert.Equal(t, 1.0, hi, "some pixel is 255")
	// The test split has 1 000 images of each class.
	counts := make([]int, 10)
	for _, y := range d.Y {
		counts[int(y)]++
	}
	for c, n := range counts {
		assert.Equal(t, 1000, n, "class %d", c)
	}
	s, err := Balanced(d, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 100, 1)
	require.NoError(t, err)
	assert.Equal(t, 1000, s.N)
}

// idxBytes builds an IDX file of unsigned bytes.
func idxBytes(dims []int, data []byte) []byte {
	b := []byte{0, 0, 8, byte(len(dims))}
	for _, d := range dims {
		b = append(b, byte(d>>24), byte(d>>16), byte(d>>8), byte(d))
	}
	return append(b, data...)
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

func TestReadIDXErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "header: file ends early"},
		{"magic", []byte{1, 0, 8, 1, 0, 0, 0, 0}, "not an IDX file"},
		{"type", []byte{0, 0, 0x0d, 1, 0, 0, 0, 0}, "element type 0x0d"},
		{"no dims", []byte{0, 0, 8, 0}, "no dimensions"},
		{"short dims", []byte{0, 0, 8, 2, 0, 0, 0, 1}, "dimension 2: file ends early"},
		{"short data", idxBytes([]int{2, 3}, []byte{1, 2, 3}), "promises 6 bytes of data, file has 3"},
		{"long data", idxBytes([]int{2}, []byte{1, 2, 3}), "promises 2 bytes of data, file has more"},
		{"huge", idxBytes([]int{1 << 16, 1 << 16}, nil), "more than 1073741824 elements"},
		{"bad gzip", []byte{0x1f, 0x8b, 0, 0}, "gzip"},
		{"gzipped short", gz(idxBytes([]int{4}, []byte{1})), "promises 4 bytes"},
	} {
		_, err := ReadIDX(bytes.NewReader(tc.in))
		require.Error(t, err, tc.name)
		assert.Contains(t, err.Error(), tc.want, tc.name)
	}
	x, err := ReadIDX(bytes.NewReader(gz(idxBytes([]int{0, 5}, nil))))
	require.NoError(t, err, "an empty array is an array")
	assert.Equal(t, []int{0, 5}, x.Dims)
}

func TestFromIDXErrors(t *testing.T) {
	img := &IDX{Dims: []int{2, 1, 2}, Data: []byte{1, 2, 3, 4}}
	lab := &IDX{Dims: []int{2}, Data: []byte{0, 1}}
	for _, tc := range []struct {
		name     string
		img, lab *IDX
		want     string
	}{
		{"flat images", &IDX{Dims: []int{4}, Data: []byte{1, 2, 3, 4}}, lab, "want N×rows×cols"},
		{"2-D labels", img, &IDX{Dims: []int{2, 1}, Data: []byte{0, 1}}, "want N"},
		{"counts", img, &IDX{Dims: []int{3}, Data: []byte{0, 1, 2}}, "2 images but 3 labels"},
		{"none", &IDX{Dims: []int{0, 2, 2}}, &IDX{Dims: []int{0}}, "no samples"},
		{"no pixels", &IDX{Dims: []int{2, 0, 2}}, lab, "no pixels"},
	} {
		_, err := FromIDX(tc.img, tc.lab)
		require.Error(t, err, tc.name)
		assert.Contains(t, err.Error(), tc.want, tc.name)
	}
}

func TestBalanced(t *testing.T) {
	// 30 samples, labels i mod 5, feature i.
	d := &Dataset{N: 30, D: 1}
	for i := 0; i < 30; i++ {
		d.X = append(d.X, float64(i))
		d.Y = append(d.Y, float64(i%5))
	}
	s, err := Balanced(d, []int{3, 1}, 4, 7)
	require.NoError(t, err)
	assert.Equal(t, 8, s.N)
	counts := map[float64]int{}
	for i, y := range s.Y {
		counts[y]++
		orig := int(s.X[i])
		want := map[int]float64{3: 0, 1: 1}[orig%5]
		assert.Equal(t, want, y, "sample %d (original %d) relabelled by its place in classes", i, orig)
		if i > 0 {
			assert.Less(t, s.X[i-1], s.X[i], "kept in the data's order")
		}
	}
	assert.Equal(t, map[float64]int{0: 4, 1: 4}, counts)

	again, err := Balanced(d, []int{3, 1}, 4, 7)
	require.NoError(t, err)
	assert.Equal(t, s, again, "same seed, same subset")
	other, err := Balanced(d, []int{3, 1}, 4, 8)
	require.NoError(t, err)
	assert.NotEqual(t, s.X, other.X, "another seed, another subset")
	all, err := Balanced(d, []int{3, 1}, 6, 8)
	require.NoError(t, err)
	assert.Equal(t, 12, all.N, "all of both classes")

	for _, tc := range []struct {
		classes []int
		n       int
		want    string
	}{
		{[]int{3}, 7, "class 3 has 6 samples, 7 asked for"},
		{[]int{9}, 1, "class 9 has 0 samples"},
		{[]int{1, 1}, 1, "class 1 listed twice"},
		{nil, 1, "needs classes"},
		{[]int{1}, 0, "≥ 1 sample per class"},
	} {
		_, err := Balanced(d, tc.classes, tc.n, 1)
		require.Error(t, err, tc.classes)
		assert.Contains(t, err.Error(), tc.want)
	}
}

// FuzzReadIDX asserts that no input makes ReadIDX panic, that every error
// is one line, and that an accepted array has exactly the elements its
// dimensions promise. The seeds are a valid file, its gzipped form and
// broken variants.
func FuzzReadIDX(f *testing.F) {
	valid := idxBytes([]int{2, 2, 2}, []byte{0, 255, 1, 2, 3, 4, 5, 6})
	for _, s := range [][]byte{valid, gz(valid), valid[:9], idxBytes([]int{3}, []byte{0, 1, 2}), {0, 0, 8, 0}, {0x1f, 0x8b}, gz(valid)[:20]} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		x, err := ReadIDX(bytes.NewReader(in))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		total := 1
		for _, d := range x.Dims {
			total *= d
		}
		if total != len(x.Data) {
			t.Fatalf("dimensions %v but %d bytes", x.Dims, len(x.Data))
		}
		// Labels for the images, when they are as few as the bytes read (a
		// header may promise 10⁹ empty images).
		if len(x.Dims) >= 2 && x.Dims[0] > 0 && x.Dims[0] <= len(x.Data) {
			lab := &IDX{Dims: []int{x.Dims[0]}, Data: make([]byte, x.Dims[0])}
			if d, err := FromIDX(x, lab); err == nil {
				if verr := d.Validate(); verr != nil {
					t.Fatalf("accepted data fail validation: %v", verr)
				}
			} else if !errors.Is(err, ErrEmpty) && !strings.Contains(err.Error(), "no pixels") {
				t.Fatalf("FromIDX: %v", err)
			}
		}
	})
}
