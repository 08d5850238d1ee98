package limits

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/losses"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// simplexData is the symmetric K-class problem x_n = e_n, sample n in
// class n (K = D = 3). Column n of Θ (the class scores of x_n) meets the
// constraints θ_{n,n} − θ_{j,n} ≥ 1 alone, so the multi-class SVM is
// θ_{n,n} = 2/3, θ_{j,n} = −1/3 (‖Θ̂‖² = 2), every constraint active with
// α_{n,j} = 1/3. Under GD on the cross-entropy with weights q the margin
// m_n = θ_{n,n} − θ_{j,n} of column n obeys dm/dT = 3q_nπ ≈ 3q_n e^{−m},
// so m_n = log T + log(3q_n) + o(1): the residual's limit is column n of Θ̂
// times log(3q_n), the balance q_n e^{−⟨c, a_{n,j}⟩} = α_{n,j} in closed form.
func simplexData() (*mat.Dense, *mat.Dense) {
	x := mat.NewDense(3, 3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1})
	a, err := numerics.MultiClassConstraints(x, []int{0, 1, 2}, 3)
	if err != nil {
		panic(err)
	}
	return x, a
}

// simplexLimit is the closed-form limit of Θ − Θ̂ log T under q.
func simplexLimit(q []float64) []float64 {
	c := make([]float64, 9)
	for n := range 3 {
		s := math.Log(3 * q[n])
		for k := range 3 {
			v := -1.0 / 3
			if k == n {
				v = 2.0 / 3
			}
			c[k*3+n] = s * v // Θ stored class after class: θ_{k,n} at k·D + n
		}
	}
	return c
}

func TestMultiClassLimitClosedForm(t *testing.T) {
	_, a := simplexData()
	rows, _ := a.Dims()
	sol, err := numerics.HardMarginSVM(a, Ones(rows), nil)
	require.NoError(t, err)
	assert.InDelta(t, 2, sol.NormSq, 1e-9)
	for _, al := range sol.Alpha {
		assert.InDelta(t, 1.0/3, al, 1e-9)
	}
	for _, q := range [][]float64{{1, 1, 1}, {1, 2, 4}, {0.3, 5, 1}} {
		qr := make([]float64, rows)
		for r := range qr {
			qr[r] = q[r/2]
		}
		c, err := ResidualLimit(a, qr, sol.W, make([]float64, 9))
		require.NoError(t, err)
		assert.InDeltaSlice(t, simplexLimit(q), c, 1e-9, "q = %v", q)
	}
}

// ceGD runs GD with step eta on the q-weighted cross-entropy of the linear
// model on the rows of a (K − 1 = per rows a sample) for steps steps from
// 0, recording θ at steps growing by 1.5×; precond adds k times the step
// of coordinate 0 (issue 18's stray preconditioner); applied, when set,
// are the weights GD uses while the records keep q (weights ignored).
func ceGD(a *mat.Dense, per int, q, applied []float64, eta float64, steps int, k float64) *train.Trajectory {
	_, d := a.Dims()
	if applied == nil {
		applied = q
	}
	f := newCEFlow(a, per, eta)
	f.q = applied
	theta := make([]float64, d)
	tr := &train.Trajectory{Degree: 1, Loss: losses.CrossEntropy{}, Step: train.StepRule{Kind: train.GDStep, LR: math.NaN()}}
	logT := math.Inf(-1)
	next := 1
	for t := 0; t <= steps; t++ {
		if t == next || t == steps {
			tr.Records = append(tr.Records, train.Record{Step: t, LogT: logT, Theta: append([]float64(nil), theta...), Weights: append([]float64(nil), q...)})
			next = int(math.Ceil(1.5 * float64(next)))
		}
		if t == steps {
			break
		}
		f.velocity(theta)
		floats.AddScaled(theta, eta, f.v)
		theta[0] += k * eta * f.v[0]
		logT = numerics.LogAddExp(logT, math.Log(eta))
	}
	tr.Theta = theta
	return tr
}

// TestMultiClassLimitRuns: exact GD on the simplex data holds; GD that
// ignores the weights it records, and GD with a stray preconditioner, are
// violated.
func TestMultiClassLimitRuns(t *testing.T) {
	_, a := simplexData()
	rows, _ := a.Dims()
	sol, err := numerics.HardMarginSVM(a, Ones(rows), nil)
	require.NoError(t, err)
	q := []float64{0.2, 0.5, 0.3}
	const steps = 20000
	cases := []struct {
		name    string
		applied []float64
		k       float64
		want    theorems.Status
	}{
		{"correct", nil, 0, theorems.Holds},
		{"weights ignored", []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, 0, theorems.Violated},
		{"preconditioner", nil, 3, theorems.Violated},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := ceGD(a, 2, q, c.applied, 0.5, steps, c.k)
			v := MultiClassLimit(sol, a, 2, tr, "")
			t.Logf("%v %.3g", v.Status, v.Statistic)
			assert.Equal(t, c.want, v.Status, "%v %.3g: %s", v.Status, v.Statistic, v.Detail)
			if c.want == theorems.Holds {
				// The residual is near its closed-form limit.
				last := tr.Records[len(tr.Records)-1]
				r := append([]float64(nil), last.Theta...)
				floats.AddScaled(r, -last.LogT, sol.W)
				assert.Less(t, floats.Distance(r, simplexLimit(q), 2), 0.01)
			}
		})
	}
}

// TestCEFlowDerivatives: V is −∇𝓛 and the correction ∇²𝓛·V matches the
// central difference of ∇𝓛 along V.
func TestCEFlowDerivatives(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{1, 0.2, -0.3, 1, -1, -0.5, 0.4, -1})
	a, err := numerics.MultiClassConstraints(x, []int{0, 1, 2, 0}, 3)
	require.NoError(t, err)
	f := newCEFlow(a, 2, 0.5)
	f.q = []float64{0.3, 1, 0.7, 2}
	theta := []float64{0.3, -0.2, 0.5, 0.1, -0.4, 0.6}
	loss := func(th []float64) float64 {
		var s float64
		for n := range 4 {
			e := []float64{0}
			for j := range 2 {
				e = append(e, -floats.Dot(a.RawRowView(2*n+j), th))
			}
			s += f.q[n] * numerics.LogSumExp(e)
		}
		return s
	}
	grad := func(th []float64) []float64 {
		g := make([]float64, len(th))
		for i := range th {
			const h = 1e-6
			p, m := append([]float64(nil), th...), append([]float64(nil), th...)
			p[i] += h
			m[i] -= h
			g[i] = (loss(p) - loss(m)) / (2 * h)
		}
		return g
	}
	dst := make([]float64, 6)
	hvNorm := f.field(dst, theta)
	v := append([]float64(nil), f.v...)
	g := grad(theta)
	floats.Scale(-1, g)
	assert.InDeltaSlice(t, g, v, 1e-8)
	// ∇²𝓛·V by a central difference of −V along V.
	const h = 1e-4
	p, m := append([]float64(nil), theta...), append([]float64(nil), theta...)
	floats.AddScaled(p, h, v)
	floats.AddScaled(m, -h, v)
	f.velocity(p)
	vp := append([]float64(nil), f.v...)
	f.velocity(m)
	hv := make([]float64, 6)
	floats.SubTo(hv, f.v, vp)
	floats.Scale(1/(2*h), hv)
	assert.InDelta(t, floats.Norm(hv, 2), hvNorm, 1e-7)
	want := append([]float64(nil), v...)
	floats.AddScaled(want, 0.25, hv)
	assert.InDeltaSlice(t, want, dst, 1e-7)
}
