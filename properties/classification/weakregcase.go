package classification

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/grwclass"
	"github.com/implicitbias/implicitbias/train"
)

// WeakRegCase is a generated problem for XY Claim 1 and Prop. 3: separable
// binary data (as ClassCase), importance weights log-uniform in [1/M, M],
// the exponential or logistic loss and a regularizer λ‖θ‖^r, r ∈ {1.5, 2, 3}.
type WeakRegCase struct {
	Class ClassCase
	R     int // index into regExponents
}

func (c WeakRegCase) WithFault(name string) any { c.Class.Fault = name; return c }

var regExponents = []float64{1.5, 2, 3}

func (c WeakRegCase) r() float64 { return regExponents[((c.R%3)+3)%3] }

// String describes the case.
func (c WeakRegCase) String() string { return fmt.Sprintf("%v r=%g", c.Class, c.r()) }

// weakLadder is the λ ladder of the claims, 1e-1 down to 1e-8 (XY-P3's
// catalog entry); strongLadder that of XY-C1's control.
var (
	weakLadder   = []float64{1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8}
	strongLadder = []float64{1, 10, 100}
)

// regObjective returns the case's objective with static weights w̄ and the
// loss of the case.
func (c WeakRegCase) regObjective(data *dataset.Dataset) (*train.Objective, losses.Margin, error) {
	obj, err := LinearObjective(data, 1, c.Class.LossOf())
	if err != nil {
		return nil, nil, err
	}
	if err := c.setWeights(obj); err != nil {
		return nil, nil, err
	}
	m, _ := losses.MarginOf(obj.Loss)
	return obj, m, nil
}

// setWeights sets the case's normalized importance weights w̄ on obj.
func (c WeakRegCase) setWeights(obj *train.Objective) error {
	wbar, err := train.NormalizeWeights(c.Class.ImportanceWeights())
	if err != nil {
		return err
	}
	return obj.SetWeights(wbar)
}

// Ladder computes the optima θ_λ (train.Minimize on log L_λ) along the
// ladder, each from the previous one, the first from θ = 0: not from the
// SVM direction, whose margin is the limit XY-P3 checks (a minimizer that
// never moved would pass from there). Cached, read only by the callers.
func (c WeakRegCase) Ladder(r *properties.Runner, lambdas []float64) (*dataset.Dataset, []grwclass.RegOptimum, error) {
	data := c.Class.Data()
	key := fmt.Sprintf("%#v/%v", c, lambdas) // every field, exactly
	opt, err := properties.Cache[[]grwclass.RegOptimum](r, "ladders").GetKept(key, func() ([]grwclass.RegOptimum, error) {
		var opt []grwclass.RegOptimum
		obj, _, err := c.regObjective(data)
		if err != nil {
			return nil, err
		}
		if obj, _, err = properties.Plant(c.Class.Fault, obj, nil); err != nil {
			return nil, err
		}
		// The weights again, through the planted objective: a reweighting
		// fault acts on the weights set after it (train.Objective.PlantFault).
		if err := c.setWeights(obj); err != nil {
			return nil, err
		}
		theta := make([]float64, data.D)
		for _, lam := range lambdas {
			obj.Reg = train.NormPower{Lambda: lam, R: c.r()}
			if _, err := train.Minimize(obj, theta, nil); err != nil {
				return opt, fmt.Errorf("λ = %g: %w", lam, err)
			}
			opt = append(opt, grwclass.RegOptimum{Lambda: lam, Theta: append([]float64(nil), theta...)})
		}
		return opt, nil
	})
	return data, opt, err
}

// nearOptimal draws, at every λ, k points θ' = θ_λ + s·v (v a random unit
// vector, s > 0 by bisection) with L_λ(θ') = τ·L_λ(θ_λ), τ uniform in
// (1, 2]: along the line s ↦ L_λ(θ_λ + sv) is convex with its minimum at
// s = 0, so the level τ·L_λ(θ_λ) is crossed once for s > 0.
func (c WeakRegCase) nearOptimal(data *dataset.Dataset, opt []grwclass.RegOptimum, k int) ([]grwclass.NearOptimal, error) {
	obj, _, err := c.regObjective(data)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(c.Class.Seed, 91))
	var out []grwclass.NearOptimal
	th := make([]float64, data.D)
	for _, o := range opt {
		obj.Reg = train.NormPower{Lambda: o.Lambda, R: c.r()}
		obj.ResetCache()
		f := func(s float64, v []float64) (float64, error) {
			floats.AddScaledTo(th, o.Theta, s, v)
			ev, err := obj.Evaluate(th, false)
			if err != nil {
				return 0, err
			}
			return ev.LogObjective, nil
		}
		f0, err := f(0, make([]float64, data.D))
		if err != nil {
			return nil, err
		}
		for j := 0; j < k; j++ {
			tau := 1 + r.Float64()
			if tau == 1 {
				tau = 2
			}
			target := f0 + math.Log(tau)
			v := numerics.RandomUnit(r, data.D)
			lo, hi := 0.0, 1e-3*(1+floats.Norm(o.Theta, 2))
			for it := 0; it < 200; it++ {
				if fh, err := f(hi, v); err != nil || fh >= target {
					break
				}
				lo, hi = hi, 2*hi
			}
			for it := 0; it < 100; it++ {
				mid := (lo + hi) / 2
				fm, err := f(mid, v)
				if err != nil {
					return nil, err
				}
				if fm < target {
					lo = mid
				} else {
					hi = mid
				}
			}
			// lo has L_λ(θ') ≤ τ·L_λ(θ_λ): the claim's hypothesis holds.
			floats.AddScaledTo(th, o.Theta, lo, v)
			fl, _ := f(lo, v)
			out = append(out, grwclass.NearOptimal{Lambda: o.Lambda, Tau: math.Exp(fl - f0), Theta: append([]float64(nil), th...)})
		}
	}
	return out, nil
}

// GenWeakReg generates weak-regularization cases: exp or logistic loss,
// random importance weights, any r of regExponents.
func GenWeakReg() properties.Gen[WeakRegCase] {
	return properties.StructOf[WeakRegCase](map[string]gopter.Gen{
		"Class": gopter.Gen(GenClass(false, []int{LossExp, LossLogistic}, []int{SchemeRandomIW})),
		"R":     gen.IntRange(0, 2),
	})
}

func weakNormsProperty(name string, lambdas []float64) properties.Property[WeakRegCase] {
	return properties.Property[WeakRegCase]{Name: name, Gen: GenWeakReg(), Check: func(r *properties.Runner, c WeakRegCase) theorems.Verdict {
		data, opt, err := c.Ladder(r, lambdas)
		if err != nil {
			return theorems.Undecided("optima: %v", err)
		}
		m, _ := losses.MarginOf(mustLoss(c.Class.LossOf()))
		return grwclass.WeakRegNorms(data, c.Class.ImportanceWeights(), m, c.r(), opt)
	}}
}

// weakMarginsProperty applies XY-P3's check to the ladder of optima with
// near-optimal points, or (random) to points of the optima's norms in a
// fixed random separating direction instead of the optima.
func weakMarginsProperty(name string, random bool) properties.Property[WeakRegCase] {
	return properties.Property[WeakRegCase]{Name: name, Gen: GenWeakReg(), Check: func(r *properties.Runner, c WeakRegCase) theorems.Verdict {
		data, opt, err := c.Ladder(r, weakLadder)
		if err != nil {
			return theorems.Undecided("optima: %v", err)
		}
		m, _ := losses.MarginOf(mustLoss(c.Class.LossOf()))
		var near []grwclass.NearOptimal
		if random {
			v, err := halfMarginDirection(data, c.Class.Seed)
			if err != nil {
				return properties.BuildFailed(err)
			}
			moved := make([]grwclass.RegOptimum, len(opt))
			for i, o := range opt {
				th := append([]float64(nil), v...)
				floats.Scale(floats.Norm(o.Theta, 2)/floats.Norm(v, 2), th)
				moved[i] = grwclass.RegOptimum{Lambda: o.Lambda, Theta: th}
			}
			opt = moved
		} else if near, err = c.nearOptimal(data, opt, 4); err != nil {
			return theorems.Undecided("near-optimal points: %v", err)
		}
		return grwclass.WeakRegMargins(data, c.Class.ImportanceWeights(), m, c.r(), opt, near)
	}}
}

func mustLoss(name string) losses.Loss {
	l, err := losses.ByName(name)
	if err != nil {
		panic(err) // the case's loss names are the package's own
	}
	return l
}

// halfMarginDirection returns a unit vector whose normalized margin is
// half the SVM's, γ*/2: v(s) = θ* cos s + n sin s with n a random unit
// vector orthogonal to θ*, at the s ∈ (0, π/2) where min_i y_i⟨v(s), x_i⟩ =
// γ*/2 (bisection: the margin is γ* at s = 0 and ≤ 0 at s = π/2, since
// Σ_i α_i y_i⟨n, x_i⟩ = ⟨n, w⟩ = 0 puts some support vector at ≤ 0).
func halfMarginDirection(data *dataset.Dataset, seed uint64) ([]float64, error) {
	sol, err := numerics.HardMarginSVM(mat.NewDense(data.N, data.D, data.X), data.Y, nil)
	if err != nil {
		return nil, err
	}
	u := sol.Direction()
	r := rand.New(rand.NewPCG(seed, 92))
	n := numerics.RandomUnit(r, data.D)
	floats.AddScaled(n, -floats.Dot(n, u), u)
	if floats.Norm(n, 2) == 0 {
		return nil, fmt.Errorf("d = 1: no direction orthogonal to the SVM's")
	}
	floats.Scale(1/floats.Norm(n, 2), n)
	v := make([]float64, data.D)
	margin := func(s float64) float64 {
		floats.AddScaledTo(v, make([]float64, data.D), math.Cos(s), u)
		floats.AddScaled(v, math.Sin(s), n)
		m := math.Inf(1)
		for i := 0; i < data.N; i++ {
			m = math.Min(m, data.Y[i]*floats.Dot(v, data.Row(i)))
		}
		return m - sol.Margin/2
	}
	lo, hi := 0.0, math.Pi/2
	for it := 0; it < 100; it++ {
		mid := (lo + hi) / 2
		if margin(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	margin(lo)
	return append([]float64(nil), v...), nil
}
