package bigref

// Comparison helpers for tests against the references.
//
// Tolerances. A formula that is backward stable — exact for inputs perturbed
// by a few units of ε = 2⁻⁵² — has a forward error of a few ε·(|F| + S), where
// S = Σ_i |x_i·∂F/∂x_i| (Sensitivity, SensitivityN) is the change of F under a
// unit relative change of its inputs. S is large only where F is
// ill-conditioned (f(q) near its zero q = −0.54 for the logistic loss,
// LogExpm1 near x = log 2), so this scale does not excuse an inaccurate
// formula elsewhere: for f at q = 1e6, |F| + S = 2e6 and a budget of 4 units
// is a relative error of 8ε. Each test states its budget in units of
// ε·(|F| + S), counted from the roundings of the formula under test, and logs
// the worst error met. A result in the subnormal range carries absolute
// precision 2⁻¹⁰⁷⁴ only, so as many units of 2⁻¹⁰⁷⁴ are allowed on top.

import "math"

// Eps is the spacing of float64 at 1, 2⁻⁵².
const Eps = 0x1p-52

// Same reports whether a and b are the same value: both NaN, or ==.
func Same(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// Within reports whether got is within ulps units of ε·(|want| + sens) of
// want (plus ulps units of 2⁻¹⁰⁷⁴), or equal to it (infinities included).
func Within(got, want, sens, ulps float64) bool {
	if got == want {
		return true
	}
	if math.IsNaN(got) || math.IsInf(got, 0) || math.IsInf(want, 0) {
		return false
	}
	return math.Abs(got-want) <= ulps*(Eps*(math.Abs(want)+sens)+0x1p-1074)
}

// Units returns the error of got in units of ε·(|want| + sens).
func Units(got, want, sens float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / (Eps*(math.Abs(want)+sens) + 0x1p-1074)
}

// Worst keeps the largest error of a sweep, to log it: the margin between a
// budget and the error actually met shows how much slack the budget has.
type Worst struct {
	Units, At float64
}

// Add records an error of u units met at the point at.
func (w *Worst) Add(u, at float64) {
	if u > w.Units {
		w.Units, w.At = u, at
	}
}

// Around returns each x with its two float64 neighbours: the points where a
// formula switches branches.
func Around(xs ...float64) []float64 {
	var out []float64
	for _, x := range xs {
		out = append(out, math.Nextafter(x, math.Inf(-1)), x, math.Nextafter(x, math.Inf(1)))
	}
	return out
}

// Grid returns n points a, a+h, …, b together with extra points.
func Grid(a, b float64, n int, extra ...float64) []float64 {
	xs := make([]float64, 0, n+len(extra))
	for i := 0; i < n; i++ {
		xs = append(xs, a+(b-a)*float64(i)/float64(n-1))
	}
	return append(xs, extra...)
}

// LogGrid returns 10^e (pos) and −10^e (neg) for e = e0, e0+h, …, ≤ e1.
func LogGrid(e0, e1, h float64, pos, neg bool) []float64 {
	var xs []float64
	for e := e0; e <= e1+h/2; e += h {
		v := math.Pow(10, e)
		if pos {
			xs = append(xs, v)
		}
		if neg {
			xs = append(xs, -v)
		}
	}
	return xs
}
