package dataset

import (
	"strings"
	"testing"
)

// FuzzReadCSV asserts that no input makes ReadCSV panic and that every
// dataset it accepts passes validation.
func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{"label,x\n1,2\n-1,3\n", "1,NaN\n", "1,2,3\n1,2\n", "", "a,b\n", "1,1e400\n", "0,1\n2,3\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		d, err := ReadCSV(strings.NewReader(in))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if verr := d.Validate(); verr != nil {
			t.Fatalf("accepted data fail validation: %v", verr)
		}
	})
}
