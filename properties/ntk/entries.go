package ntk

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/theorems"
	ntkth "github.com/implicitbias/implicitbias/theorems/ntk"
)

// Section F of the catalog: wide networks in the NTK regime (ZD §4.2, §4.3,
// §5.2, App. D.3, D.4, D.6, E). Every case is a width sweep (Entry.Sweep):
// the quick budget runs small widths and few seeds, IMPLICITBIAS_BUDGET=long
// (verify --budget long) the full sweeps of docs/ntk.md.

// Entries returns the entries of catalog section F, unbound (suite.Entries
// and properties.Bind add their catalog Info and fault controls).
func Entries() (es []properties.Entry) {
	es = append(es, properties.Entry{Info: theorems.Info{ID: "ZD-L3"}, Cases: 1, Sweep: true,
		Claims: []properties.Prop{properties.Property[KernelSweepCase]{Name: "two hidden layers of width d̃ (tanh, GELU), ZD eq. (9) init",
			Gen: GenKernelSweep(false), Check: func(r *properties.Runner, x KernelSweepCase) theorems.Verdict { return x.check(r) }}},
		Controls: []properties.Prop{properties.Property[KernelSweepCase]{Name: "first hidden layer fixed at 4 units, second of width d̃", Drops: "all-widths",
			Gen: GenKernelSweep(true), Check: func(r *properties.Runner, x KernelSweepCase) theorems.Verdict { return x.check(r) }}},
		Figures: KernelFigures,
		Faults: []properties.FaultControl{
			{Fault: "ntk-scale", Why: "Θ^{(0)} − β² = ⟨x^L, x′^L⟩/d_L² is a mean of d_L independent terms divided by d_L once more: its variance falls like d̃^{−3}, not d̃^{−1}"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "ZD-T4/L5"}, Cases: 1, Sweep: true,
		Claims: []properties.Prop{properties.Property[GapSweepCase]{Name: "A1 schedule vs ERM, network vs linearization, squared loss (tanh, GELU)",
			Gen: GenGapSweep(GapClaim), Check: gapCheck}},
		// The Gaussian last layer (ZD App. E) is no control: the check stops
		// it at the hypothesis W^L(0) = 0 before any statistic (its gaps
		// fall too, docs/ntk.md). The engine-breaking controls are the
		// entry's Faults (weights-ignored: the path test), appended by
		// Entries.
		Controls: []properties.Prop{
			properties.Property[GapSweepCase]{Name: "a GRW with q_0 = 0 (Assumption 1's min q > 0)", Drops: "min-weight", Gen: GenGapSweep(GapZeroWeight), Check: gapCheck},
		},
		Figures: gapFigures,
		// ntk-scale (the mean-field output) is not declared here: the
		// network leaves the lazy regime (GD at η ∝ d_L moves the hidden
		// units by O(1)) and sup_t|f_lin − f| stays flat, but at the quick
		// budget's three seeds the slope test's interval is ±0.1 … 0.2
		// around −0.04, so it was violated on 3 of 3 sweeps with one at
		// −0.248 against −0.25: not the 95% a declared pair needs. Its
		// linearized runs also take 13–28 s a sweep (λ_min ∝ 1/d_L).
		Faults: []properties.FaultControl{
			{Fault: "preconditioner", Why: "one coordinate of the linearized run takes 4× steps: the run leaves GD on eq. (11) computed in function space (LinPath error 0.006 … 0.02 against 1e-7)"},
			{Fault: "weights-ignored", Why: "every GRW run is ERM's (the GRW–ERM gap is 0 at every width): the linearized GRW run follows the uniform weights' path, not GD on eq. (11) with the A1 weights computed in function space (LinPath: error ≈ the weights' effect, 0.02 … 0.09, against 1e-7)"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "ZD-T6"}, Cases: 1, Sweep: true,
		Claims: []properties.Prop{properties.Property[RegSweepCase]{Name: "A1 schedule + (μ/2)‖θ − θ₀‖², μ = 0.2, 0.5 × q_min λ_min, vs unregularized ERM, squared loss",
			Gen: GenRegSweep(false), Check: func(r *properties.Runner, x RegSweepCase) theorems.Verdict { return x.check(r) }}},
		Controls: []properties.Prop{properties.Property[RegSweepCase]{Name: "large μ = 100·q_max λ_max", Drops: "small-mu",
			Gen: GenRegSweep(true), Check: func(r *properties.Runner, x RegSweepCase) theorems.Verdict { return x.check(r) }}},
		Figures: regFigures,
		Faults: []properties.FaultControl{
			{Fault: "weights-ignored", Why: "the regularized linearized run follows the uniform weights' path to their limit (Θ/n + μI)⁻¹(y − f⁰)/n, not the A1 weights' (QΘ + μI)⁻¹Q(y − f⁰) (LinPath)"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "ZD-T9"}, Cases: 1, Sweep: true,
		Claims: []properties.Prop{properties.Property[SignSweepCase]{Name: "logistic, A1 schedule + (μ/2)‖θ − θ₀‖² (μ = 1e-3; 1e-4 too under the long budget), against the kernel SVM's f_MM",
			Gen: GenSignSweep(false), Check: func(r *properties.Runner, x SignSweepCase) theorems.Verdict { return x.check(r) }}},
		Controls: []properties.Prop{properties.Property[SignSweepCase]{Name: "large μ = 0.1 (training risk above 1/4)", Drops: "small-risk",
			Gen: GenSignSweep(true), Check: func(r *properties.Runner, x SignSweepCase) theorems.Verdict { return x.check(r) }}},
		Figures: signFigures,
		Faults: []properties.FaultControl{
			{Fault: "weights-ignored", Why: "as ZD-T6, on the logistic loss (path error 0.3 … 0.7)"},
		},
	})
	return es
}

func gapCheck(r *properties.Runner, c GapSweepCase) theorems.Verdict { return c.check(r) }

// KernelFigures draws ZD-L3's variance of the NTK Gram matrix against the
// width (log-log) with its fitted line and the slope −1 of the claim.
func KernelFigures(r *properties.Runner) []theorems.Figure {
	seed := r.Seed
	cs := properties.Sample(GenKernelSweep(false), seed, 1)
	if len(cs) == 0 {
		return nil
	}
	c := cs[0]
	ws, err := c.Run(r)
	if err != nil {
		return nil
	}
	var x, y []float64
	for _, w := range ws {
		kv, err := w.Variance(NTKN)
		if err != nil || !(kv.V > 0) {
			return nil
		}
		x, y = append(x, float64(w.Width)), append(y, kv.V)
	}
	// The check's fit: least squares (its interval comes from a jackknife
	// over the seeds, ntk.NTKConcentration).
	fit, err := ntkth.FitLogLog(x, y, nil)
	if err != nil {
		return nil
	}
	lx, ly := log10s(x), log10s(y)
	return []theorems.Figure{{
		Name:    "variance",
		Title:   "ZD-L3: variance of the NTK at initialization",
		Caption: fmt.Sprintf("Σ_ij Var Θ^{(0)}(x_i, x_j) over seeds against the width, %v. Least-squares slope %.3f; the claim is −1.", c.Describe(r), fit.Slope),
		XLabel:  "log10 width",
		YLabel:  "log10 variance",
		Series: []theorems.Series{
			{Name: "variance", X: lx, Y: ly, Points: true},
			fitLine(fmt.Sprintf("fit, slope %.2f", fit.Slope), fit, x),
			refLine("slope −1", -1, x, y),
		},
	}}
}

// gapFigures draws ZD-T4/L5's two gaps against the width (log-log), one
// point per run, with the fitted lines and the slope −1/4 of the bound.
func gapFigures(r *properties.Runner) []theorems.Figure {
	seed := r.Seed
	cs := properties.Sample(GenGapSweep(GapClaim), seed, 1)
	if len(cs) == 0 {
		return nil
	}
	c := cs[0]
	runs, err := c.Run(r)
	if err != nil {
		return nil
	}
	f, ok := GapFigure(runs, c.Describe(r))
	if !ok {
		return nil
	}
	return []theorems.Figure{f}
}

// GapFigure is the log-log plot of a ZD-T4/L5 sweep: sup_t |f_lin − f| and
// limsup |f_GRW − f_ERM| of every run against the width, their fitted lines
// and a line of slope −1/4 through the first width's geometric mean of the
// larger gap.
func GapFigure(runs []ntkth.GapRun, what string) (theorems.Figure, bool) {
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Width < runs[j].Width })
	var x, yl, yg []float64
	for _, r := range runs {
		x = append(x, float64(r.Width))
		yl = append(yl, r.LinGap)
		yg = append(yg, r.GRWGap)
	}
	lin, err := ntkth.FitLogLog(x, yl, nil)
	if err != nil {
		return theorems.Figure{}, false
	}
	grw, err := ntkth.FitLogLog(x, yg, nil)
	if err != nil {
		return theorems.Figure{}, false
	}
	lx := log10s(x)
	return theorems.Figure{
		Name:    "gap",
		Title:   "ZD-T4/L5: gaps against the width",
		Caption: fmt.Sprintf("%s. Fitted slopes: sup_t|f_lin − f| %s, limsup|f_GRW − f_ERM| %s; the bound is d̃^{−1/4}.", what, lin, grw),
		XLabel:  "log10 width",
		YLabel:  "log10 gap",
		Series: []theorems.Series{
			{Name: "sup_t |f_lin − f|", X: lx, Y: log10s(yl), Points: true},
			{Name: "limsup |f_GRW − f_ERM|", X: lx, Y: log10s(yg), Points: true},
			fitLine(fmt.Sprintf("fit to |f_lin − f|, slope %.2f", lin.Slope), lin, x),
			fitLine(fmt.Sprintf("fit to |f_GRW − f_ERM|, slope %.2f", grw.Slope), grw, x),
			refLine("slope −1/4", ntkth.ApproximationExponent, x, yl),
		},
	}, true
}

// scalingFigure is a log-log plot of groups of (width, gap) points with a
// fitted line per group and a line of slope −1/4 through the first group.
func scalingFigure(name, title, caption string, groups []string, x, y map[string][]float64) (theorems.Figure, bool) {
	f := theorems.Figure{Name: name, Title: title, XLabel: "log10 width", YLabel: "log10 gap"}
	var fits []string
	for _, g := range groups {
		fit, err := ntkth.FitLogLog(x[g], y[g], nil)
		if err != nil {
			return f, false
		}
		f.Series = append(f.Series, theorems.Series{Name: g, X: log10s(x[g]), Y: log10s(y[g]), Points: true},
			fitLine(fmt.Sprintf("fit, slope %.2f", fit.Slope), fit, x[g]))
		fits = append(fits, fmt.Sprintf("%s %s", g, fit))
	}
	f.Series = append(f.Series, refLine("slope −1/4", ntkth.ApproximationExponent, x[groups[0]], y[groups[0]]))
	f.Caption = caption + " Fitted slopes: " + strings.Join(fits, "; ") + "."
	return f, true
}

// regFigures draws ZD-T6's approximation gaps against the width: Lemma 16
// for each μ and Lemma 5 (|f_ERM − f*|).
func regFigures(r *properties.Runner) []theorems.Figure {
	seed := r.Seed
	c := properties.Sample(GenRegSweep(false), seed, 1)[0]
	runs, err := c.Run(r)
	if err != nil {
		return nil
	}
	x, y := map[string][]float64{}, map[string][]float64{}
	var groups []string
	add := func(g string, w int, v float64) {
		if _, ok := x[g]; !ok {
			groups = append(groups, g)
		}
		x[g], y[g] = append(x[g], float64(w)), append(y[g], v)
	}
	for _, r := range runs {
		if r.C == runs[0].C {
			add("|f_ERM − f*|", r.Width, r.ERMGap)
		}
		add(fmt.Sprintf("sup|f_reg − f_linreg|, μ = %g·q_min λ_min", r.C), r.Width, r.ApproxGap)
	}
	f, ok := scalingFigure("approximation", "ZD-T6: approximation gaps against the width", c.Describe(r)+".", groups, x, y)
	if !ok {
		return nil
	}
	return []theorems.Figure{f}
}

// signFigures draws ZD-T9's approximation gap (Lemma 16, logistic) against
// the width and the network's agreement with f_MM on all test points.
func signFigures(r *properties.Runner) []theorems.Figure {
	seed := r.Seed
	c := properties.Sample(GenSignSweep(false), seed, 1)[0]
	runs, err := c.Run(r)
	if err != nil {
		return nil
	}
	x, y := map[string][]float64{}, map[string][]float64{}
	ax, ay := map[string][]float64{}, map[string][]float64{}
	var groups []string
	for _, r := range runs {
		g := fmt.Sprintf("μ = %g", r.Mu)
		if _, ok := x[g]; !ok {
			groups = append(groups, g)
		}
		x[g], y[g] = append(x[g], float64(r.Width)), append(y[g], r.ApproxGap)
		k := 0
		for i := range r.FMM {
			if r.FReg[i]*r.FMM[i] > 0 {
				k++
			}
		}
		ax[g], ay[g] = append(ax[g], math.Log10(float64(r.Width))), append(ay[g], float64(k)/float64(len(r.FMM)))
	}
	f, ok := scalingFigure("approximation", "ZD-T9: sup|f_reg − f_linreg| against the width (logistic)", c.Describe(r)+".", groups, x, y)
	if !ok {
		return nil
	}
	agree := theorems.Figure{Name: "agreement", Title: "ZD-T9: sign agreement with f_MM", XLabel: "log10 width", YLabel: "share of test points",
		Caption: "Share of the test points where the regularized network has the sign of the max-margin linearized network f_MM, " + c.Describe(r) + "."}
	for _, g := range groups {
		agree.Series = append(agree.Series, theorems.Series{Name: g, X: ax[g], Y: ay[g], Points: true})
	}
	return []theorems.Figure{f, agree}
}

func log10s(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Log10(x)
	}
	return out
}

// fitLine is the fitted line over the range of x, in log10 coordinates.
func fitLine(name string, f ntkth.LogLogFit, x []float64) theorems.Series {
	lo, hi := MinMax(x)
	at := func(v float64) float64 { return (f.Intercept + f.Slope*math.Log(v)) / math.Ln10 }
	return theorems.Series{Name: name, X: []float64{math.Log10(lo), math.Log10(hi)}, Y: []float64{at(lo), at(hi)}}
}

// refLine is a line of the given slope through the geometric mean of the y
// of the smallest x, in log10 coordinates.
func refLine(name string, slope float64, x, y []float64) theorems.Series {
	lo, hi := MinMax(x)
	var s float64
	var k int
	for i := range x {
		if x[i] == lo {
			s += math.Log10(y[i])
			k++
		}
	}
	y0 := s / float64(k)
	return theorems.Series{Name: name, X: []float64{math.Log10(lo), math.Log10(hi)}, Y: []float64{y0, y0 + slope*math.Log10(hi/lo)}}
}

func MinMax(x []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range x {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}
