package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/train"
)

const interpolateUsage = `implicitbias interpolate --data FILE [--theta0 FILE] [--mu μ [--weights FILE]]

Prints one JSON object with theta, the point a linear model trained on the
squared loss from θ₀ converges to (ZD §4.1, §4.3):

  without --mu: the min-norm interpolator θ* = θ₀ + Xᵀ(XXᵀ)⁻¹(y − Xθ₀), the
      limit of every GRW scheme whose training risk goes to 0 (ZD Thm 1);
      needs n ≤ d linearly independent samples. Also prints coef =
      (XXᵀ)⁻¹(y − Xθ₀) (θ* = θ₀ + Xᵀcoef).
  with --mu μ > 0: the minimizer of Σ q_i ½(⟨θ,x_i⟩ − y_i)² + (μ/2)‖θ − θ₀‖²,
      θ₀ + (XᵀQX + μI)⁻¹XᵀQ(y − Xθ₀), Q = diag(q), and its objective value.

  --data FILE     CSV dataset: one sample per line, the target first, then
                  the features (a non-numeric first line is a header)
  --theta0 FILE   θ₀, one number per line (default 0)
  --mu μ          L2 strength μ > 0 (default: none, the interpolator)
  --weights FILE  sample weights q, one positive number per line, normalized
                  to sum 1 (the output says so); needs --mu (without it the
                  interpolator does not depend on weights). Default with
                  --mu: uniform 1/n.

Output keys: method, n, d, theta, residual_norm (‖Xθ − y‖), and coef and
min_singular_value (of X) for the interpolator, or mu, weights (as used,
summing to 1), weights_note and objective for the regularized solution.

Exit status: 0 on success, 2 for bad input (including samples that are
linearly dependent, so no unique interpolator exists).
`

func runInterpolate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("interpolate", flag.ContinueOnError)
	dataPath := fs.String("data", "", "")
	theta0Path := fs.String("theta0", "", "")
	mu := fs.Float64("mu", 0, "")
	weightsPath := fs.String("weights", "", "")
	if !parseFlags(fs, args, stderr) {
		return exitUsage
	}
	muSet := false
	fs.Visit(func(f *flag.Flag) { muSet = muSet || f.Name == "mu" })
	bad := func(err error) int { return fail(stderr, "interpolate", err) }
	if *dataPath == "" {
		return bad(fmt.Errorf("--data FILE is required"))
	}
	if muSet && (!(*mu > 0) || math.IsInf(*mu, 0)) {
		return bad(fmt.Errorf("--mu must be a finite number > 0, got %v", *mu))
	}
	if *weightsPath != "" && !muSet {
		return bad(fmt.Errorf("--weights needs --mu: without regularization the interpolator does not depend on the weights (ZD Thm 1)"))
	}
	data, err := dataset.LoadCSV(*dataPath)
	if err != nil {
		return bad(err)
	}
	if err := data.Validate(); err != nil {
		return bad(err)
	}
	var theta0 []float64
	if *theta0Path != "" {
		if theta0, err = readVector(*theta0Path, "θ₀"); err != nil {
			return bad(err)
		}
		if len(theta0) != data.D {
			return bad(fmt.Errorf("%s has %d entries, but the samples have %d features", *theta0Path, len(theta0), data.D))
		}
	}
	out := map[string]any{"n": data.N, "d": data.D}
	var theta []float64
	if !muSet {
		span, err := numerics.NewRowSpan(data.X, data.N, data.D)
		if err != nil {
			return bad(err)
		}
		theta = make([]float64, data.D)
		coef, err := span.Interpolate(theta, data.X, data.Y, theta0)
		if err != nil {
			return bad(err)
		}
		out["method"] = "min-norm interpolator"
		out["coef"] = coef
		out["min_singular_value"] = span.SMin
	} else {
		q := make([]float64, data.N)
		note := "no --weights: uniform weights 1/n"
		for i := range q {
			q[i] = 1 / float64(data.N)
		}
		if *weightsPath != "" {
			w, err := readWeights(*weightsPath, data.N)
			if err != nil {
				return bad(err)
			}
			q = w
			note = fmt.Sprintf("weights from %s normalized to sum 1", *weightsPath)
		}
		theta, err = numerics.RegularizedInterpolator(data.X, data.N, data.D, data.Y, theta0, q, *mu)
		if err != nil {
			return bad(err)
		}
		out["method"] = "regularized"
		out["mu"] = *mu
		out["weights"] = q
		out["weights_note"] = note
		out["objective"] = regularizedObjective(data, theta, theta0, q, *mu)
	}
	out["theta"] = theta
	out["residual_norm"] = residualNorm(data, theta)
	if err := json.NewEncoder(stdout).Encode(out); err != nil {
		return bad(err)
	}
	return exitOK
}

func residualNorm(d *dataset.Dataset, theta []float64) float64 {
	var s float64
	for i := 0; i < d.N; i++ {
		r := floats.Dot(d.Row(i), theta) - d.Y[i]
		s += r * r
	}
	return math.Sqrt(s)
}

func regularizedObjective(d *dataset.Dataset, theta, theta0, q []float64, mu float64) float64 {
	var f float64
	for i := 0; i < d.N; i++ {
		r := floats.Dot(d.Row(i), theta) - d.Y[i]
		f += q[i] * 0.5 * r * r
	}
	var reg float64
	for j, v := range theta {
		if theta0 != nil {
			v -= theta0[j]
		}
		reg += v * v
	}
	return f + 0.5*mu*reg
}

// readVector reads a file of one finite number per line (blank lines are
// skipped); what names the vector in errors.
func readVector(path, what string) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	var v []float64
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		x, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%s line %d: %q is not a finite number (%s files hold one number per line)", path, line, text, what)
		}
		v = append(v, x)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(v) == 0 {
		return nil, fmt.Errorf("%s: no numbers", path)
	}
	return v, nil
}

// readWeights reads n positive sample weights and normalizes them to sum 1.
func readWeights(path string, n int) ([]float64, error) {
	w, err := readVector(path, "weight")
	if err != nil {
		return nil, err
	}
	if len(w) != n {
		return nil, fmt.Errorf("%s has %d weights for %d samples", path, len(w), n)
	}
	for i, v := range w {
		if !(v > 0) {
			return nil, fmt.Errorf("%s: weight %d is %v; weights must be positive", path, i+1, v)
		}
	}
	return train.NormalizeWeights(w)
}

// readGroups reads one group label (an integer ≥ 0) per line for n samples.
func readGroups(path string, n int) ([]int, error) {
	v, err := readVector(path, "group")
	if err != nil {
		return nil, err
	}
	if len(v) != n {
		return nil, fmt.Errorf("%s has %d group labels for %d samples", path, len(v), n)
	}
	g := make([]int, n)
	for i, x := range v {
		if x != math.Trunc(x) || x < 0 || x > 1e9 {
			return nil, fmt.Errorf("%s: group %d is %v; groups are integers ≥ 0", path, i+1, x)
		}
		g[i] = int(x)
	}
	return g, nil
}

// trainWeighting builds train's --weights scheme (nil for none), with the
// groups of --groups (nil: label-derived).
func trainWeighting(spec, groupsPath string, data *dataset.Dataset) (train.Weighting, error) {
	var groups []int
	if groupsPath != "" {
		if spec == "" {
			return nil, fmt.Errorf("--groups needs --weights iw or gdro")
		}
		g, err := readGroups(groupsPath, data.N)
		if err != nil {
			return nil, err
		}
		groups = g
	}
	switch {
	case spec == "":
		return nil, nil
	case strings.HasPrefix(spec, "file:"):
		w, err := readWeights(strings.TrimPrefix(spec, "file:"), data.N)
		if err != nil {
			return nil, err
		}
		return &train.Static{W: w}, nil
	}
	w, err := train.ParseWeighting(spec, groups)
	if errors.Is(err, train.ErrUnknownWeighting) {
		return nil, fmt.Errorf("--weights: %v, or file:PATH", err)
	}
	if err != nil {
		return nil, fmt.Errorf("--weights: %v", err)
	}
	return w, nil
}
