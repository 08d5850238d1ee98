package losses

// Kind says what a loss compares a model's scores with.
type Kind int

const (
	// Binary losses take one score s and a label y ∈ {−1, +1}; the margin is q = y·s.
	Binary Kind = iota
	// MultiClass losses take K ≥ 2 scores and a class index y ∈ {0, …, K−1}; the
	// margin is q = s_y − max_{j≠y} s_j (LL App. F).
	MultiClass
	// Regression losses take one score (the prediction) and a real target.
	Regression
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case Binary:
		return "binary"
	case MultiClass:
		return "multi-class"
	case Regression:
		return "regression"
	}
	return "unknown"
}

// Loss is the per-sample loss ℓ(s; y) of a score vector s against a target y
// as the training objective sees it: in log domain.
type Loss interface {
	// Name is the loss's short name, as the CLI spells it.
	Name() string
	// Kind says how targets are read and margins formed.
	Kind() Kind
	// LogLoss returns log ℓ(s; y); −Inf when ℓ = 0 (an exact fit of a
	// regression loss).
	LogLoss(s []float64, y float64) float64
	// ScaledGrad writes e^{−shift}·∂ℓ/∂s into dst (len(dst) = len(s)),
	// computed in log domain so that it neither underflows when ℓ is tiny nor
	// overflows when shift is very negative, as long as the result is finite.
	ScaledGrad(dst, s []float64, y float64, shift float64)
}

// Margin is a loss of the margin q of the form ℓ(q) = e^{−f(q)} (LL App. A.1).
//
// Its methods are pure functions of their argument; each documents its
// special cases.
type Margin interface {
	// Name is the loss's short name.
	Name() string
	// LogLoss returns log ℓ(q) = −f(q).
	LogLoss(q float64) float64
	// DLogLoss returns d log ℓ/dq = ℓ′(q)/ℓ(q) = −f′(q).
	DLogLoss(q float64) float64
	// F returns f(q) = −log ℓ(q).
	F(q float64) float64
	// FPrime returns f′(q).
	FPrime(q float64) float64
	// G returns g(u) = f⁻¹(u), the inverse of f on [b_f, ∞) (and wherever
	// else f is invertible).
	G(u float64) float64
	// GPrime returns g′(u) = 1/f′(g(u)).
	GPrime(u float64) float64
	// BF returns b_f of (B3.3): f′(q)q is non-decreasing on (b_f, ∞). The
	// separability threshold of (B4) is ℓ(b_f) = e^{−f(b_f)}.
	BF() float64
}

// LogThreshold returns log ℓ(b_f) = −f(b_f), the log of the loss below which
// the data are separated (LL (B4)): 𝓛 < ℓ(b_f) implies q_n > b_f ≥ 0 for all n.
func LogThreshold(m Margin) float64 { return -m.F(m.BF()) }

// Kinked is implemented by margin losses whose f is not C¹ everywhere; Kinks
// lists the margins where it is not. Finite-difference checks must not let
// a stencil cross one.
type Kinked interface {
	Kinks() []float64
}
