package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/ntk"
	"github.com/implicitbias/implicitbias/theorems"
	ntkth "github.com/implicitbias/implicitbias/theorems/ntk"
)

// parts lists the parts writeNTKReport knows: the claims of ZD-L3,
// ZD-T4/L5, ZD-T6, ZD-T9, the control of ZD-T4/L5 with a zero GRW weight,
// the claim's sweep with the ntk-scale fault (the output factor 1/d_L: the
// mean-field network) and the Gaussian last layer (not an entry's case: a
// finding of docs/ntk.md).
func parts() []string {
	return []string{"L3", "T4", "T4-gauss", "T4-zero", "T4-ntk-scale", "T6", "T9"}
}

// writeNTKReport runs one part of section F at r's budget on the case
// that `verify --seed` checks first at r's seed (the same sweep, so the numbers are
// the ones the verdict was computed from), writes its Markdown table and
// verdict to w and returns its figures.
func writeNTKReport(part string, r *properties.Runner, w io.Writer) ([]theorems.Figure, error) {
	seed := r.Seed
	switch part {
	case "L3":
		c := properties.Sample(ntk.GenKernelSweep(false), seed, 1)[0]
		ws, err := c.Run(r)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "ZD-L3, %v.\n\n| width | Σ_ij Var Θ^{(0)}(x_i, x_j) | SE of log | mean Gram entries |\n|---|---|---|---|\n", c.Describe(r))
		for _, kw := range ws {
			kv, err := kw.Variance(ntk.NTKN)
			if err != nil {
				return nil, err
			}
			lo, hi := ntk.MinMax(kv.Mean)
			fmt.Fprintf(w, "| %d | %.3g | %.2f | [%.3f, %.3f] |\n", kv.Width, kv.V, kv.LogSE, lo, hi)
		}
		fmt.Fprintf(w, "\nVerdict: %v\n", ntkth.NTKConcentration(ntk.NTKN, ws))
		return ntk.KernelFigures(r), nil
	case "T4", "T4-gauss", "T4-zero", "T4-ntk-scale":
		kind := map[string]int{"T4": ntk.GapClaim, "T4-gauss": ntk.GapGaussian, "T4-zero": ntk.GapZeroWeight, "T4-ntk-scale": ntk.GapClaim}[part]
		c := properties.Sample(ntk.GenGapSweep(kind), seed, 1)[0]
		if part == "T4-ntk-scale" {
			c.Fault = "ntk-scale"
		}
		runs, err := c.Run(r)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "ZD-T4/L5, %v.\n\n| width | parameters | sup_t max_x \\|f_lin − f\\| (geometric mean [min, max] over seeds) | limsup max_x \\|f_GRW − f_ERM\\| | max_x \\|f_lin − f*\\| at the end | linearized runs against their path / the weights' effect |\n|---|---|---|---|---|---|\n", c.Describe(r))
		depth, _ := c.Size(r)
		for _, g := range groupGap(runs) {
			fmt.Fprintf(w, "| %d | %d | %s | %s | %.1e | %.1e / %.2g |\n", g[0].Width, ntkParams(depth, g[0].Width),
				spread(g, func(r ntkth.GapRun) float64 { return r.LinGap }),
				spread(g, func(r ntkth.GapRun) float64 { return r.GRWGap }),
				maxOf(g, func(r ntkth.GapRun) float64 { return r.LinLimitGap }),
				maxOf(g, func(r ntkth.GapRun) float64 { return r.LinPath.Err }),
				minOf(g, func(r ntkth.GapRun) float64 { return r.LinPath.Effect }))
		}
		fmt.Fprintf(w, "\nVerdict: %v\n", ntkth.NTKApproximation(runs))
		f, ok := ntk.GapFigure(runs, c.Describe(r))
		if !ok {
			return nil, nil
		}
		switch part {
		case "T4-gauss":
			f.Name, f.Title = "gap-gauss", "Gaussian last layer"
		case "T4-zero":
			f.Name, f.Title = "gap-zero-weight", "ZD-T4/L5 control: a GRW weight of 0"
		case "T4-ntk-scale":
			f.Name, f.Title = "gap-meanfield", "ZD-T4/L5 fault ntk-scale: output factor 1/d_L (mean-field)"
		}
		return []theorems.Figure{f}, nil
	case "T6":
		c := properties.Sample(ntk.GenRegSweep(false), seed, 1)[0]
		runs, err := c.Run(r)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "ZD-T6, %v; risk budget ε = %.3g.\n\n| μ/(q_min λ_min) | width | training risk R̂ | max_x \\|f_reg − f_ERM\\| | d̃^{−1/4} + √R̂ | sup_t \\|f_reg − f_linreg\\| | \\|f_linreg − f*\\| / Lemma 18's bound | linearized run against its path / the weights' effect |\n|---|---|---|---|---|---|---|---|\n", c.Describe(r), c.RiskBudget())
		sort.SliceStable(runs, func(i, j int) bool {
			if runs[i].C != runs[j].C {
				return runs[i].C < runs[j].C
			}
			return runs[i].Width < runs[j].Width
		})
		for i := 0; i < len(runs); {
			j := i
			for j < len(runs) && runs[j].C == runs[i].C && runs[j].Width == runs[i].Width {
				j++
			}
			g := runs[i:j]
			var risk, gap, ref, approx, ratio, perr float64
			eff := math.Inf(1)
			for _, r := range g {
				perr, eff = math.Max(perr, r.LinPath.Err), math.Min(eff, r.LinPath.Effect)
				risk += r.Risk / float64(len(g))
				gap += math.Log(r.RegGap) / float64(len(g))
				ref += math.Log(math.Pow(float64(r.Width), -0.25)+math.Sqrt(r.Risk)) / float64(len(g))
				approx += math.Log(r.ApproxGap) / float64(len(g))
				ratio = math.Max(ratio, r.LinRegGap/ntkth.LimitBound(r.TestDiag, r.LinRisk, r.GramMin, r.N))
			}
			fmt.Fprintf(w, "| %g | %d | %.2g | %.3g | %.3g | %.3g | ≤ %.2f | %.1e / %.2g |\n", g[0].C, g[0].Width, risk, math.Exp(gap), math.Exp(ref), math.Exp(approx), ratio, perr, eff)
			i = j
		}
		fmt.Fprintf(w, "\nVerdict: %v\n", ntkth.RegularizedWidthGap(runs, c.RiskBudget()))
		return nil, nil
	case "T9":
		c := properties.Sample(ntk.GenSignSweep(false), seed, 1)[0]
		runs, err := c.Run(r)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "ZD-T9, %v.\n\n| μ | width | training risk ε | δ | δ√R | the proof's bound on δ | agreement on certified points | agreement on all test points | sup_t \\|f_reg − f_linreg\\| (geometric mean) | linearized run against its path / the weights' effect |\n|---|---|---|---|---|---|---|---|---|---|\n", c.Describe(r))
		sort.SliceStable(runs, func(i, j int) bool {
			if runs[i].Mu != runs[j].Mu {
				return runs[i].Mu > runs[j].Mu
			}
			return runs[i].Width < runs[j].Width
		})
		for i := 0; i < len(runs); {
			j := i
			for j < len(runs) && runs[j].Mu == runs[i].Mu && runs[j].Width == runs[i].Width {
				j++
			}
			g := runs[i:j]
			k := float64(len(g))
			var eps, delta, dr, db, gap, perr float64
			eff := math.Inf(1)
			cert, agree, all, m := 0, 0, 0, 0
			for _, r := range g {
				perr, eff = math.Max(perr, r.LinPath.Err), math.Min(eff, r.LinPath.Effect)
				eps += r.Risk / k
				delta += r.Delta / k
				dr += r.Delta * math.Sqrt(r.R) / k
				db += ntkth.DeltaBound(r.R, r.Gamma, r.M, r.QStar) / k
				gap += math.Log(r.ApproxGap) / k
				ci, ai := r.CertifiedAgreement()
				cert, agree = cert+ci, agree+ai
				for t := range r.FMM {
					if r.FReg[t]*r.FMM[t] > 0 {
						all++
					}
				}
				m += len(r.FMM)
			}
			fmt.Fprintf(w, "| %g | %d | %.3g | %.3f | %.2f | %.2f | %d/%d | %d/%d | %.3g | %.1e / %.2g |\n", g[0].Mu, g[0].Width, eps, delta, dr, db, agree, cert, all, m, math.Exp(gap), perr, eff)
			i = j
		}
		fmt.Fprintf(w, "\nVerdict: %v\n", ntkth.SignAgreement(runs))
		return nil, nil
	}
	return nil, fmt.Errorf("unknown part %q (want one of %s)", part, strings.Join(parts(), ", "))
}

// ntkParams is the number of parameters of depth hidden layers of width w
// on ntkD inputs.
func ntkParams(depth, w int) int {
	p := ntk.NTKD*w + w
	for l := 1; l < depth; l++ {
		p += w*w + w
	}
	return p + w + 1
}

// groupGap groups runs by width, in increasing order.
func groupGap(runs []ntkth.GapRun) [][]ntkth.GapRun {
	by := map[int][]ntkth.GapRun{}
	var ws []int
	for _, r := range runs {
		if _, ok := by[r.Width]; !ok {
			ws = append(ws, r.Width)
		}
		by[r.Width] = append(by[r.Width], r)
	}
	sort.Ints(ws)
	var out [][]ntkth.GapRun
	for _, w := range ws {
		out = append(out, by[w])
	}
	return out
}

// spread is "geometric mean [min, max]" of f over g.
func spread(g []ntkth.GapRun, f func(ntkth.GapRun) float64) string {
	var s float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range g {
		v := f(r)
		s += math.Log(v)
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return fmt.Sprintf("%.3g [%.3g, %.3g]", math.Exp(s/float64(len(g))), lo, hi)
}

func maxOf(g []ntkth.GapRun, f func(ntkth.GapRun) float64) float64 {
	m := math.Inf(-1)
	for _, r := range g {
		m = math.Max(m, f(r))
	}
	return m
}

func minOf(g []ntkth.GapRun, f func(ntkth.GapRun) float64) float64 {
	m := math.Inf(1)
	for _, r := range g {
		m = math.Min(m, f(r))
	}
	return m
}
