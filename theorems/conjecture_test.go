package theorems_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/implicitbias/implicitbias/theorems"
)

// TestConjectureNeverViolated: an entry marked Conjecture whose cases did
// not all support it is inconclusive, not violated, and reports its support
// frequency; the same verdicts on a claim are a violation.
func TestConjectureNeverViolated(t *testing.T) {
	var s theorems.Summary
	s.Add(theorems.Compare(0.2, 0.5, "supported"), "a")
	s.Add(theorems.Compare(0.9, 0.5, "not supported"), "b")
	s.Add(theorems.Compare(0.1, 0.5, "supported"), "c")
	conj := theorems.Result{Info: theorems.Info{ID: "XY-S5", Conjecture: true}, Claims: s}
	claim := theorems.Result{Info: theorems.Info{ID: "XY-P1"}, Claims: s}
	assert.Equal(t, theorems.Inconclusive, conj.Status())
	assert.Equal(t, theorems.Violated, claim.Status())
	k, n := conj.Support()
	assert.Equal(t, 2, k)
	assert.Equal(t, 3, n)
	var all theorems.Summary
	all.Add(theorems.Compare(0.2, 0.5, ""), "a")
	assert.Equal(t, theorems.Holds, theorems.Result{Info: theorems.Info{Conjecture: true}, Claims: all}.Status())
}
