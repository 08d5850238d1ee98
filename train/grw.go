package train

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/implicitbias/implicitbias/dataset"
)

// Generalized reweighting (GRW, ZD §3): at step t the objective is
//
//	Σ_i q_i^{(t)} ℓ_i(θ),   q^{(t)} on the simplex (q_i ≥ 0, Σ_i q_i = 1),
//
// with weights that a scheme sets from the per-sample losses at θ_t. Static
// schemes (ERM, importance weighting, fixed weights) ignore the losses;
// dynamic ones (Group DRO, χ²- and CVaR-DRO, schedules) do not.

// Weighting is a GRW scheme. Run calls Start once, then at every step t
// evaluates the per-sample losses at θ_t, calls Update, and steps on the
// objective reweighted with q^{(t)} (Objective.Reweight).
type Weighting interface {
	// Scheme describes the scheme (what the run's Trajectory.Scheme says
	// reweighted it).
	Scheme() Scheme
	// Start prepares a run on d (sizes, groups) and resets any state.
	Start(d *dataset.Dataset) error
	// Update writes q^{(t)} into q (len N) from logLoss[i] = log ℓ_i(θ_t),
	// the unweighted per-sample log-losses. It must not allocate.
	Update(t int, logLoss, q []float64) error
}

// Grouping assigns every sample to one of K non-empty groups 0…K−1.
type Grouping struct {
	Of   []int // group of each sample
	Size []int // n_k
}

// K returns the number of groups.
func (g Grouping) K() int { return len(g.Size) }

// NewGrouping renumbers arbitrary group labels (any integers) to 0…K−1 in
// increasing label order.
func NewGrouping(labels []int) (Grouping, error) {
	if len(labels) == 0 {
		return Grouping{}, fmt.Errorf("train: no group labels")
	}
	set := map[int]bool{}
	for _, l := range labels {
		set[l] = true
	}
	keys := make([]int, 0, len(set))
	for l := range set {
		keys = append(keys, l)
	}
	sort.Ints(keys)
	index := map[int]int{}
	for i, l := range keys {
		index[l] = i
	}
	g := Grouping{Of: make([]int, len(labels)), Size: make([]int, len(keys))}
	for i, l := range labels {
		g.Of[i] = index[l]
		g.Size[g.Of[i]]++
	}
	return g, nil
}

// GroupsOf returns the grouping of d: its group column d.Groups when set,
// otherwise the label-derived grouping (one group per distinct target
// value, in increasing order: for ±1 labels, group 0 is y = −1).
func GroupsOf(d *dataset.Dataset) (Grouping, error) {
	if d.Groups != nil {
		if len(d.Groups) != d.N {
			return Grouping{}, fmt.Errorf("train: %d group labels for %d samples", len(d.Groups), d.N)
		}
		return NewGrouping(d.Groups)
	}
	vals := append([]float64(nil), d.Y...)
	sort.Float64s(vals)
	index := map[float64]int{}
	for _, v := range vals {
		if _, ok := index[v]; !ok {
			index[v] = len(index)
		}
	}
	labels := make([]int, d.N)
	for i, v := range d.Y {
		labels[i] = index[v]
	}
	return NewGrouping(labels)
}

// groupsFor returns the grouping given explicitly (labels) or, for nil, that
// of the data.
func groupsFor(labels []int, d *dataset.Dataset) (Grouping, error) {
	if labels == nil {
		return GroupsOf(d)
	}
	if len(labels) != d.N {
		return Grouping{}, fmt.Errorf("train: %d group labels for %d samples", len(labels), d.N)
	}
	return NewGrouping(labels)
}

// ERM is empirical risk minimization, q_i = 1/n.
type ERM struct{ n int }

// Scheme returns ERMScheme.
func (*ERM) Scheme() Scheme { return Scheme{Kind: ERMScheme} }

// Start records n.
func (e *ERM) Start(d *dataset.Dataset) error { e.n = d.N; return nil }

// Update sets q_i = 1/n.
func (e *ERM) Update(_ int, _, q []float64) error {
	for i := range q {
		q[i] = 1 / float64(e.n)
	}
	return nil
}

// Static is a static GRW with given weights W_i ≥ 0 (not all 0), used as
// q = W/ΣW.
type Static struct {
	W []float64
	q []float64
}

// Scheme returns StaticScheme.
func (*Static) Scheme() Scheme { return Scheme{Kind: StaticScheme} }

// Start checks and normalizes the weights.
func (s *Static) Start(d *dataset.Dataset) error {
	q, err := NormalizeWeights(s.W)
	if err != nil {
		return err
	}
	if len(q) != d.N {
		return fmt.Errorf("train: %d static weights for %d samples", len(q), d.N)
	}
	s.q = q
	return nil
}

// Update copies the normalized weights.
func (s *Static) Update(_ int, _, q []float64) error {
	copy(q, s.q)
	return nil
}

// NormalizeWeights returns w/Σw after checking that every w_i is finite and
// ≥ 0 and that Σw > 0.
func NormalizeWeights(w []float64) ([]float64, error) {
	if len(w) == 0 {
		return nil, fmt.Errorf("train: no weights")
	}
	var sum float64
	for i, v := range w {
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("train: weight %d is %v; weights must be finite and ≥ 0", i+1, v)
		}
		sum += v
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		return nil, fmt.Errorf("train: weights sum to %v; need a finite positive sum", sum)
	}
	q := make([]float64, len(w))
	for i, v := range w {
		q[i] = v / sum
	}
	return q, nil
}

// ImportanceWeighting is static IW (ZD §3): q_i = 1/(K n_k) for sample i in
// group k of K, so that every group has total weight 1/K. Groups nil means
// the data's grouping (GroupsOf).
type ImportanceWeighting struct {
	Groups []int
	q      []float64
}

// Scheme returns ImportanceScheme.
func (*ImportanceWeighting) Scheme() Scheme { return Scheme{Kind: ImportanceScheme} }

// Start computes the weights from the group sizes.
func (w *ImportanceWeighting) Start(d *dataset.Dataset) error {
	g, err := groupsFor(w.Groups, d)
	if err != nil {
		return err
	}
	w.q = make([]float64, d.N)
	for i, k := range g.Of {
		w.q[i] = 1 / (float64(g.K()) * float64(g.Size[k]))
	}
	return nil
}

// Update copies the weights.
func (w *ImportanceWeighting) Update(_ int, _, q []float64) error {
	copy(q, w.q)
	return nil
}

// Schedule is a dynamic GRW whose weights are a given function of the step
// alone (the random schedules of the property tests, ZD Assumptions 1 and
// 3). At writes unnormalized weights ≥ 0 into q; Update normalizes them.
type Schedule struct {
	// Kind says which assumption the schedule is meant to meet (ScheduleA1,
	// ScheduleA3, VanishingSchedule); NoScheme reads as ScheduleScheme.
	Kind SchemeKind
	At   func(t int, q []float64)
}

// Scheme returns the schedule's kind (ScheduleScheme when none is set).
func (s *Schedule) Scheme() Scheme {
	if s.Kind == NoScheme {
		return Scheme{Kind: ScheduleScheme}
	}
	return Scheme{Kind: s.Kind}
}

// Start checks that At is set.
func (s *Schedule) Start(*dataset.Dataset) error {
	if s.At == nil {
		return fmt.Errorf("train: schedule %s has no weight function", s.Scheme())
	}
	return nil
}

// Update sets q = At(t)/ΣAt(t).
func (s *Schedule) Update(t int, _, q []float64) error {
	s.At(t, q)
	var sum float64
	for i, v := range q {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("train: schedule %s step %d: weight %d is %v", s.Scheme(), t, i+1, v)
		}
		sum += v
	}
	if !(sum > 0) {
		return fmt.Errorf("train: schedule %s step %d: weights sum to %v", s.Scheme(), t, sum)
	}
	for i := range q {
		q[i] /= sum
	}
	return nil
}

// Default parameters of the dynamic schemes. ZD gives no value for ν;
// Sagawa et al. (2020a) use step sizes 0.01–0.1 for the group weights.
const (
	DefaultGroupDRONu   = 0.1
	DefaultChiSquareRho = 1.0
	DefaultCVaRAlpha    = 0.5
)

// ErrUnknownWeighting reports a scheme name ParseWeighting does not know.
var ErrUnknownWeighting = errors.New("unknown weighting")

// WeightingNames lists the scheme names ParseWeighting accepts.
var WeightingNames = []string{"erm", "iw", "gdro[:ν]", "chi2[:ρ]", "cvar[:α]"}

// ParseWeighting returns the scheme named by spec: erm, iw, gdro[:ν],
// chi2[:ρ] or cvar[:α] (defaults DefaultGroupDRONu, DefaultChiSquareRho,
// DefaultCVaRAlpha). groups (nil: the data's) are used by iw and gdro.
func ParseWeighting(spec string, groups []int) (Weighting, error) {
	name, arg, hasArg := strings.Cut(spec, ":")
	var param float64
	if hasArg {
		v, err := strconv.ParseFloat(arg, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("weighting %q: parameter %q is not a finite number", spec, arg)
		}
		param = v
	}
	switch name {
	case "erm", "iw":
		if hasArg {
			return nil, fmt.Errorf("weighting %q takes no parameter", name)
		}
		if name == "erm" {
			return &ERM{}, nil
		}
		return &ImportanceWeighting{Groups: groups}, nil
	case "gdro":
		if !hasArg {
			param = DefaultGroupDRONu
		}
		return NewGroupDRO(param, groups)
	case "chi2":
		if !hasArg {
			param = DefaultChiSquareRho
		}
		return NewChiSquareDRO(param)
	case "cvar":
		if !hasArg {
			param = DefaultCVaRAlpha
		}
		return NewCVaRDRO(param)
	}
	return nil, fmt.Errorf("%w %q (want one of %s)", ErrUnknownWeighting, spec, strings.Join(WeightingNames, ", "))
}

// Resetter is implemented by optimizers with state (momentum, Adam's
// moments); Run calls Reset with the number of parameters before the first
// step, so that an optimizer can be reused across runs.
type Resetter interface {
	Reset(numParams int)
}

// startRun resets a stateful optimizer and starts the GRW scheme of cfg,
// returning the buffer of its weights (nil without a scheme).
func startRun(obj *Objective, opt Optimizer, p int, cfg *Config, tr *Trajectory) ([]float64, error) {
	if r, ok := opt.(Resetter); ok {
		r.Reset(p)
	}
	if cfg.Weighting == nil {
		return nil, nil
	}
	if err := cfg.Weighting.Start(obj.Data); err != nil {
		return nil, err
	}
	tr.Scheme = cfg.Weighting.Scheme()
	return make([]float64, obj.Data.N), nil
}

// reweightStep sets q = q^{(t)} from the per-sample losses of the
// evaluation just made and reweights the objective with it.
func reweightStep(obj *Objective, w Weighting, t int, q []float64, grad bool) (*Eval, error) {
	if err := w.Update(t, obj.ev.LogSample, q); err != nil {
		return nil, err
	}
	return obj.Reweight(q, grad)
}
