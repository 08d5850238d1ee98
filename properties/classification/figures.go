package classification

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/grwclass"
	"github.com/implicitbias/implicitbias/train"
)

// TableCase is the case of the angle table and of ZD-T7's figures: 6
// independent unit vectors in 8 dimensions (the setting of ZD Thm 7),
// seed 7, under every scheme.
func TableCase(seed uint64) ClassCase {
	return ClassCase{N: 6, Extra: 2, Indep: true, Scheme: cases.SchemeERM, Param: 0.5, LogM: math.Log(4), Seed: seed}
}

// AngleRow is one row of the angle table: a GRW scheme and the final
// angles of GD runs with the logistic loss and with ZD's polynomially
// tailed loss on the same data, to the hard-margin SVM direction θ̂_MM and,
// for the polynomial tail, to its own weight-dependent limit u(q) at the
// run's last weights (numerics.PolyTailDirection).
type AngleRow struct {
	Scheme                       string
	Logistic, Poly, PolyToLimit  float64
	LogT                         float64
	MinWeightLogistic, MinWeight float64 // n·min q at the end
	logisticRun, polyRun         []anglePoint
}

type anglePoint struct{ logT, angle float64 }

// AngleTable trains c's data under every scheme of ZD-T7's claims with the
// logistic and the polynomially tailed losses for steps steps each.
func AngleTable(c ClassCase, steps int) ([]AngleRow, error) {
	data := c.Data()
	sol, err := numerics.HardMarginSVM(mat.NewDense(data.N, data.D, data.X), data.Y, nil)
	if err != nil {
		return nil, err
	}
	z := mat.NewDense(data.N, data.D, nil)
	for i := 0; i < data.N; i++ {
		for j, v := range data.Row(i) {
			z.Set(i, j, data.Y[i]*v)
		}
	}
	var rows []AngleRow
	for _, s := range AllGRWSchemes() {
		cs := c
		cs.Scheme = s
		row := AngleRow{Scheme: cs.schemeName()}
		for _, l := range []int{LossLogistic, LossPoly} {
			w, err := cs.Weighting()
			if err != nil {
				return nil, err
			}
			tr, err := cs.WithLoss(l).runWith(data, w, steps)
			if err != nil {
				return nil, fmt.Errorf("%s, %s: %w", row.Scheme, classLossNames[l], err)
			}
			var pts []anglePoint
			for _, r := range tr.Records {
				if r.Theta != nil && r.LogT > 0 {
					pts = append(pts, anglePoint{r.LogT, numerics.Angle(r.Theta, sol.W)})
				}
			}
			fin := tr.Final()
			minW := floats.Min(fin.Weights) * float64(data.N)
			if l == LossLogistic {
				row.Logistic, row.logisticRun, row.MinWeightLogistic, row.LogT = numerics.Angle(tr.Theta, sol.W), pts, minW, fin.LogT
				continue
			}
			row.Poly, row.polyRun, row.MinWeight = numerics.Angle(tr.Theta, sol.W), pts, minW
			row.PolyToLimit = math.NaN()
			if pd, err := numerics.PolyTailDirection(z, fin.Weights, 1); err == nil {
				row.PolyToLimit = numerics.Angle(tr.Theta, pd.U)
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// grwClassFigures draws ZD-T7's evidence: the angle to θ̂_MM against log T
// for every scheme, with the logistic loss and with the polynomial tail.
func grwClassFigures(r *properties.Runner) []theorems.Figure {
	seed := r.Seed
	rows, err := AngleTable(TableCase(uint64(seed)), ClassSteps(r))
	if err != nil {
		return nil
	}
	var figs []theorems.Figure
	for k, name := range []string{"logistic", "poly"} {
		f := theorems.Figure{Name: "angle-" + name, Title: fmt.Sprintf("ZD-T7: angle(θ(t), θ̂_MM) per GRW scheme, %s loss", name), XLabel: "log T", YLabel: "angle to the SVM direction (rad)"}
		for _, r := range rows {
			pts := r.logisticRun
			if k == 1 {
				pts = r.polyRun
			}
			s := theorems.Series{Name: r.Scheme}
			for _, p := range pts {
				s.X, s.Y = append(s.X, p.logT), append(s.Y, p.angle)
			}
			f.Series = append(f.Series, s)
		}
		figs = append(figs, f)
	}
	return figs
}

// polyFigures draws ZD-PT's evidence: the angle between the regularization
// paths under ERM and under random importance weights against log₁₀ R,
// for the polynomial tail (it tends to ∠(u(q1), u(q2)) > 0) and the
// logistic loss (it tends to 0).
func polyFigures(r *properties.Runner) []theorems.Figure {
	seed := r.Seed
	c := TableCase(uint64(seed))
	c.Indep = false
	data := c.Data()
	q := twoWeightings(c)
	radii := []float64{1, 3, 10, 30, 100, 300, 1e3, 3e3, 1e4, 3e4, 1e5}
	f := theorems.Figure{Name: "paths", Title: "ZD-PT: angle between the paths θ_R under ERM and random IW weights", XLabel: "log10 R", YLabel: "angle(θ_R(q1), θ_R(q2)) (rad)"}
	for _, l := range []int{LossLogistic, LossPoly} {
		var p [2][]grwclass.PathRay
		for k := range q {
			r, err := rays(data, classLossNames[l], q[k], radii, "")
			if err != nil {
				return nil
			}
			p[k] = r
		}
		s := theorems.Series{Name: classLossNames[l]}
		for i := range radii {
			s.X = append(s.X, math.Log10(radii[i]))
			s.Y = append(s.Y, numerics.Angle(p[0][i].ThetaR, p[1][i].ThetaR))
		}
		f.Series = append(f.Series, s)
	}
	z := mat.NewDense(data.N, data.D, nil)
	for i := 0; i < data.N; i++ {
		for j, v := range data.Row(i) {
			z.Set(i, j, data.Y[i]*v)
		}
	}
	u1, e1 := numerics.PolyTailDirection(z, q[0], 1)
	u2, e2 := numerics.PolyTailDirection(z, q[1], 1)
	if e1 == nil && e2 == nil {
		f.Lines = append(f.Lines, theorems.Line{Name: "angle(u(q1), u(q2))", Y: numerics.Angle(u1.U, u2.U)})
	}
	return []theorems.Figure{f}
}

// KLPair is one instance of XY Prop. 1 (c): two importance weightings of the
// same data, their KL divergences from the SVM dual p*, and the angles to
// θ* of GD after the same number of steps.
type KLPair struct {
	KL, Angle [2]float64
}

// klSteps is the step count at which XY-P1 (c) compares two weightings.
const klSteps = 2000

// KLOrderingPairs runs n instances of XY Prop. 1 (c): random separable data
// (as XY-P1's claims), two weightings log-uniform in [1/M, M] (M = 10), GD
// on the exponential loss for klSteps steps each.
func KLOrderingPairs(seed int64, n int) ([]KLPair, error) {
	var out []KLPair
	for _, c := range properties.Sample(GenClass(false, []int{LossExp}, []int{SchemeRandomIW}), seed, n) {
		c.LogM = math.Log(10)
		data := c.Data()
		sol, err := numerics.HardMarginSVM(mat.NewDense(data.N, data.D, data.X), data.Y, nil)
		if err != nil {
			return nil, err
		}
		var p KLPair
		for k := 0; k < 2; k++ {
			ck := c
			ck.Seed = c.Seed + uint64(k)*0x9e3779b97f4a7c15 // a second, independent weighting
			w := ck.ImportanceWeights()
			tr, err := c.runWith(data, &train.Static{W: w}, klSteps)
			if err != nil {
				return nil, err
			}
			p.KL[k] = numerics.KLDivergence(sol.Alpha, w)
			p.Angle[k] = numerics.Angle(tr.Theta, sol.W)
		}
		out = append(out, p)
	}
	return out, nil
}

// klFigures draws XY Prop. 1 (c): for pairs of weightings, the difference
// of their KL divergences from p* against the difference of their angles
// to θ* after the same number of steps (same sign: the prediction holds).
func klFigures(r *properties.Runner) []theorems.Figure {
	seed := r.Seed
	pairs, err := KLOrderingPairs(seed, 40)
	if err != nil {
		return nil
	}
	var kl1, kl2, a1, a2 []float64
	s := theorems.Series{Name: "pairs", Points: true}
	for _, p := range pairs {
		kl1, kl2, a1, a2 = append(kl1, p.KL[0]), append(kl2, p.KL[1]), append(a1, p.Angle[0]), append(a2, p.Angle[1])
		s.X, s.Y = append(s.X, p.KL[0]-p.KL[1]), append(s.Y, p.Angle[0]-p.Angle[1])
	}
	conc, dec := grwclass.KLOrdering(kl1, kl2, a1, a2)
	return []theorems.Figure{{
		Name:   "kl-ordering",
		Title:  fmt.Sprintf("XY-P1 (c): closer to p* in KL ⇒ closer to θ* at step %d? %d of %d pairs", klSteps, conc, dec),
		XLabel: "KL(p*‖w1) − KL(p*‖w2)", YLabel: "angle(θ1, θ*) − angle(θ2, θ*) (rad)",
		Series: []theorems.Series{s},
		Lines:  []theorems.Line{{Name: "0", Y: 0}},
	}}
}
