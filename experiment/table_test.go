package experiment

import (
	"reflect"
	"testing"
)

func pts(losses ...float64) []Point {
	c := make([]Point, len(losses))
	for i, l := range losses {
		c[i] = Point{Epoch: 10 * i, Log10Loss: l, NormalizedMargin: float64(i)}
	}
	return c
}

// TestRows: the first point strictly below each threshold, several
// thresholds crossed by one point, a loss equal to a threshold (not below),
// thresholds never reached, and the last point as model-5.
func TestRows(t *testing.T) {
	for _, tc := range []struct {
		name   string
		curve  []Point
		epochs [5]int // −1: missing
	}{
		{"one per point", pts(0, -10.5, -16, -25, -130), [5]int{10, 20, 30, 40, 40}},
		{"between evaluations", pts(0, -3, -17, -18, -200, -300), [5]int{20, 20, 40, 40, 50}},
		{"equal is not below", pts(0, -10, -15, -20.000001), [5]int{20, 30, 30, -1, 30}},
		{"never fitted", pts(0, -1, -2), [5]int{-1, -1, -1, -1, 20}},
		{"empty", nil, [5]int{-1, -1, -1, -1, -1}},
	} {
		rows := Rows(tc.curve)
		var got [5]int
		for i, r := range rows {
			got[i] = r.Epoch
			if r.Missing {
				got[i] = -1
			}
		}
		if got != tc.epochs {
			t.Errorf("%s: epochs %v, want %v", tc.name, got, tc.epochs)
		}
		want := []string{"model-1", "model-2", "model-3", "model-4", "model-5"}
		for i, r := range rows {
			if r.Model != want[i] {
				t.Errorf("%s: row %d is %s", tc.name, i, r.Model)
			}
		}
	}
}

func TestMonotone(t *testing.T) {
	mk := func(acc, gamma []float64) []Point {
		c := make([]Point, len(acc))
		for i := range acc {
			c[i] = Point{Epoch: i, TrainAcc: acc[i], NormalizedMargin: gamma[i]}
		}
		return c
	}
	for _, tc := range []struct {
		name  string
		curve []Point
		want  Monotonicity
	}{
		{"rising once fitted", mk([]float64{0.5, 1, 1, 1}, []float64{-1, 1, 2, 3}),
			Monotonicity{RowsNonDecreasing: true, FittedFrom: 1}},
		{"drop before fitting ignored", mk([]float64{0.5, 0.9, 1, 1}, []float64{2, -1, 1, 1}),
			Monotonicity{RowsNonDecreasing: true, FittedFrom: 2}},
		{"one drop", mk([]float64{1, 1, 1, 1}, []float64{1, 2, 1.5, 3}),
			Monotonicity{RowsNonDecreasing: true, FittedFrom: 0, CurveDecreases: 1, FirstDecrease: 2, LargestDrop: 0.25}},
		{"never fitted", mk([]float64{0.5, 0.6}, []float64{1, 0}),
			Monotonicity{RowsNonDecreasing: true, FittedFrom: -1}},
	} {
		if got := Monotone(nil, tc.curve); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	rows := []Row{{Point: Point{NormalizedMargin: 1}}, {Missing: true}, {Point: Point{NormalizedMargin: 0.5}}}
	if Monotone(rows, nil).RowsNonDecreasing {
		t.Error("rows 1, –, 0.5 reported non-decreasing")
	}
	rows[2].NormalizedMargin = 1
	if !Monotone(rows, nil).RowsNonDecreasing {
		t.Error("rows 1, –, 1 reported decreasing")
	}
}
