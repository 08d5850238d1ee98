package dataset

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// ReadCSV reads a dataset in the project's CSV format: one sample per line,
// the target first, then the features, separated by commas. A first line
// that is not numeric is a header and is skipped; blank lines are skipped.
// Every row must have the same number of columns, and every value must be a
// finite number.
func ReadCSV(r io.Reader) (*Dataset, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<26)
	d := &Dataset{}
	line, cols, header := 0, 0, false
	var fields []float64
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == 1 {
			// A UTF-8 byte order mark (spreadsheet exports write one) is
			// not part of the first number.
			text = strings.TrimPrefix(text, "\ufeff")
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		parts := strings.Split(text, ",")
		fields = fields[:0]
		var perr error
		for j, p := range parts {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				perr = fmt.Errorf("line %d column %d: %s is out of the float64 range", line, j+1, strings.TrimSpace(p))
				break
			}
			if err != nil {
				perr = fmt.Errorf("line %d column %d: %q is not a number", line, j+1, strings.TrimSpace(p))
				break
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				perr = fmt.Errorf("line %d column %d: %v is not finite", line, j+1, v)
				break
			}
			fields = append(fields, v)
		}
		if perr != nil {
			if d.N == 0 && !header && isHeader(parts) {
				header = true
				continue
			}
			return nil, perr
		}
		if len(fields) < 2 {
			return nil, fmt.Errorf("line %d: need a target and at least one feature, got %d column(s)", line, len(fields))
		}
		if cols > 0 && len(fields) != cols {
			return nil, fmt.Errorf("line %d: %d columns, but earlier rows have %d", line, len(fields), cols)
		}
		cols = len(fields)
		d.Y = append(d.Y, fields[0])
		d.X = append(d.X, fields[1:]...)
		d.N++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading CSV: %v", err)
	}
	if d.N == 0 {
		return nil, fmt.Errorf("no samples (empty file or header only)")
	}
	d.D = cols - 1
	return d, nil
}

// isHeader reports whether a row is a header: every field is a non-empty
// word that is not a number at all (a syntax error, not a range error) and
// not a NaN/Inf spelling.
func isHeader(parts []string) bool {
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return false
		}
		_, err := strconv.ParseFloat(p, 64)
		if err == nil {
			return false
		}
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrSyntax {
			return false
		}
	}
	return true
}

// LoadCSV reads the CSV file at path (see ReadCSV), or standard input when
// path is "-"; gzip-compressed input is read as such (see OpenCSV). Errors
// name the file.
func LoadCSV(path string) (*Dataset, error) {
	return LoadCSVFrom(path, os.Stdin)
}

// LoadCSVFrom is LoadCSV with stdin read for the path "-".
func LoadCSVFrom(path string, stdin io.Reader) (*Dataset, error) {
	name := path
	var in io.Reader = stdin
	if path == "-" {
		name = "standard input"
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in = f
	}
	r, err := Decompress(in, path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	d, err := ReadCSV(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return d, nil
}
