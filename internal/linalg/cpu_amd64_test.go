//go:build !purego

package linalg

import "testing"

// TestDropOff checks which kernel sets each GODEBUG setting leaves.
func TestDropOff(t *testing.T) {
	all := []*kernelSet{avx512Set, avx2Set, genericSet}
	for _, c := range []struct {
		godebug string
		want    []string
	}{
		{"", []string{"avx512", "avx2", "generic"}},
		{"cpu.avx512f=off", []string{"avx2", "generic"}},
		{"madvdontneed=1, cpu.avx512f=off", []string{"avx2", "generic"}},
		{"cpu.avx2=off", []string{"avx512", "generic"}},
		{"cpu.fma=off,cpu.avx512f=off", []string{"generic"}},
		{"cpu.all=off", []string{"generic"}},
		{"cpu.avx512f=on", []string{"avx512", "avx2", "generic"}},
	} {
		got := dropOff(all, c.godebug)
		var names []string
		for _, ks := range got {
			names = append(names, ks.name)
		}
		if len(names) != len(c.want) {
			t.Errorf("GODEBUG=%q: sets %v, want %v", c.godebug, names, c.want)
			continue
		}
		for i := range names {
			if names[i] != c.want[i] {
				t.Errorf("GODEBUG=%q: sets %v, want %v", c.godebug, names, c.want)
				break
			}
		}
	}
	if len(all) != 3 {
		t.Errorf("dropOff changed its argument: %d sets", len(all))
	}
}
