package dataset

import (
	"bufio"
	"fmt"
	"io"
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
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		parts := strings.Split(text, ",")
		fields = fields[:0]
		var perr error
		for j, p := range parts {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil {
				perr = fmt.Errorf("line %d column %d: %q is not a number", line, j+1, strings.TrimSpace(p))
				break
			}
			if v != v || v > 1.7976931348623157e308 || v < -1.7976931348623157e308 {
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

// isHeader reports whether a row is a header: some field is not numeric and
// none is a NaN/Inf spelling (those are data errors, not names).
func isHeader(parts []string) bool {
	for _, p := range parts {
		p = strings.ToLower(strings.TrimSpace(p))
		switch strings.TrimLeft(p, "+-") {
		case "nan", "inf", "infinity":
			return false
		}
	}
	return true
}

// LoadCSV reads the CSV file at path (see ReadCSV); errors name the file.
func LoadCSV(path string) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := ReadCSV(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return d, nil
}
