package bench

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// FuzzReadProblem: `bench --init FILE` reads a problem written by
// WriteJSON. Any bytes: no panic, a one-line error, or a problem whose
// shapes fit its workload, whose values are finite, and that the engine
// runs for a step (a problem the check accepts must be trainable).
func FuzzReadProblem(f *testing.F) {
	w, err := Lookup("W1")
	if err != nil {
		f.Fatal(err)
	}
	p, err := w.Generate(1)
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.WriteJSON(&buf); err != nil {
		f.Fatal(err)
	}
	good := buf.String()
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(strings.Replace(good, `"lr":`, `"lr":-`, 1))
	f.Add(strings.Replace(good, `"workload":"W1"`, `"workload":"W9"`, 1))
	f.Add(`{"workload":"W1"}`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ReadProblem(strings.NewReader(in))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		w := p.Workload
		if len(p.X) != w.N*w.D || len(p.Y) != w.N || !(p.LR > 0) || math.IsInf(p.LR, 0) {
			t.Fatalf("accepted %s with %d inputs, %d labels, lr %v", w.Name, len(p.X), len(p.Y), p.LR)
		}
		for _, v := range p.Theta0 {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("accepted θ₀ entry %v", v)
			}
		}
		r, err := NewRunner(p)
		if err != nil {
			t.Fatalf("accepted problem cannot run: %v", err)
		}
		if err := r.Steps(1); err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error %q", err)
		}
	})
}
