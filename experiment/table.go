package experiment

import (
	"fmt"
	"math"
)

// Log10Thresholds returns LL Table 1's loss thresholds, log₁₀ 𝓛: model-1
// to model-4 are the first epochs whose training loss is below 10⁻¹⁰,
// 10⁻¹⁵, 10⁻²⁰ and 10⁻¹²⁰; model-5 is the final epoch. (A function, not a
// variable: the package holds no mutable state.)
func Log10Thresholds() [4]float64 { return [4]float64{-10, -15, -20, -120} }

// Point is one evaluation of a run: the model after Epoch epochs.
type Point struct {
	Schedule         string  `json:"schedule"`
	Epoch            int     `json:"epoch"`
	Log10Loss        float64 `json:"log10_loss"`
	NormalizedMargin float64 `json:"normalized_margin"`
	TrainAcc         float64 `json:"train_acc"`
	TestAcc          float64 `json:"test_acc"`
}

// Row is a row of Table 1: the point picked for Model ("model-1" …
// "model-5"), or Missing when the run never got below the threshold.
type Row struct {
	Model string `json:"model"`
	// Log10Threshold is the threshold of models 1–4 (0 for the final one).
	Log10Threshold float64 `json:"log10_threshold,omitempty"`
	Point
	Missing bool `json:"missing,omitempty"`
}

// LLRow is a row of LL's own Table 1 (MNIST, 10 000 epochs).
type LLRow struct {
	Model            string
	Epoch            int
	Log10Loss        float64
	NormalizedMargin float64
	TrainAcc         float64
	TestAcc          float64
}

// LLTable1 returns LL's Table 1 (App. J.2), copied from the paper.
func LLTable1() [5]LLRow {
	return [5]LLRow{
		{"model-1", 38, -10.04, 5.65e-5, 1, 0.993},
		{"model-2", 75, -15.12, 9.50e-5, 1, 0.993},
		{"model-3", 107, -20.07, 1.30e-4, 1, 0.993},
		{"model-4", 935, -120.01, 4.61e-4, 1, 0.992},
		{"model-5", 10000, -881.51, 1.18e-3, 1, 0.991},
	}
}

// Rows picks Table 1 from a curve in epoch order: for each threshold the
// first point whose loss is strictly below it (LL: "the first time its
// loss decreases below"), then the last point. Rows is only as exact as
// the curve: the runner evaluates every epoch that first crosses a
// threshold, so there the first point below is the first epoch below.
func Rows(curve []Point) []Row {
	thresholds := Log10Thresholds()
	rows := make([]Row, 0, len(thresholds)+1)
	for i, th := range thresholds {
		r := Row{Model: fmt.Sprintf("model-%d", i+1), Log10Threshold: th, Missing: true}
		for _, p := range curve {
			if p.Log10Loss < th {
				r.Point, r.Missing = p, false
				break
			}
		}
		rows = append(rows, r)
	}
	final := Row{Model: fmt.Sprintf("model-%d", len(thresholds)+1), Missing: len(curve) == 0}
	if len(curve) > 0 {
		final.Point = curve[len(curve)-1]
	}
	return append(rows, final)
}

// Monotonicity says whether the normalized margin never decreased: across
// the rows found, and along the curve from the first point with every
// training sample fitted (train accuracy 1), where LL's Theorem 4.4 makes
// it non-decreasing for gradient flow.
type Monotonicity struct {
	// RowsNonDecreasing: the margins of the rows found, in row order.
	RowsNonDecreasing bool `json:"rows_nondecreasing"`
	// FittedFrom is the first epoch of the curve with train accuracy 1 (−1:
	// never fitted).
	FittedFrom int `json:"fitted_from_epoch"`
	// CurveDecreases counts the evaluations, from FittedFrom on, whose
	// margin is below the one before; FirstDecrease is the first such
	// epoch (0: none).
	CurveDecreases int `json:"curve_decreases"`
	FirstDecrease  int `json:"first_decrease_epoch,omitempty"`
	// LargestDrop is the largest relative decrease, 1 − γ̄_{t}/γ̄_{t−1}.
	LargestDrop float64 `json:"largest_relative_drop"`
}

// Monotone reports the Monotonicity of rows and curve. The comparisons are
// exact: a decrease by one rounding is reported, with its size in
// LargestDrop, so that the reader judges it (SGD is not gradient flow, and
// LL's theorem does not promise it monotone).
func Monotone(rows []Row, curve []Point) Monotonicity {
	m := Monotonicity{RowsNonDecreasing: true, FittedFrom: -1}
	prev := math.Inf(-1)
	for _, r := range rows {
		if r.Missing {
			continue
		}
		if r.NormalizedMargin < prev {
			m.RowsNonDecreasing = false
		}
		prev = r.NormalizedMargin
	}
	started := false
	for i, p := range curve {
		if !started {
			if p.TrainAcc == 1 {
				started, m.FittedFrom = true, p.Epoch
			}
			continue
		}
		q := curve[i-1].NormalizedMargin
		if p.NormalizedMargin < q {
			m.CurveDecreases++
			if m.FirstDecrease == 0 {
				m.FirstDecrease = p.Epoch
			}
			if q > 0 {
				m.LargestDrop = math.Max(m.LargestDrop, 1-p.NormalizedMargin/q)
			}
		}
	}
	return m
}
