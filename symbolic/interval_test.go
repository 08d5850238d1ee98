package symbolic

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// testPoints are arguments over the whole range the losses use: both signs,
// magnitudes from 1e-300 to 1e4, the branch points of the primitives
// (±37, 18, 0.5, 700, 709), and random ones (seed 1).
func testPoints() []float64 {
	xs := []float64{0, 1e-300, 1e-20, 1e-8, 0.1, 0.5, 0.5413248546129181, math.Ln2, 1, 2, 18, 18.5, 36.9, 37, 37.1, 50, 100, 700, 708, 709.5, 1e3, 1e4}
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 40; i++ {
		xs = append(xs, math.Pow(10, -6+10*r.Float64()))
		xs = append(xs, 80*r.Float64()-40)
	}
	n := len(xs)
	for i := 0; i < n; i++ {
		xs = append(xs, -xs[i])
	}
	return xs
}

type unaryCase struct {
	name  string
	point func(float64) float64
	ival  func(Interval) Interval
	ref   func(float64) *big.Float
	ok    func(float64) bool // the domain
	ulps  float64            // the error bound the interval extension assumes
}

func unaryCases() []unaryCase {
	all := func(float64) bool { return true }
	pos := func(x float64) bool { return x > 0 }
	return []unaryCase{
		{"exp", math.Exp, IExp, func(x float64) *big.Float { return refExp(bf(x)) }, func(x float64) bool { return x < 709 }, libULPs},
		{"log", math.Log, ILog, func(x float64) *big.Float { return refLog(bf(x)) }, pos, libULPs},
		{"log1p", math.Log1p, ILog1p, func(x float64) *big.Float { return refLog1p(bf(x)) }, func(x float64) bool { return x > -1 }, libULPs},
		{"expm1", math.Expm1, IExpm1, func(x float64) *big.Float { return refExpm1(bf(x)) }, func(x float64) bool { return x < 709 }, libULPs},
		{"softplus", softplus, ISoftplus, refSoftplus, func(x float64) bool { return x < 1e4 }, compULPs},
		{"sigmoid", sigmoid, ISigmoid, refSigmoid, all, compULPs},
		{"logsoftplus", logSoftplus, ILogSoftplus, refLogSoftplus, func(x float64) bool { return x < 1e4 }, compULPs},
		{"dlogsoftplus", dLogSoftplus, IDLogSoftplus, refDLogSoftplus, func(x float64) bool { return x < 1e4 }, compULPs},
		{"logexpm1", logExpm1, ILogExpm1, refLogExpm1, func(x float64) bool { return x > 0 && x < 1e4 }, compULPs},
	}
}

// TestIntervalPrimitives: every float64 primitive is within its assumed
// error bound of a 200-bit reference (where its result is not near 0, where
// the absolute term applies), and every interval extension encloses the
// reference on point intervals and at the ends of short intervals.
func TestIntervalPrimitives(t *testing.T) {
	t.Parallel()
	for _, c := range unaryCases() {
		worst, worstAt := 0.0, 0.0
		for _, x := range testPoints() {
			if !c.ok(x) {
				continue
			}
			ref := c.ref(x)
			if r, _ := ref.Float64(); math.Abs(r) > 0.1 || c.name == "exp" || c.name == "log1p" || c.name == "expm1" || c.name == "sigmoid" || c.name == "dlogsoftplus" || c.name == "softplus" {
				if u := ulpsOff(c.point(x), ref); u > worst {
					worst, worstAt = u, x
				}
			}
			if iv := c.ival(Point(x)); !encloses(iv, ref) {
				t.Errorf("%s(%v) = %v does not enclose %v", c.name, x, iv, ref.Text('g', 20))
			}
			y := x + 1e-3*math.Max(math.Abs(x), 1e-3)
			if !c.ok(y) {
				continue
			}
			// The primitives are monotone: the values at the ends bound the rest.
			iv := c.ival(Interval{x, y})
			for _, r := range []*big.Float{ref, c.ref(y)} {
				if !encloses(iv, r) {
					t.Errorf("%s([%v, %v]) = %v does not enclose the value %v at an end", c.name, x, y, iv, r.Text('g', 20))
				}
			}
		}
		t.Logf("%-13s worst error %.2f ulps (at %g); the interval extension assumes %v", c.name, worst, worstAt, c.ulps)
		if worst > c.ulps {
			t.Errorf("%s: error %.2f ulps at %g exceeds the bound %v its interval extension assumes", c.name, worst, worstAt, c.ulps)
		}
	}
}

// TestIntervalBinaryPrimitives: lae and logaddexp, the same way.
func TestIntervalBinaryPrimitives(t *testing.T) {
	t.Parallel()
	xs := testPoints()
	for _, k := range []float64{0.5, 0.25, 0.999} {
		for _, x := range xs {
			if math.Abs(x) > 1e3 {
				continue
			}
			ref := refLAE(x, k)
			if r, _ := ref.Float64(); math.Abs(r) > 1e-300 {
				if u := ulpsOff(lae(x, k), ref); u > float64(laeULPs(k)) {
					t.Errorf("lae(%v, %v): %.1f ulps > %d", x, k, u, laeULPs(k))
				}
			}
			if iv := ILAE(Point(x), Point(k)); !encloses(iv, ref) {
				t.Errorf("lae(%v, %v) = %v does not enclose %v", x, k, iv, ref.Text('g', 20))
			}
		}
	}
	for i, a := range xs {
		b := xs[(i*7+3)%len(xs)]
		if math.Abs(a) > 1e3 || math.Abs(b) > 1e3 {
			continue
		}
		ref := refLogAddExp(a, b)
		if iv := ILogAddExp(Point(a), Point(b)); !encloses(iv, ref) {
			t.Errorf("logaddexp(%v, %v) = %v does not enclose %v", a, b, iv, ref.Text('g', 20))
		}
	}
}

// TestIntervalArithmetic: + − × ÷ and integer powers enclose the exact
// results (computed with math/big at a precision that holds them exactly,
// or at 300 bits for quotients), stay tight when exact, and move by one
// step when not.
func TestIntervalArithmetic(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(2, 2))
	exact := func(x float64) *big.Float { return new(big.Float).SetPrec(2200).SetFloat64(x) }
	vals := []float64{0, 1, -1, 0.1, 3, 1e-300, -1e300, 5e-324, math.MaxFloat64, 1.5, 2.5}
	for i := 0; i < 300; i++ {
		vals = append(vals, (r.Float64()-0.5)*math.Pow(10, float64(r.IntN(40)-20)))
	}
	for i, x := range vals {
		y := vals[(i*13+5)%len(vals)]
		X, Y := Point(x), Point(y)
		sum := new(big.Float).SetPrec(2200).Add(exact(x), exact(y))
		if s := IAdd(X, Y); !encloses(s, sum) || s.Hi != s.Lo && math.Nextafter(s.Lo, math.Inf(1)) != s.Hi {
			t.Errorf("%v + %v: %v (exact %v)", x, y, s, sum.Text('g', 30))
		}
		prod := new(big.Float).SetPrec(2200).Mul(exact(x), exact(y))
		if p := IMul(X, Y); !encloses(p, prod) {
			t.Errorf("%v × %v: %v (exact %v)", x, y, p, prod.Text('g', 30))
		}
		if y != 0 {
			quo := new(big.Float).SetPrec(300).Quo(exact(x), exact(y))
			if d := IDiv(X, Y); !encloses(d, quo) {
				t.Errorf("%v ÷ %v: %v (exact %v)", x, y, d, quo.Text('g', 30))
			}
		}
		if math.Abs(x) < 1e10 {
			for _, n := range []int64{2, 3, 7, -2} {
				pow := new(big.Float).SetPrec(2200).SetFloat64(1)
				for j := int64(0); j < n || j < -n; j++ {
					pow.Mul(pow, exact(x))
				}
				if n < 0 {
					if x == 0 {
						continue
					}
					pow = new(big.Float).SetPrec(300).Quo(new(big.Float).SetPrec(300).SetFloat64(1), pow)
				}
				if p := IPowInt(X, n); !encloses(p, pow) {
					t.Errorf("%v^%d: %v (exact %v)", x, n, p, pow.Text('g', 30))
				}
			}
		}
	}
	// Exact operations keep point intervals; 0 stays a tight bound.
	if s := IAdd(Point(1), Point(2)); s != Point(3) {
		t.Errorf("1 + 2 = %v", s)
	}
	if p := IMul(Point(3), Interval{0, 1}); p.Lo != 0 {
		t.Errorf("3·[0, 1] = %v: the lower bound 0 is exact", p)
	}
	if p := IPowInt(Interval{-2, 1}, 2); p != (Interval{0, 4}) {
		t.Errorf("[-2, 1]² = %v, want [0, 4]", p)
	}
	if d := IDiv(Point(1), Interval{-1, 1}); !(math.IsInf(d.Lo, -1) && math.IsInf(d.Hi, 1)) {
		t.Errorf("1/[-1, 1] = %v, want (−∞, ∞)", d)
	}
	if l := ILog(Interval{-2, -1}); !l.Unknown() {
		t.Errorf("log([-2, -1]) = %v, want unknown", l)
	}
}

// TestIntervalNegativeControl: the enclosure test has the power to see a
// missing outward rounding — exp on point intervals without widening misses
// the true value at some of the test points.
func TestIntervalNegativeControl(t *testing.T) {
	t.Parallel()
	misses := 0
	for _, x := range testPoints() {
		if x >= 709 || x == 0 {
			continue
		}
		naive := Interval{math.Exp(x), math.Exp(x)}
		if !encloses(naive, refExp(bf(x))) {
			misses++
		}
	}
	if misses == 0 {
		t.Fatal("the unwidened exp enclosed every reference: the enclosure test cannot see a missing outward rounding")
	}
	t.Logf("unwidened exp missed the reference at %d points", misses)
}
