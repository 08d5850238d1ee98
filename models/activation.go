package models

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/implicitbias/implicitbias/internal/linalg"
)

// ActKind names an activation function.
type ActKind int

const (
	// ReLU is max(z, 0); degree 1.
	ReLU ActKind = iota
	// LeakyReLU is max(z, αz), 0 < α < 1; degree 1.
	LeakyReLU
	// ReLUPow is max(z, 0)^k for an integer k ≥ 1; degree k, C^{k−1}.
	ReLUPow
	// Quadratic is z²; degree 2, smooth.
	Quadratic
	// Identity is z; degree 1 (a deep linear network).
	Identity
	// Tanh is tanh(z): not homogeneous (negative control).
	Tanh
	// Softplus is log(1 + e^z): not homogeneous (negative control).
	Softplus
	// GELU is z·Φ(z), Φ the standard normal distribution function (the
	// exact GELU, not its tanh approximation): not homogeneous; smooth, with
	// σ and σ′ Lipschitz (ZD Assumption 2).
	GELU
)

// Activation is an elementwise activation σ with its parameters.
type Activation struct {
	Kind  ActKind
	Power int     // k of ReLUPow
	Alpha float64 // slope of LeakyReLU for z < 0
}

// Activation values, for building models in Go.
var (
	ActReLU      = Activation{Kind: ReLU}
	ActQuadratic = Activation{Kind: Quadratic}
	ActIdentity  = Activation{Kind: Identity}
	ActTanh      = Activation{Kind: Tanh}
	ActSoftplus  = Activation{Kind: Softplus}
	ActGELU      = Activation{Kind: GELU}
)

// ActLeaky returns LeakyReLU with slope alpha.
func ActLeaky(alpha float64) Activation { return Activation{Kind: LeakyReLU, Alpha: alpha} }

// ActReLUPow returns ReLU^k.
func ActReLUPow(k int) Activation { return Activation{Kind: ReLUPow, Power: k} }

// ParseActivation reads the spec spelling of an activation: relu, lrelu
// (α = 0.1) or lrelu<α> (e.g. lrelu0.2), relu<k> (ReLU^k, e.g. relu3), quad,
// id, tanh, softplus, gelu.
func ParseActivation(s string) (Activation, error) {
	switch s {
	case "relu":
		return ActReLU, nil
	case "quad":
		return ActQuadratic, nil
	case "id", "linear":
		return ActIdentity, nil
	case "tanh":
		return ActTanh, nil
	case "softplus":
		return ActSoftplus, nil
	case "gelu":
		return ActGELU, nil
	case "lrelu":
		return ActLeaky(0.1), nil
	}
	if rest, ok := strings.CutPrefix(s, "lrelu"); ok {
		a, err := strconv.ParseFloat(rest, 64)
		if err != nil || !(a > 0 && a < 1) {
			return Activation{}, fmt.Errorf("activation %q: leaky slope must be a number in (0, 1)", s)
		}
		return ActLeaky(a), nil
	}
	if rest, ok := strings.CutPrefix(s, "relu"); ok {
		k, err := strconv.Atoi(rest)
		if err != nil || k < 1 || k > 8 {
			return Activation{}, fmt.Errorf("activation %q: ReLU power must be an integer in [1, 8]", s)
		}
		if k == 1 {
			return ActReLU, nil
		}
		return ActReLUPow(k), nil
	}
	return Activation{}, fmt.Errorf("unknown activation %q (want relu, lrelu[α], relu<k>, quad, id, tanh, softplus, gelu)", s)
}

// validate returns an error unless a is an activation ParseActivation can
// read back from a.String().
func (a Activation) validate() error {
	switch a.Kind {
	case ReLU, Quadratic, Identity, Tanh, Softplus, GELU:
		return nil
	case LeakyReLU:
		if a.Alpha > 0 && a.Alpha < 1 {
			return nil
		}
		return fmt.Errorf("activation %s: leaky slope must be in (0, 1)", a)
	case ReLUPow:
		if a.Power >= 1 && a.Power <= 8 {
			return nil
		}
		return fmt.Errorf("activation %s: ReLU power must be an integer in [1, 8]", a)
	}
	return fmt.Errorf("unknown activation kind %d", a.Kind)
}

// String returns the spec spelling of a.
func (a Activation) String() string {
	switch a.Kind {
	case ReLU:
		return "relu"
	case LeakyReLU:
		return "lrelu" + strconv.FormatFloat(a.Alpha, 'g', -1, 64)
	case ReLUPow:
		return "relu" + strconv.Itoa(a.Power)
	case Quadratic:
		return "quad"
	case Identity:
		return "id"
	case Tanh:
		return "tanh"
	case Softplus:
		return "softplus"
	case GELU:
		return "gelu"
	}
	return "unknown"
}

// Degree returns the homogeneity degree k of σ (σ(cz) = c^k σ(z) for c > 0)
// and false for a non-homogeneous σ.
func (a Activation) Degree() (float64, bool) {
	switch a.Kind {
	case ReLU, LeakyReLU, Identity:
		return 1, true
	case ReLUPow:
		return float64(a.Power), true
	case Quadratic:
		return 2, true
	}
	return 0, false
}

// kinked reports whether σ is not C² at 0, so that finite differences of
// the gradient are invalid across z = 0.
func (a Activation) kinked() bool {
	switch a.Kind {
	case ReLU, LeakyReLU:
		return true
	case ReLUPow:
		return a.Power <= 2
	}
	return false
}

// apply writes σ(z) into dst and, when dd is not nil, σ'(z) into dd.
func (a Activation) apply(dst, dd, z []float64) {
	switch a.Kind {
	case ReLU:
		// Branch-free (a mispredicted z > 0 per entry cost ~14% of a
		// width-128 MLP step); same values as z > 0 ? z : 0 and σ′ = [z > 0].
		linalg.ReLU(dst, dd, z)
	case LeakyReLU:
		for i, v := range z {
			if v > 0 {
				dst[i] = v
			} else {
				dst[i] = a.Alpha * v
			}
		}
		if dd != nil {
			for i, v := range z {
				if v > 0 {
					dd[i] = 1
				} else {
					dd[i] = a.Alpha
				}
			}
		}
	case ReLUPow:
		k := a.Power
		for i, v := range z {
			if v > 0 {
				p := ipow(v, k-1)
				if dd != nil {
					dd[i] = float64(k) * p
				}
				dst[i] = p * v
			} else {
				dst[i] = 0
				if dd != nil {
					dd[i] = 0
				}
			}
		}
	case Quadratic:
		for i, v := range z {
			dst[i] = v * v
			if dd != nil {
				dd[i] = 2 * v
			}
		}
	case Identity:
		copy(dst, z)
		if dd != nil {
			for i := range dd[:len(z)] {
				dd[i] = 1
			}
		}
	case Tanh:
		// Batched (linalg.Tanh: the exponentials vectorized, within 2 ulp;
		// math.Tanh per value was 17% of section F's CPU).
		linalg.Tanh(dst, z)
		if dd != nil {
			for i, t := range dst[:len(z)] {
				dd[i] = 1 - t*t
			}
		}
	case Softplus:
		for i, v := range z {
			// log(1+e^v), stable: max(v,0) + log1p(e^{−|v|}).
			dst[i] = math.Max(v, 0) + math.Log1p(math.Exp(-math.Abs(v)))
			if dd != nil {
				dd[i] = 1 / (1 + math.Exp(-v))
			}
		}
	case GELU:
		for i, v := range z {
			// σ = zΦ(z) with Φ(z) = ½erfc(−z/√2) (no cancellation for
			// z < 0); σ′ = Φ(z) + zφ(z), φ(z) = e^{−z²/2}/√(2π).
			p := 0.5 * math.Erfc(-v/math.Sqrt2)
			dst[i] = v * p
			if dd != nil {
				dd[i] = p + v*math.Exp(-0.5*v*v)/math.Sqrt(2*math.Pi)
			}
		}
	default:
		panic("models: unknown activation")
	}
}

// ipow returns v^k for a small integer k ≥ 0 by repeated multiplication.
func ipow(v float64, k int) float64 {
	p := 1.0
	for ; k > 0; k-- {
		p *= v
	}
	return p
}
