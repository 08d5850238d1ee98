package classification

import (
	"fmt"
	"math/rand/v2"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// MultiCase is a generated multi-class problem for ZD-B: N unit vectors in
// D dimensions labelled by a random linear teacher with K classes (rows
// random unit vectors), kept when the teacher's best score exceeds the
// second best by at least 0.25 (as ClassCase), trained as a linear K-output model on the
// cross-entropy under a GRW scheme.
type MultiCase struct {
	K      int // classes 3…4
	N      int // samples K+1…8
	D      int // dimensions 2…5
	Scheme int
	Param  float64
	Seed   uint64
	// Fault names an engine fault planted in the run (package faults).
	Fault string
}

func (c MultiCase) WithFault(name string) any { c.Fault = name; return c }

// FaultActs: a reweighting fault is drawn on schemes whose weights stay
// fixed and are not uniform (IW by class on unbalanced classes, static),
// as for ClassCase: on uniform weights it changes nothing, and on weights
// that move between records (Group DRO, the schedules) the records do not
// determine the weights the run used between them (multiClassLimit shows
// the weight-dependent parts there, not decides them).
func (c MultiCase) FaultActs(name string) bool {
	f, err := faults.Lookup(name)
	if err != nil {
		return false
	}
	if f.Component != "reweighting" {
		return true
	}
	fixed := c.Scheme == cases.SchemeIW || c.Scheme == cases.SchemeStatic
	if name == "weights-ignored-reported" && !fixed { // as ClassCase's: fixed weights must not be uniform
		return c.Scheme != cases.SchemeERM
	}
	if !fixed {
		return false
	}
	data := c.Data()
	w, err := cases.NewScheme(c.Scheme, c.Param, c.Seed, data.N)
	if err != nil || w.Start(data) != nil {
		return false
	}
	q := make([]float64, data.N)
	if err := w.Update(0, make([]float64, data.N), q); err != nil {
		return false
	}
	return floats.Max(q)-floats.Min(q) > 1e-12*floats.Max(q)
}

func (c MultiCase) k() int { return min(max(c.K, 3), 6) }

func (c MultiCase) n() int { return max(c.N, c.k()+1) }

func (c MultiCase) d() int { return max(c.D, 2) }

// String describes the case.
func (c MultiCase) String() string {
	return fmt.Sprintf("K=%d n=%d d=%d scheme=%s(%.3g) seed=%d", c.k(), c.n(), c.d(), cases.SchemeNames[c.Scheme], c.Param, c.Seed) + properties.FaultSuffix(c.Fault)
}

// Data draws the dataset (labels are class indices); every class appears,
// and every constraint of the multi-class SVM is active or has the gap
// minSupportGap (see ClassCase.Data).
func (c MultiCase) Data() *dataset.Dataset {
	k, n, d := c.k(), c.n(), c.d()
	for try := uint64(0); ; try++ {
		r := rand.New(rand.NewPCG(c.Seed, 71+try))
		teacher := make([][]float64, k)
		for j := range teacher {
			teacher[j] = numerics.RandomUnit(r, d)
		}
		ds := &dataset.Dataset{N: n, D: d}
		seen := make([]bool, k)
		for tries := 0; len(ds.Y) < n && tries < 10000; tries++ {
			x := numerics.RandomUnit(r, d)
			best, second := -1, -1
			s := make([]float64, k)
			for j := range teacher {
				s[j] = floats.Dot(teacher[j], x)
				if best < 0 || s[j] > s[best] {
					best, second = j, best
				} else if second < 0 || s[j] > s[second] {
					second = j
				}
			}
			// The first k samples are one per class, so every class appears.
			if s[best]-s[second] < 0.25 || len(ds.Y) < k && seen[best] {
				continue
			}
			seen[best] = true
			ds.X = append(ds.X, x...)
			ds.Y = append(ds.Y, float64(best))
		}
		if len(ds.Y) < n {
			continue
		}
		class := make([]int, n)
		for i, y := range ds.Y {
			class[i] = int(y)
		}
		sol, err := numerics.MultiClassSVM(mat.NewDense(n, d, ds.X), class, k)
		if try == 100 || err == nil && gapOK(sol) {
			return ds
		}
	}
}

// Run trains the linear K-class model on the cross-entropy (or, with
// poly, on the pairwise polynomially tailed loss of ZD-B's control) by GD
// under the case's scheme. The step: the softmax cross-entropy's Hessian in
// the scores is at most ½·I, so with Σq = 1 and unit inputs L ≤ ½ and
// η = classLR < 2/L; the pairwise loss's Hessian is Σ_{j≠c} ℓ″(m_j)
// (e_c − e_j)(e_c − e_j)ᵀ ≤ 2·K·I (ℓ″ ≤ 2, the star graph's Laplacian has
// largest eigenvalue K), so it runs with η = 1/(2K) < 2/L. The run is
// cached in r (as ClassCase.Run's): ZD-B's fault controls judge the clean
// runs of the claim's cases for their validity; each caller only reads it.
func (c MultiCase) Run(r *properties.Runner, poly bool, steps int) (*dataset.Dataset, *train.Trajectory, error) {
	key := fmt.Sprintf("%#v/%v/%d", c, poly, steps) // every field, exactly: shrunk cases differ in one
	data := c.Data()
	tr, err := properties.Cache[*train.Trajectory](r, "multiRuns").GetKept(key, func() (*train.Trajectory, error) {
		return c.run(data, poly, steps, nil)
	})
	return data, tr, err
}

// runControl is Run for a control's case (the pairwise polynomial tail, a
// planted fault), ended at the first milestone where check is violated
// (stopWhenViolated, as ClassCase.runControl).
func (c MultiCase) runControl(r *properties.Runner, poly bool, steps int, check judge) (*dataset.Dataset, *train.Trajectory, error) {
	var clean *train.Trajectory
	if c.Fault != "" {
		var err error
		if _, clean, err = c.WithFault("").(MultiCase).Run(r, poly, steps); err != nil {
			return nil, nil, err
		}
	}
	key := fmt.Sprintf("%#v/%v/%d/stopped", c, poly, steps)
	data := c.Data()
	tr, err := properties.Cache[*train.Trajectory](r, "multiRuns").GetKept(key, func() (*train.Trajectory, error) {
		return c.run(data, poly, steps, stopWhenViolated(data, check, clean))
	})
	return data, tr, err
}

// run trains the case's model on data (Run, uncached), ended where stop
// says (GRWRunUntil; nil: never).
func (c MultiCase) run(data *dataset.Dataset, poly bool, steps int, stop func(*train.Trajectory) bool) (*train.Trajectory, error) {
	w, err := cases.NewScheme(c.Scheme, c.Param, c.Seed, data.N)
	if err != nil {
		return nil, err
	}
	m, err := models.NewLinear(data.D, c.k())
	if err != nil {
		return nil, err
	}
	var l losses.Loss = losses.CrossEntropy{}
	if poly {
		l = cases.NewPairwisePoly()
	}
	f, err := faults.Lookup(c.Fault)
	if err != nil {
		return nil, err
	}
	obj, err := train.NewObjective(f.Model(m), f.Loss(l), data)
	if err != nil {
		return nil, err
	}
	f.Objective(obj)
	lr := ClassLR
	if poly {
		lr = 1 / float64(2*c.k())
	}
	gd, err := train.NewGD(lr)
	if err != nil {
		return nil, err
	}
	return GRWRunUntil(obj, f.Optimizer(gd), make([]float64, c.k()*data.D), w, steps, 1.5, stop)
}

// GenMulti generates multi-class cases with the given schemes.
func GenMulti(schemes []int) properties.Gen[MultiCase] {
	return properties.StructOf[MultiCase](map[string]gopter.Gen{
		"K":      gen.IntRange(3, 4),
		"N":      gen.IntRange(4, 8),
		"D":      gen.IntRange(2, 5),
		"Scheme": gen.OneConstOf(cases.Anys(schemes)...),
		"Param":  gen.Float64Range(0, 1),
		"Seed":   gen.UInt64(),
	})
}

// weightsWitnessed recomputes the weights of the multi-class run tr (poly:
// the pairwise polynomial loss of the control) under the case's scheme.
func (c MultiCase) weightsWitnessed(data *dataset.Dataset, tr *train.Trajectory, poly bool) (theorems.Verdict, bool) {
	w, err := cases.NewScheme(c.Scheme, c.Param, c.Seed, data.N)
	if err != nil {
		return properties.BuildFailed(err), false
	}
	m, err := models.NewLinear(data.D, c.k())
	if err != nil {
		return properties.BuildFailed(err), false
	}
	var l losses.Loss = losses.CrossEntropy{}
	if poly {
		l = cases.NewPairwisePoly()
	}
	return witnessWeights(data, tr, w, m, l)
}
