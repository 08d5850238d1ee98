package dataset

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
)

// gzipMagic is the first two bytes of every gzip stream (RFC 1952 §2.3.1).
var gzipMagic = []byte{0x1f, 0x8b}

// Decompress returns r, or a gzip reader on it when r starts with the gzip
// magic bytes: a file is read as gzip by its content, not its name, so a
// .csv.gz read as text ("no samples") cannot happen. A name ending in .gz
// whose content is not gzip is an error (a truncated download, a renamed
// file), as is a gzip header that does not parse.
func Decompress(r io.Reader, name string) (io.Reader, error) {
	br := bufio.NewReader(r)
	head, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(head) < 2 || head[0] != gzipMagic[0] || head[1] != gzipMagic[1] {
		if strings.HasSuffix(name, ".gz") {
			return nil, fmt.Errorf("the name ends in .gz, but the content is not gzip (it does not start with the bytes 1f 8b)")
		}
		return br, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("corrupt gzip header: %v", err)
	}
	// Decompressed whole before parsing: gzip's checksum is at the end, so
	// a corrupt stream could otherwise first yield garbage rows, reported
	// as a bad number instead of a bad file.
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("corrupt gzip data: %v", err)
	}
	return bytes.NewReader(b), nil
}
