package classification

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/fixtures"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/train"
)

// NonSepCase is a generated non-separable problem for XY Prop. 2, built as
// ../shared/reference's nonsep files are: a separable part of unit vectors
// labelled by a unit u with |⟨u, x⟩| ≥ 0.25, u orthogonal to a random
// K-dimensional subspace, and K pairs of points inside that subspace that
// no hyperplane through the origin separates — (z, +1), (z, −1) ("flip") or
// (z, s), (−z, s) ("neg") — with static importance weights log-uniform in
// [1/M, M]. Ref ≥ 0 selects the reference file of that index instead (its
// data and weights).
type NonSepCase struct {
	D    int // 3…6
	K    int // subspace dimension 1…2 (< D)
	NSep int // separable samples 4…8
	LogM float64
	Ref  int // −1: generated
	Seed uint64
	// Spread sets the weights of each D_nonsep pair to M' and 1/M', M' =
	// max(M, 2), so that θ̃(w) is at least log 2 from θ̃ of uniform weights
	// along each pair: the wrong-weights control then has a difference to
	// find. With random weights the pair's two weights can nearly agree
	// (soak seed 1795336113000100: θ̃(w) was 0.0099 from θ̃(1), below what
	// a 2·10⁵-step run resolves).
	Spread bool
	// Fault names an engine fault planted in the run (package faults).
	Fault string
}

// WithFault plants the fault; a reweighting fault also spreads each
// D_nonsep pair's weights to M' and 1/M' (Spread), so that the finite part
// of the right weights lies at least log 2 from the uniform weights' one
// along each pair: with random weights a pair's two can nearly agree and a
// run that ignored them would land within what it resolves.
func (c NonSepCase) WithFault(name string) any {
	c.Fault = name
	if f, err := faults.Lookup(name); err == nil && f.Component == "reweighting" {
		c.Spread = true
	}
	return c
}

func (c NonSepCase) d() int { return max(c.D, 2) }
func (c NonSepCase) k() int { return min(max(c.K, 1), c.d()-1) }

// String describes the case.
func (c NonSepCase) String() string {
	if c.Ref >= 0 {
		return fmt.Sprintf("reference nonsep case %d", c.Ref) + properties.FaultSuffix(c.Fault)
	}
	spread := ""
	if c.Spread {
		spread = " pairs spread"
	}
	return fmt.Sprintf("d=%d nonsep-dim=%d n_sep=%d M=%.3g%s seed=%d", c.d(), c.k(), max(c.NSep, 1), math.Exp(c.LogM), spread, c.Seed) + properties.FaultSuffix(c.Fault)
}

// Build returns the data and the weights.
func (c NonSepCase) Build() (*dataset.Dataset, []float64, error) {
	if c.Ref >= 0 {
		refs, err := fixtures.NonSepCases()
		if err != nil {
			return nil, nil, err
		}
		rc := refs[properties.Pick(c.Ref, len(refs))]
		return &dataset.Dataset{N: rc.N, D: rc.D, X: fixtures.Flat(rc.X), Y: rc.Y}, rc.Weights, nil
	}
	r := rand.New(rand.NewPCG(c.Seed, 81))
	d, k := c.d(), c.k()
	// Orthonormal basis of the subspace (Gram–Schmidt), then u ⟂ it.
	basis := make([][]float64, 0, k+1)
	orth := func(v []float64) []float64 {
		for _, b := range basis {
			floats.AddScaled(v, -floats.Dot(v, b), b)
		}
		floats.Scale(1/floats.Norm(v, 2), v)
		return v
	}
	for len(basis) < k {
		basis = append(basis, orth(numerics.RandomUnit(r, d)))
	}
	u := orth(numerics.RandomUnit(r, d))
	ds := &dataset.Dataset{D: d}
	for len(ds.Y) < max(c.NSep, 1) {
		x := numerics.RandomUnit(r, d)
		if p := floats.Dot(u, x); math.Abs(p) >= 0.25 {
			ds.X = append(ds.X, x...)
			ds.Y = append(ds.Y, math.Copysign(1, p))
		}
	}
	for j := 0; j < k; j++ {
		z := make([]float64, d)
		for _, b := range basis {
			floats.AddScaled(z, r.NormFloat64(), b)
		}
		floats.Scale(1/floats.Norm(z, 2), z)
		s := float64(2*r.IntN(2) - 1)
		if r.IntN(2) == 0 { // flip
			ds.X = append(append(ds.X, z...), z...)
			ds.Y = append(ds.Y, s, -s)
		} else { // neg
			mz := append([]float64(nil), z...)
			floats.Scale(-1, mz)
			ds.X = append(append(ds.X, z...), mz...)
			ds.Y = append(ds.Y, s, s)
		}
	}
	ds.N = len(ds.Y)
	w := make([]float64, ds.N)
	for i := range w {
		w[i] = math.Exp(c.LogM * (2*r.Float64() - 1))
	}
	if c.Spread {
		m := math.Max(math.Exp(c.LogM), 2)
		for i := ds.N - 2*k; i < ds.N; i += 2 {
			w[i], w[i+1] = m, 1/m
		}
	}
	return ds, w, nil
}

// Run trains the linear model on the exponential loss by GD (η = classLR)
// with the case's static weights, recorded as the GRW runs.
func (c NonSepCase) Run(steps int) (*dataset.Dataset, []float64, *train.Trajectory, error) {
	return c.runUntil(steps, nil)
}

// nonSepRun is a run of a NonSepCase with its data and weights.
type nonSepRun struct {
	data *dataset.Dataset
	w    []float64
	tr   *train.Trajectory
}

// cached is Run kept in r: a fault control's case is judged without the
// fault first (its validity), and its run is then the clean twin the
// faulted run is stopped against (runControl). stop, when set, ends the
// run early (GRWRunUntil); tag names it in the cache.
func (c NonSepCase) cached(r *properties.Runner, steps int, tag string, stop func(data *dataset.Dataset, w []float64) func(*train.Trajectory) bool) (*dataset.Dataset, []float64, *train.Trajectory, error) {
	key := fmt.Sprintf("%#v/%d/%s", c.canonical(), steps, tag)
	run, err := properties.Cache[nonSepRun](r, "nonSepRuns").GetKept(key, func() (nonSepRun, error) {
		data, w, tr, err := c.runUntil(steps, stop)
		return nonSepRun{data, w, tr}, err
	})
	return run.data, run.w, run.tr, err
}

// canonical returns the case with only the fields its run reads: a
// reference case is its file and its fault (Build ignores the generated
// cases' fields there), so that the reference property's repeated draws of
// one file (six draws of six files: at seed 2, files 0 and 5 three times
// each) and TestXY_P2_ReferenceSplit share one run and one verdict.
func (c NonSepCase) canonical() NonSepCase {
	if c.Ref < 0 {
		return c
	}
	return NonSepCase{Ref: c.Ref, Fault: c.Fault}
}

// runUntil is Run ended where stop, given the case's data and weights,
// says (nil: never).
func (c NonSepCase) runUntil(steps int, stop func(data *dataset.Dataset, w []float64) func(*train.Trajectory) bool) (*dataset.Dataset, []float64, *train.Trajectory, error) {
	ds, w, err := c.Build()
	if err != nil {
		return nil, nil, nil, err
	}
	obj, err := LinearObjective(ds, 1, "exp")
	if err != nil {
		return nil, nil, nil, err
	}
	gd, err := train.NewGD(ClassLR)
	if err != nil {
		return nil, nil, nil, err
	}
	obj, opt, err := properties.Plant(c.Fault, obj, gd)
	if err != nil {
		return nil, nil, nil, err
	}
	var until func(*train.Trajectory) bool
	if stop != nil {
		until = stop(ds, w)
	}
	tr, err := GRWRunUntil(obj, opt, make([]float64, ds.D), &train.Static{W: w}, steps, 1.5, until)
	return ds, w, tr, err
}

// GenNonSep generates non-separable cases (ref false) or picks one of the
// reference files (ref true).
func GenNonSep(ref, spread bool) properties.Gen[NonSepCase] {
	refGen := gen.Const(-1)
	if ref {
		refGen = gen.IntRange(0, 5)
	}
	return properties.StructOf[NonSepCase](map[string]gopter.Gen{
		"D":      gen.IntRange(3, 6),
		"K":      gen.IntRange(1, 2),
		"NSep":   gen.IntRange(4, 8),
		"LogM":   gen.Float64Range(math.Log(2), math.Log(10)),
		"Ref":    refGen,
		"Seed":   gen.UInt64(),
		"Spread": gen.Const(spread),
	})
}
