package limits

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/losses"
)

// TestTailOf: exp and logistic have the tail e^{−u} in closed form, an
// expr loss 2e^{−u} the constant 2, the polynomial tail none, and a loss
// the check does not know falls back to the exponential model.
func TestTailOf(t *testing.T) {
	for _, name := range []string{"exp", "logistic", "expr:log(1+exp(-q))"} {
		m := tailOf(lossNamed(name))
		assert.True(t, m.known && m.expTail, name)
		assert.InDelta(t, 1, m.c, 1e-9, name)
		assert.InDelta(t, math.Exp(-30), m.slope(30), 1e-9*math.Exp(-30), name)
		h := 1e-5 // ℓ″ = −d(−ℓ′)/du
		assert.InDelta(t, (m.slope(2-h)-m.slope(2+h))/(2*h), m.curv(2), 1e-8, name)
	}
	// The logistic loss's departure from e^{−u} is −e^{−2u}/(1 + e^{−u}).
	lg := tailOf(lossNamed("logistic"))
	assert.InDelta(t, -math.Exp(-10)/(1+math.Exp(10)), lg.tailDev(10), 1e-20)
	assert.InDelta(t, 0.25, lg.curv(0), 1e-15)
	e2 := tailOf(lossNamed("expr:2*exp(-q)"))
	assert.True(t, e2.expTail)
	assert.InDelta(t, 2, e2.c, 1e-9)
	assert.InDelta(t, 2*math.Exp(-3), e2.curv(3), 1e-8)
	poly := tailOf(lossNamed("poly"))
	assert.True(t, poly.known)
	assert.False(t, poly.expTail)
	assert.Equal(t, 0.0, poly.tailDev(5))
	assert.Equal(t, math.Exp(-5), poly.pull(5))
	unknown := tailOf(losses.NewBinary(losses.PolyTail{Alpha: 0.5}))
	assert.False(t, unknown.known)
	assert.Equal(t, math.Exp(-5), unknown.slope(5))
	assert.False(t, tailOf(nil).known)
	// A margin that stands in for another and says so (a planted fault)
	// gets the tail of the loss it declares, not its own values.
	faulty := tailOf(losses.NewBinary(doubledSlope{losses.Exponential{}}))
	assert.True(t, faulty.known && faulty.expTail)
	assert.Equal(t, math.Exp(-5), faulty.slope(5))
}

// doubledSlope doubles f′ of the margin it wraps, and declares it (Unwrap).
type doubledSlope struct{ losses.Margin }

func (d doubledSlope) FPrime(q float64) float64 { return 2 * d.Margin.FPrime(q) }
func (d doubledSlope) Unwrap() losses.Margin    { return d.Margin }

// lossNamed is the loss losses.ByName returns for name (a test's literal).
func lossNamed(name string) losses.Loss {
	l, err := losses.ByName(name)
	if err != nil {
		panic(err)
	}
	return l
}

// TestPullIntegral: for decaying pulls e^{−g s} the bound lies between the
// integral and its larger endpoint's rectangle; a pull with a bump between
// two records (log-curvature κ) is covered by the e^{κΔs²/8} allowance.
func TestPullIntegral(t *testing.T) {
	s := []float64{0, 0.4, 0.8, 1.2}
	for _, g := range []float64{0, 0.1, 1, 5} {
		p := make([][]float64, len(s))
		for j, sj := range s {
			p[j] = []float64{math.Exp(-g * sj)}
		}
		got := pullIntegral(s, p, 1)
		exact := 0.4
		if g > 0 {
			exact = (math.Exp(-g*0.4) - math.Exp(-g*0.8)) / g
		}
		assert.GreaterOrEqual(t, got, exact*(1-1e-12), "g = %v", g)
		assert.LessOrEqual(t, got, 0.4*math.Exp(-g*0.4)*(1+1e-12), "g = %v", g)
	}
	// log p = −(s − 0.6)²·κ/2: the maximum at 0.6, between the records.
	kappa := 3.0
	p := make([][]float64, len(s))
	for j, sj := range s {
		p[j] = []float64{math.Exp(-kappa / 2 * (sj - 0.6) * (sj - 0.6))}
	}
	exact := 0.0
	for i := range 4000 {
		x := 0.4 + (float64(i)+0.5)*0.4/4000
		exact += 0.4 / 4000 * math.Exp(-kappa/2*(x-0.6)*(x-0.6))
	}
	assert.GreaterOrEqual(t, pullIntegral(s, p, 1), exact)
}

// linearGDSteps runs n GD steps of size eta on Σ q_n e^{−⟨θ, z_n⟩} from θ.
// threeIndependentRows is the z of the segment tests: three independent
// rows in 4 dimensions (one direction off their span).
func threeIndependentRows() *mat.Dense {
	return mat.NewDense(3, 4, []float64{
		1, 0.2, 0, 0.1,
		0.3, 1, 0.2, 0,
		0.5, 0.4, 1, 0.3,
	})
}

func linearGDSteps(z *mat.Dense, q, theta []float64, eta float64, n int, fault func([]float64, []float64)) []float64 {
	th := append([]float64(nil), theta...)
	rows, d := z.Dims()
	v := make([]float64, d)
	for range n {
		for i := range v {
			v[i] = 0
		}
		for k := 0; k < rows; k++ {
			zk := z.RawRowView(k)
			floats.AddScaled(v, q[k]*math.Exp(-floats.Dot(zk, th)), zk)
		}
		floats.AddScaled(th, eta, v)
		if fault != nil {
			fault(th, v)
		}
	}
	return th
}

// TestStepCoefficientsAndFlow: a GD segment of 500 steps from step 1000
// lies within the coefficients' intervals (fixed weights) and GD's cone,
// and within ~10⁻³ of the first-order budget from the modified flow; the
// preconditioner θ₀ += 3ηV₀ breaks all three, ERM's steps (weights ignored)
// break the fixed-weights intervals and the flow but not the cone.
func TestStepCoefficientsAndFlow(t *testing.T) {
	z := threeIndependentRows()
	q := []float64{0.5, 0.3, 0.2}
	eta := 0.5
	theta0 := linearGDSteps(z, q, make([]float64, 4), eta, 1000, nil)
	s0, s1 := math.Log(eta*1000), math.Log(eta*1500)
	coef := newStepCoefficients(z, true)
	require.NotNil(t, coef)
	tail := tailOf(lossNamed("exp"))
	flow := newGDFlow(z, tail, eta)
	flow.q = q
	check := func(theta1 []float64) (weighted, cone, flowRatio float64) {
		round := roundingBudget(500, theta0, theta1, 3)
		cs, slack, ok := coef.solve(theta0, theta1, round)
		require.True(t, ok)
		weighted = coef.weighted(theta0, cs, slack, scaleBy(eta*500, q), tail.slope, round)
		cone = coef.cone(theta0, cs, slack, eta*500, 1, tail.slope, round)
		tmp := make([]float64, 4)
		disc := 500 * eta * eta / 2 * math.Max(flow.field(tmp, theta0), flow.field(tmp, theta1))
		pred, ierr := flow.predict(theta0, s0, s1, flowIntFrac*(disc+round))
		return weighted, cone, floats.Distance(pred, theta1, 2) / (disc + round + ierr)
	}
	w, c, f := check(linearGDSteps(z, q, theta0, eta, 500, nil))
	assert.Less(t, w, 1.0)
	assert.Less(t, c, 1.0)
	assert.Less(t, f, 1e-2)
	w, c, f = check(linearGDSteps(z, q, theta0, eta, 500, func(th, v []float64) { th[0] += 3 * eta * v[0] }))
	assert.Greater(t, w, 1.0)
	assert.Greater(t, c, 1.0)
	assert.Greater(t, f, 1.0)
	w, c, f = check(linearGDSteps(z, []float64{1. / 3, 1. / 3, 1. / 3}, theta0, eta, 500, nil))
	assert.Greater(t, w, 1.0)
	assert.Less(t, c, 1.0)
	assert.Greater(t, f, 1.0)
}
