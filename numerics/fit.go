package numerics

import (
	"errors"
	"fmt"
	"math"
)

// Slope returns the ordinary least-squares slope of y against x,
//
//	b = Σ(x_i − x̄)(y_i − ȳ) / Σ(x_i − x̄)²,
//
// NaN when every x_i is equal.
func Slope(x, y []float64) float64 {
	if len(x) != len(y) {
		panic("numerics: Slope of vectors of unequal length")
	}
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(x))
	var sxy, sxx float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
	}
	return sxy / sxx
}

// LogLogFit is a least-squares line log y = Intercept + Slope·log x.
type LogLogFit struct {
	Slope, Intercept float64
	// SE is the standard error of the slope; DF its degrees of freedom
	// (0 when it comes from known variances: a normal quantile applies,
	// otherwise Student's t with DF degrees of freedom).
	SE     float64
	DF     int
	Points int
}

// FitLogLog fits log y against log x by least squares. Without sigma the
// fit is ordinary and the slope's standard error comes from the residuals,
//
//	SE² = Σ r_i² / ((n − 2)·Σ(log x_i − x̄)²),  DF = n − 2;
//
// with sigma (the standard errors of log y_i, known from the sampling) it
// is weighted by w_i = 1/σ_i² and SE = 1/√(Σ w_i (log x_i − x̄)²), DF = 0.
// It fails on fewer than 3 points, unequal lengths, a non-positive or
// infinite x_i, y_i or σ_i, or equal x.
func FitLogLog(x, y, sigma []float64) (LogLogFit, error) {
	n := len(x)
	if n != len(y) || (sigma != nil && len(sigma) != n) {
		return LogLogFit{}, errors.New("numerics: log-log fit of unequal lengths")
	}
	if n < 3 {
		return LogLogFit{}, fmt.Errorf("numerics: log-log fit needs ≥ 3 points, got %d", n)
	}
	lx, ly, w := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range x {
		if !(x[i] > 0) || !(y[i] > 0) || math.IsInf(x[i], 0) || math.IsInf(y[i], 0) {
			return LogLogFit{}, fmt.Errorf("numerics: log-log fit of a non-positive or infinite point (%g, %g)", x[i], y[i])
		}
		lx[i], ly[i], w[i] = math.Log(x[i]), math.Log(y[i]), 1
		if sigma != nil {
			if !(sigma[i] > 0) || math.IsInf(sigma[i], 0) {
				return LogLogFit{}, fmt.Errorf("numerics: log-log fit with standard error %g", sigma[i])
			}
			w[i] = 1 / (sigma[i] * sigma[i])
		}
	}
	var sw, mx, my float64
	for i := range lx {
		sw += w[i]
		mx += w[i] * lx[i]
		my += w[i] * ly[i]
	}
	mx /= sw
	my /= sw
	var sxx, sxy float64
	for i := range lx {
		sxx += w[i] * (lx[i] - mx) * (lx[i] - mx)
		sxy += w[i] * (lx[i] - mx) * (ly[i] - my)
	}
	if !(sxx > 0) {
		return LogLogFit{}, errors.New("numerics: log-log fit needs at least two distinct x")
	}
	f := LogLogFit{Slope: sxy / sxx, Points: n}
	f.Intercept = my - f.Slope*mx
	if sigma != nil {
		f.SE = 1 / math.Sqrt(sxx)
		return f, nil
	}
	var rss float64
	for i := range lx {
		r := ly[i] - f.Intercept - f.Slope*lx[i]
		rss += r * r
	}
	f.DF = n - 2
	f.SE = math.Sqrt(rss / float64(f.DF) / sxx)
	return f, nil
}
