package check

import (
	"fmt"
	"strings"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/weightwitness"
	"github.com/implicitbias/implicitbias/train"
)

// The scheme a run states (issue 32): a file whose `weights` are a GRW
// scheme's may name it in a `scheme` array, and check then recomputes the
// weights from the scheme's definition before ZD-T7 reads them
// (weightwitness.RecordedWeights), so that a run whose reweighting silently
// became uniform, and whose records say uniform, is not judged as an honest
// ERM run. The schemes whose weights do not depend on the losses are
// recomputed (schemeSpecs); CVaR-DRO, whose weights follow the losses the
// run computed with its own roundings, is checked against its optimality
// conditions with the losses' error bars instead (droweights.go,
// droSpecs). χ²-DRO (pinned by a radius a run's solver holds to its own
// tolerance) and Group DRO (a state accumulating every step's losses) are
// not witnessed yet.

// schemeSpecs are the `scheme` values check witnesses: names of
// train.ParseWeighting, the importance weighting's groups the labels
// (train.GroupsOf).
var schemeSpecs = []string{"erm", "iw"}

// droSpecs are the loss-following schemes check witnesses by their
// optimality conditions, with their parameter as train.ParseWeighting
// reads it ("cvar:0.2"; the default without one).
var droSpecs = []string{"cvar"}

// readScheme reads the optional `scheme` array: one string naming the GRW
// scheme of the run's `weights` (schemeSpecs).
func readScheme(arrays map[string]*array, t *Trajectory) error {
	a, ok := arrays["scheme"]
	if !ok {
		return nil
	}
	if a.s == nil || len(a.shape) != 0 {
		return fmt.Errorf("scheme has dtype %s and shape %s, want one string: %v", a.dtype, a.shapeString(), schemeSpecs)
	}
	if t.Weights == nil {
		return fmt.Errorf("scheme %q without weights: the scheme names what the recorded weights are", a.s[0])
	}
	if _, err := schemeOf(a.s[0]); err != nil {
		return err
	}
	t.Scheme = a.s[0]
	return nil
}

// schemeOf returns a fresh instance of the scheme spec names.
func schemeOf(spec string) (train.Weighting, error) {
	for _, s := range schemeSpecs {
		if s == spec {
			return train.ParseWeighting(spec, nil)
		}
	}
	name, _, _ := strings.Cut(spec, ":")
	for _, s := range droSpecs {
		if s == name {
			return train.ParseWeighting(spec, nil)
		}
	}
	return nil, fmt.Errorf("scheme %q: check witnesses the weights of %v (the labels as the groups of iw) and %v (with an optional :α); χ²-DRO (chi2), whose radius a run's solver holds to its own tolerance, and Group DRO (gdro), whose state accumulates every step's losses, are not witnessed yet (docs/check.md)", spec, schemeSpecs, droSpecs)
}

// schemeRounding returns the relative allowance for weights normalized
// here from a run's own numbers: the run's w_i within two roundings of its
// definition (a count's reciprocal, a product of counts), their sum of n
// positive terms within (n − 1)ε relatively (recursive summation, Higham,
// Accuracy and Stability of Numerical Algorithms, §4.2), the quotient one
// more: (n + 2)ε, added to the witness's own bound.
func schemeRounding(n int) float64 { return float64(n+2) * 0x1p-52 }

// schemeWitness recomputes the weights of the scheme the file states at
// every record and compares them with the recorded ones, each record's
// normalized to sum 1 (a run may record raw weights, mean 1 or sum 1: the
// scheme's q sums to 1). ok is true when the file states no scheme or the
// weights are the scheme's; otherwise v is violated (not the scheme's) or
// inconclusive (not computable).
func (r *recorded) schemeWitness() (v theorems.Verdict, ok bool) {
	if r.t.Scheme == "" {
		return theorems.Verdict{}, true
	}
	scheme, err := schemeOf(r.t.Scheme)
	if err != nil {
		return theorems.Undecided("weights not witnessed: %v", err), false
	}
	switch scheme.(type) {
	case *train.CVaRDRO:
		return r.droWitness(scheme)
	}
	tr := &train.Trajectory{Records: make([]train.Record, len(r.t.Theta))}
	for i, th := range r.t.Theta {
		q, err := train.NormalizeWeights(r.t.Weights[i])
		if err != nil {
			return theorems.Undecided("weights not witnessed: record %d: %v", i, err), false
		}
		tr.Records[i] = train.Record{Step: r.t.Steps[i], Theta: th, Weights: q}
	}
	var theta0 []float64
	if r.t.Steps[0] == 0 {
		theta0 = r.t.Theta[0]
	}
	d := r.obj.Data
	return weightwitness.RecordedWeights(tr, weightwitness.WeightReplay{
		Scheme: scheme, Data: d, Model: r.obj.Model, Loss: r.obj.Loss, Theta0: theta0,
		Rounding: schemeRounding(d.N),
	})
}
