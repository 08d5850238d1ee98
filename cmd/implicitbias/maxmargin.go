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

	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/numerics"
)

// exitNotSeparable is maxmargin's exit status for data that no hyperplane
// through the origin separates.
const exitNotSeparable = 3

const maxmarginUsage = `implicitbias maxmargin --data FILE [--kernel FILE]

Solves the hard-margin SVM without intercept

    minimize ½‖w‖²  s.t.  y_n ⟨w, x_n⟩ ≥ 1  for every sample n

(the max-margin problem (P) of a linear model, LL §4) and prints one JSON
object:

  w          the solution (with --kernel: in the eigen-coordinates of K, see below)
  margin     1/‖w‖, the largest normalized margin max_{‖u‖=1} min_n y_n⟨u, x_n⟩
  direction  w/‖w‖
  dual       α ≥ 0 with w = Σ_n α_n y_n x_n (the dual's solution)
  support    the indices n (0-based) with α_n > 0
  decision_values  ⟨w, x_n⟩ for every sample
  kkt_residual     max of primal infeasibility and complementarity (≤ 1e-10)

  --data FILE    CSV dataset: one sample per line, the label (±1) first, then
                 the features; a non-numeric first line is a header. With
                 --kernel only the labels are read (the features may be a
                 placeholder column such as the sample index).
  --kernel FILE  a kernel matrix K (N×N) replacing ⟨x_n, x_m⟩: CSV, one row per
                 line, row n holding K(x_n, x_1), …, K(x_n, x_N) in the order
                 of the samples of --data; a non-numeric first line is a
                 header; K must be symmetric (to 1e-12 relative) and positive
                 semi-definite (eigenvalues ≥ −1e-10·λ_max). Then w and
                 direction are expressed in the eigen-coordinates of K: with
                 K = VΛVᵀ the feature of sample n is row n of VΛ^{1/2}, an
                 isometric copy of the span of the feature vectors, so ‖w‖ and
                 ⟨w, x_n⟩ are those of the kernel's feature space.

Exit status: 0 on success, 2 for bad input, 3 when the data are not
separable by a hyperplane through the origin (a one-line message on stderr).
`

func runMaxMargin(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("maxmargin", flag.ContinueOnError)
	dataPath := fs.String("data", "", "")
	kernelPath := fs.String("kernel", "", "")
	if !parseFlags(fs, args, stderr) {
		return exitUsage
	}
	if *dataPath == "" {
		return fail(stderr, "maxmargin", fmt.Errorf("--data FILE is required"))
	}
	data, err := dataset.LoadCSV(*dataPath)
	if err != nil {
		return fail(stderr, "maxmargin", err)
	}
	if err := data.ValidateBinary(); err != nil {
		return fail(stderr, "maxmargin", err)
	}
	var sol *numerics.SVM
	var scale float64 // see maxmarginscale.go
	var dualScaled []float64
	if *kernelPath == "" {
		sol, scale, dualScaled, err = scaledLinearSVM(data.N, data.D, data.X, data.Y)
	} else {
		k, kerr := loadKernel(*kernelPath, data.N)
		if kerr != nil {
			return fail(stderr, "maxmargin", kerr)
		}
		sol, scale, dualScaled, err = scaledKernelSVM(k, data.Y)
	}
	if errors.Is(err, numerics.ErrNotSeparable) {
		fmt.Fprintf(stderr, "implicitbias maxmargin: %v\n", err)
		return exitNotSeparable
	}
	if err != nil {
		return fail(stderr, "maxmargin", err)
	}
	support := sol.Support
	if support == nil {
		support = []int{}
	}
	out := map[string]any{
		"w": finiteOrNull(sol.W), "margin": num(sol.Margin), "direction": finiteOrNull(sol.Direction()),
		"dual": finiteOrNull(sol.Alpha), "support": support,
		"decision_values": finiteOrNull(sol.Decision), "kkt_residual": num(sol.KKTResidual),
		"kernel": *kernelPath != "",
	}
	if scale != 1 {
		// The solver ran on the features (or the kernel) divided by scale.
		key := "feature_scale"
		if *kernelPath != "" {
			key = "kernel_scale"
		}
		out[key], out["dual_scaled"] = scale, finiteOrNull(dualScaled)
	}
	if err := json.NewEncoder(stdout).Encode(out); err != nil {
		return fail(stderr, "maxmargin", err)
	}
	return exitOK
}

// loadKernel reads an n×n kernel matrix (see maxmarginUsage) and checks its
// shape, finiteness and symmetry (positive semi-definiteness is checked by
// the solver).
func loadKernel(path string, n int) (*mat.SymDense, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<26)
	var rows [][]float64
	line, header := 0, false
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		parts := strings.Split(text, ",")
		row := make([]float64, 0, len(parts))
		var perr error
		for j, p := range parts {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				perr = fmt.Errorf("%s: line %d column %d: %q is not a finite number", path, line, j+1, strings.TrimSpace(p))
				break
			}
			row = append(row, v)
		}
		if perr != nil {
			// The first content line may be a header of words.
			if len(rows) == 0 && !header && isWordRow(parts) {
				header = true
				continue
			}
			return nil, perr
		}
		if len(row) != n {
			return nil, fmt.Errorf("%s: line %d has %d values; the kernel of %d samples needs %d per row", path, line, len(row), n, n)
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(rows) != n {
		return nil, fmt.Errorf("%s: %d rows; the data have %d samples", path, len(rows), n)
	}
	scale := 0.0
	for _, r := range rows {
		for _, v := range r {
			scale = math.Max(scale, math.Abs(v))
		}
	}
	k := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			// 1e-12 relative: a kernel computed as Gram products in double
			// precision is symmetric to a few ulps of its largest entry.
			if math.Abs(rows[i][j]-rows[j][i]) > 1e-12*scale {
				return nil, fmt.Errorf("%s: not symmetric: K[%d][%d] = %v but K[%d][%d] = %v", path, i+1, j+1, rows[i][j], j+1, i+1, rows[j][i])
			}
			k.SetSym(i, j, (rows[i][j]+rows[j][i])/2)
		}
	}
	return k, nil
}

// isWordRow reports whether every field is a word that is not a number (a
// header).
func isWordRow(parts []string) bool {
	for _, p := range parts {
		p = strings.TrimSpace(p)
		_, err := strconv.ParseFloat(p, 64)
		if ne, ok := err.(*strconv.NumError); p == "" || !ok || ne.Err != strconv.ErrSyntax {
			return false
		}
	}
	return true
}
