package margins

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// scheduleRecords returns consecutive loss-based records through the log
// losses ll, with k[i] rollbacks before step i+1.
func scheduleRecords(ll []float64, k []int) []train.Record {
	logA := math.Log(train.LossBasedAlpha0)
	var rs []train.Record
	for i, l := range ll {
		r := train.Record{Step: i, LogLoss: l, LogObjective: l, Rho: 10, NormalizedMargin: 1, SmoothedMargin: 0.9, LogGradNorm: l}
		if i > 0 {
			used := logA - float64(k[i-1])*math.Ln2/10
			r.LogEta = used - ll[i-1]
			logA = used + math.Ln2/5
		}
		rs = append(rs, r)
	}
	return rs
}

// TestBudgetOutsideAnalysis: a loss-based run short of the target on a
// kinked network whose rollbacks cut α below α(0) is undecided (LL's GD
// analysis assumes C², soak seed 1795883474800560); the same run on a C²
// network, or a kinked run whose α stayed at or above α(0), is violated.
func TestBudgetOutsideAnalysis(t *testing.T) {
	ll := []float64{-1, -100, -200, -300}
	for _, tc := range []struct {
		name   string
		k      []int
		kinked bool
		want   theorems.Status
	}{
		{"kinked, α cut by rollbacks", []int{0, 20, 20}, true, theorems.Inconclusive},
		{"C², α cut by rollbacks", []int{0, 20, 20}, false, theorems.Violated},
		{"kinked, no rollbacks", []int{0, 0, 0}, true, theorems.Violated},
		{"kinked, rollbacks but α above α(0)", []int{0, 1, 0}, true, theorems.Violated},
	} {
		rs := scheduleRecords(ll, tc.k)
		v := LossBasedSchedule(ScheduleCase{Records: rs, Target: -2000, Kinked: tc.kinked})
		assert.Equal(t, tc.want, v.Status, "%s: %v", tc.name, v)
		// LL-K2's bound from sparse records (log η + the previous record's
		// log 𝓛), exact when the last two records are consecutive.
		sparse := []train.Record{rs[0], rs[2], rs[3]}
		got := budgetOutsideAnalysis(false, tc.kinked, sparse[2], -2000, nextAlphaBound(sparse), "")
		assert.Equal(t, tc.want == theorems.Inconclusive, got != nil, tc.name)
	}
	// A stall is stallOutsideAnalysis's to decide.
	assert.Nil(t, budgetOutsideAnalysis(true, true, train.Record{LogLoss: -100}, -2000, math.Log(1e-9), ""))
	assert.True(t, math.IsNaN(nextAlphaBound(nil)))
}
