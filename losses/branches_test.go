package losses

import "testing"

// Tests of branches that the accuracy sweeps do not reach, found by mutation
// testing (scripts/mutation); each checks documented behaviour.

// TestPolyTailName: the name carries α and β in full (the shortest decimal
// that reads back), since reports and trajectories identify the loss by it;
// ZD's parameters are "poly", the name ByName reads.
func TestPolyTailName(t *testing.T) {
	for _, tc := range []struct {
		p    PolyTail
		want string
	}{
		{ZDPolyTail(), "poly"}, // ByName("poly")
		{PolyTail{Alpha: 1, Beta: 0.5}, "poly(1,0.5)"},
		{PolyTail{Alpha: 2.5, Beta: -0.125}, "poly(2.5,-0.125)"},
		{PolyTail{Alpha: 0.1, Beta: 1e-20}, "poly(0.1,1e-20)"},
		{PolyTail{Alpha: 1.0 / 3, Beta: 12345.5}, "poly(0.3333333333333333,12345.5)"},
	} {
		if got := tc.p.Name(); got != tc.want {
			t.Errorf("Name() = %q, want %q", got, tc.want)
		}
	}
}

// TestCrossEntropyAllNegInf: "If every score is −Inf, it writes zeros."
func TestCrossEntropyAllNegInf(t *testing.T) {
	var ce CrossEntropy
	for _, s := range [][]float64{{ninf, ninf}, {ninf, ninf, ninf}} {
		for c := range s {
			dst := make([]float64, len(s))
			for i := range dst {
				dst[i] = nan // must be overwritten
			}
			ce.ScaledGrad(dst, s, float64(c), 0)
			for i, v := range dst {
				if v != 0 {
					t.Errorf("ScaledGrad(%v, %d)[%d] = %v, want 0", s, c, i, v)
				}
			}
		}
	}
}
