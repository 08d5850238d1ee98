package check

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzReadNPZ: whatever the bytes, ReadNPZ returns a trajectory or an
// error, never panics; a trajectory it returns is valid, survives
// WriteNPZ/ReadNPZ unchanged, and MapModel either maps it or says why. The
// seed corpus (testdata/fuzz/FuzzReadNPZ) holds a valid run, a run with
// weights and outputs, and broken headers.
//
//	go test ./check -run '^$' -fuzz '^FuzzReadNPZ$' -fuzztime 60s
func FuzzReadNPZ(f *testing.F) {
	f.Add(buildNPZ(f, validArrays()))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := ReadNPZ(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		if err := tr.Validate(); err != nil {
			t.Fatalf("ReadNPZ returned an invalid trajectory: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteNPZ(&buf, tr); err != nil {
			t.Fatalf("WriteNPZ of a valid trajectory: %v", err)
		}
		back, err := ReadNPZ(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		if back.Reduction != tr.Reduction || !reflect.DeepEqual(back.Theta, tr.Theta) || !reflect.DeepEqual(back.Steps, tr.Steps) {
			t.Fatalf("round trip changed the trajectory")
		}
		_, _ = MapModel(tr)
	})
}
