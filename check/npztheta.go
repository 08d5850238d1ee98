package check

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"codeberg.org/sbinet/npyio"
)

// The θ arrays are most of a run's file (LL's CNN: 26 MB a record). Read
// whole, they would be held three times at once — the entry's bytes, the
// decoded array, the records assembled from it — so a float64 theta/
// array in C order is read in two passes over its zip entry instead: its
// header when the archive is listed (dtype and shape, validated as every
// array's), its values when the records are assembled, straight into each
// record's θ (fillTheta). Other dtypes and Fortran order take the whole
// read (readMember), which refuses them or reorders them.

// thetaHeader reads the NPY header of a theta/ entry: an array with its
// dtype and shape and no values (streamed, with the data's offset), or the
// whole array for the cases streaming does not cover.
func thetaHeader(f *zip.File) (*array, error) {
	if f.UncompressedSize64 > MaxArrayBytes {
		return nil, fmt.Errorf("%d bytes uncompressed, more than the limit of %d", f.UncompressedSize64, MaxArrayBytes)
	}
	hdr, err := readHeaderBytes(f)
	if err != nil {
		return nil, err
	}
	if _, err := headerEnd(hdr); err != nil {
		return nil, err
	}
	dtype, shape, fortran, err := parseHeader(hdr)
	if err != nil {
		return nil, err
	}
	if dtype != "<f8" || (fortran && len(shape) > 1) {
		return readMember(f)
	}
	n := 1
	for _, s := range shape {
		if s < 0 || (s > 0 && n > MaxArrayBytes/s) {
			return nil, fmt.Errorf("shape %v is not a valid array shape", shape)
		}
		n *= s
	}
	if data := f.UncompressedSize64 - uint64(len(hdr)); data != uint64(n)*8 {
		return nil, fmt.Errorf("shape %v of %s needs %d bytes of data, the array has %d", shape, dtype, n*8, data)
	}
	return &array{dtype: dtype, shape: shape, exact: true, entry: f, dataAt: len(hdr)}, nil
}

// readHeaderBytes returns the NPY preamble and header of entry f (at most
// 1 MiB: numpy writes 64-byte-aligned headers of a few hundred bytes).
func readHeaderBytes(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	hdr := make([]byte, 12)
	if _, err := io.ReadFull(rc, hdr[:10]); err != nil {
		return nil, errors.New("not an NPY array (bad magic)")
	}
	if string(hdr[:6]) != "\x93NUMPY" {
		return nil, errors.New("not an NPY array (bad magic)")
	}
	var hlen, pre int
	switch hdr[6] {
	case 1:
		hlen, pre = int(binary.LittleEndian.Uint16(hdr[8:10])), 10
	case 2, 3:
		if _, err := io.ReadFull(rc, hdr[10:12]); err != nil {
			return nil, errors.New("truncated NPY header")
		}
		hlen, pre = int(binary.LittleEndian.Uint32(hdr[8:12])), 12
	default:
		return nil, fmt.Errorf("NPY format version %d is not known", hdr[6])
	}
	if hlen < 1 || hlen > 1<<20 || uint64(pre+hlen) > f.UncompressedSize64 {
		return nil, fmt.Errorf("NPY header of %d bytes in an entry of %d", hlen, f.UncompressedSize64)
	}
	hdr = append(hdr[:pre], make([]byte, hlen)...)
	if _, err := io.ReadFull(rc, hdr[pre:]); err != nil {
		return nil, fmt.Errorf("truncated NPY header: %v", err)
	}
	return hdr, nil
}

// parseHeader parses a header headerEnd accepted, as readMember does
// (through npyio, its panics reported as errors).
func parseHeader(hdr []byte) (dtype string, shape []int, fortran bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed NPY header: %v", p)
		}
	}()
	nr, err := npyio.NewReader(bytes.NewReader(hdr))
	if err != nil {
		return "", nil, false, fmt.Errorf("malformed NPY data: %v", err)
	}
	h := nr.Header.Descr
	return strings.Trim(h.Type, "'\""), append([]int(nil), h.Shape...), h.Fortran, nil
}

// fillTheta reads a streamed theta/ array (T records of k values each)
// into theta[i][off:off+k], and checks that the entry ends there (the zip
// reader verifies its checksum at the end).
func fillTheta(a *array, theta [][]float64, off, k int) error {
	rc, err := a.entry.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	if _, err := io.CopyN(io.Discard, rc, int64(a.dataAt)); err != nil {
		return err
	}
	buf := make([]byte, 8<<10*8)
	for _, th := range theta {
		dst := th[off : off+k]
		for len(dst) > 0 {
			m := min(len(dst), len(buf)/8)
			if _, err := io.ReadFull(rc, buf[:8*m]); err != nil {
				return fmt.Errorf("the zip entry ends before its data: %v", err)
			}
			for j := range m {
				dst[j] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*j:]))
			}
			dst = dst[m:]
		}
	}
	if n, err := rc.Read(buf[:1]); n != 0 || !errors.Is(err, io.EOF) {
		if err == nil || errors.Is(err, io.EOF) {
			err = errors.New("data beyond the array's shape")
		}
		return err
	}
	return nil
}
