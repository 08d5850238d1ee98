package check

import (
	"math"

	"github.com/implicitbias/implicitbias/theorems/kkt"
	"gonum.org/v1/gonum/mat"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// TestPremiseFromSparseRecords: an engine run recorded every 50 steps (no
// two records consecutive) gets the gradient-descent premise decided by
// replaying each gap (gapreplay.go), and LL-4.1 decided with it; the
// negative controls — heavy-ball momentum, and the same gradient-descent run
// declaring an lr 0.1% off — are violated. Where the bound comes from and
// its false-alarm rate: gapreplay.go (a rounding bound times the measured
// amplification; the correct run lands within a few percent of it).
func TestPremiseFromSparseRecords(t *testing.T) {
	data := twoClasses(5, 5, 10, 3, 0.5, 0.1)
	model, obj := logisticRun(t, "mlp:relu:2x6", data)
	run := func(opt string) *Trajectory {
		theta := make([]float64, model.NumParams())
		model.Init(rand.New(rand.NewPCG(2, 0)), theta)
		tr, err := train.Run(obj, optimizer(t, opt, 0.05), theta, train.Config{Steps: 1500, KeepTheta: true})
		if err != nil {
			t.Fatal(err)
		}
		ft, err := FromTrain(tr, model, data)
		if err != nil {
			t.Fatal(err)
		}
		sparse := *ft
		sparse.Steps, sparse.LR, sparse.Theta = nil, nil, nil
		for i, s := range ft.Steps {
			if s%50 == 0 {
				sparse.Steps = append(sparse.Steps, s)
				sparse.LR = append(sparse.LR, ft.LR[i])
				sparse.Theta = append(sparse.Theta, ft.Theta[i])
			}
		}
		return &sparse
	}
	check := func(ft *Trajectory) *Report {
		rep, err := Check(ft, model, data, Options{Name: "run", Only: []string{theorems.LL_4_1}})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	gd := run("gd")
	rep := check(gd)
	if rep.Premise.Status != theorems.Holds || !strings.Contains(rep.Premise.Detail, "gaps") {
		t.Fatalf("gradient descent recorded every 50 steps: premise %s", rep.Premise)
	}
	t.Logf("gd: %s", rep.Premise)
	if s := statuses(rep)[theorems.LL_4_1]; s != theorems.Holds {
		t.Fatalf("LL-4.1 %s, want holds", s)
	}
	wrongLR := *gd
	wrongLR.LR = append([]float64(nil), gd.LR...)
	for i := range wrongLR.LR {
		wrongLR.LR[i] *= 1.001
	}
	for name, ft := range map[string]*Trajectory{"momentum": run("momentum"), "lr 0.1% off": &wrongLR} {
		rep := check(ft)
		if rep.Premise.Status != theorems.Violated {
			t.Errorf("%s: premise %s, want violated", name, rep.Premise)
		}
		t.Logf("%s: %.3g", name, rep.Premise.Statistic)
	}
}

// TestGapAmplification: a gap whose map amplifies one coordinate of P and
// damps the others (θ ↦ Aθ, A symmetric: diagonal 0.9 but 1.08 at one
// coordinate, coupled by 0.01 to its neighbours; 40 steps). The earlier
// estimate, one direction (1, …, 1)/√P, sees about 1/√P of the amplified
// coordinate and is several times too small, which would set the replay's
// bound below a correct run's difference (a false alarm); the power
// iteration finds σ₁(A⁴⁰) = max|λ(A)|⁴⁰, computed here by an eigen
// decomposition, as a lower bound within its 1% stopping rule (and above
// it by no more than the quotients' rounding), the same bits with every θ_s
// kept or recomputed from checkpoints.
func TestGapAmplification(t *testing.T) {
	const (
		P, k, hot = 60, 40, 7
		u         = 0x1p-53
	)
	a := mat.NewSymDense(P, nil)
	for i := range P {
		a.SetSym(i, i, 0.9)
		if i+1 < P {
			a.SetSym(i, i+1, 0.01)
		}
	}
	a.SetSym(hot, hot, 1.08)
	step := func(th []float64) (float64, error) {
		x := mat.NewVecDense(P, append([]float64(nil), th...))
		y := mat.NewVecDense(P, th)
		y.MulVec(a, x)
		return kkt.StepIdentityUlps * u * (mat.Norm(x, 2) + mat.Norm(y, 2)), nil
	}
	var eig mat.EigenSym
	if !eig.Factorize(a, false) {
		t.Fatal("eigen decomposition failed")
	}
	top := 0.0
	for _, l := range eig.Values(nil) {
		top = math.Max(top, math.Abs(l))
	}
	want := math.Pow(top, k)
	ones := mat.NewVecDense(P, nil)
	for i := range P {
		ones.SetVec(i, 1/math.Sqrt(P))
	}
	for range k {
		ones.MulVec(a, mat.VecDenseCopyOf(ones))
	}
	oneDir := mat.Norm(ones, 2)
	th0 := make([]float64, P)
	for i := range th0 {
		th0[i] = 1 + float64(i%5)
	}
	var got []float64
	for _, budget := range []int{gapPathFloats, 5 * P} {
		path, err := newGapPath(step, th0, k, budget)
		if err != nil {
			t.Fatal(err)
		}
		sigma, iters, err := path.amplification()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("budget %d floats (segments of %d): σ₁ %.6g in %d iterations; eigenvalues give %.6g; (1,…,1)/√P gives %.6g", budget, path.m, sigma, iters, want, oneDir)
		got = append(got, sigma)
	}
	if oneDir > want/2 {
		t.Fatalf("the one-direction estimate %.4g is not too small against σ₁ = %.4g: the test does not show the false alarm", oneDir, want)
	}
	if got[0] < want*(1-amplificationRelTol) || got[0] > want*(1+amplificationRelTol) {
		t.Errorf("power iteration gives %.6g, σ₁ = %.6g", got[0], want)
	}
	if got[0] != got[1] {
		t.Errorf("checkpointed path gives %v, kept path %v", got[1], got[0])
	}
}
