package numerics

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFitLogLog(t *testing.T) {
	x := []float64{32, 64, 128, 256}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = 3 * math.Pow(v, -0.5)
	}
	f, err := FitLogLog(x, y, nil)
	require.NoError(t, err)
	assert.InDelta(t, -0.5, f.Slope, 1e-12)
	assert.InDelta(t, math.Log(3), f.Intercept, 1e-12)
	assert.InDelta(t, 0, f.SE, 1e-12)
	assert.Equal(t, 2, f.DF)
	assert.Equal(t, 4, f.Points)
	// Weighted: the same line; SE = 1/√(Σ w (log x − x̄)²).
	f, err = FitLogLog(x, y, []float64{0.1, 0.1, 0.1, 0.1})
	require.NoError(t, err)
	assert.InDelta(t, -0.5, f.Slope, 1e-12)
	assert.Equal(t, 0, f.DF)
	var sxx, mx float64
	for _, v := range x {
		mx += math.Log(v) / 4
	}
	for _, v := range x {
		sxx += 100 * (math.Log(v) - mx) * (math.Log(v) - mx)
	}
	assert.InDelta(t, 1/math.Sqrt(sxx), f.SE, 1e-15)
}

// TestFitLogLogResiduals: on log y = log x + (+1, −1, −1, +1)·c the slope is
// 1 and SE² = Σr²/((n − 2)·Sxx), computed by hand.
func TestFitLogLogResiduals(t *testing.T) {
	const c = 0.1
	x := []float64{1, math.E, math.E * math.E, math.E * math.E * math.E}
	r := []float64{c, -c, -c, c}
	y := make([]float64, 4)
	for i := range x {
		y[i] = x[i] * math.Exp(r[i])
	}
	f, err := FitLogLog(x, y, nil)
	require.NoError(t, err)
	// log x = 0, 1, 2, 3: x̄ = 1.5, Sxx = 5; the residual pattern is
	// orthogonal to (1, log x), so slope 1, intercept 0, RSS = 4c².
	assert.InDelta(t, 1, f.Slope, 1e-15)
	assert.InDelta(t, 0, f.Intercept, 1e-15)
	assert.InDelta(t, math.Sqrt(4*c*c/2/5), f.SE, 1e-15)
}

func TestFitLogLogErrors(t *testing.T) {
	for _, tc := range []struct {
		name        string
		x, y, sigma []float64
	}{
		{"two points", []float64{1, 2}, []float64{1, 2}, nil},
		{"negative y", []float64{1, 2, 3}, []float64{1, -1, 2}, nil},
		{"infinite x", []float64{1, 2, math.Inf(1)}, []float64{1, 1, 2}, nil},
		{"NaN y", []float64{1, 2, 3}, []float64{1, math.NaN(), 2}, nil},
		{"equal x", []float64{2, 2, 2}, []float64{1, 2, 3}, nil},
		{"unequal lengths", []float64{1, 2, 3}, []float64{1, 2}, nil},
		{"sigma length", []float64{1, 2, 3}, []float64{1, 2, 3}, []float64{1, 1}},
		{"zero sigma", []float64{1, 2, 3}, []float64{1, 2, 3}, []float64{1, 0, 1}},
	} {
		_, err := FitLogLog(tc.x, tc.y, tc.sigma)
		assert.Error(t, err, tc.name)
	}
}

func TestSlope(t *testing.T) {
	assert.Equal(t, 2.0, Slope([]float64{0, 1, 2}, []float64{1, 3, 5}))
	assert.InDelta(t, -0.5, Slope([]float64{1, 2, 3, 4}, []float64{2, 1.5, 1, 0.5}), 1e-15)
	assert.True(t, math.IsNaN(Slope([]float64{1, 1}, []float64{1, 2})))
}

func ExampleFitLogLog() {
	// y = 2·x^{−1/4}: a decay like ZD Thm 4's d̃^{−1/4}.
	x := []float64{64, 256, 1024, 4096}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = 2 * math.Pow(v, -0.25)
	}
	f, err := FitLogLog(x, y, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("slope %.3f, intercept e^%.3f, %d points\n", f.Slope, f.Intercept, f.Points)
	// Output:
	// slope -0.250, intercept e^0.693, 4 points
}
