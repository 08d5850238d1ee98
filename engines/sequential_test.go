package engines

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/implicitbias/implicitbias/check"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/train"
)

// TestSequentialRoundTrip maps specs to nn.Sequential modules and PyTorch's
// layout, and back through check's mapping (check.MapModel, Mapping.Apply):
// the spec and θ and X bit for bit.
func TestSequentialRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		spec string
		in   int
	}{
		{"linear", 3},
		{"linear/3", 4},
		{"mlp:relu:2x8", 3},
		{"mlp:relu:5-4/3+bias@2", 3},
		{"mlp:lrelu0.2:3x4", 2},
		{"mlp:lrelu:2x4", 2},
		{"mlp:relu3:3x4", 3},
		{"mlp:quad:2x4", 3},
		{"mlp:tanh:2x4+bias", 3},
		{"deeplinear:3", 3},
		{"cnn:lrelu0.2:3c3s2-avg2,4c2:5@2/2+bias@1", 34},
		{"cnn:relu:2c3-max2", 12},
		{"cnn2d:8x8x1:relu:3c3-valid-max2", 64},
		{"cnn2d:6x6x2:relu:3c3-avg2,2c2:4-3:2+bias@1", 72},
		{"cnn2d:8x8x1:relu:2c3s2-valid,2c3", 64},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			net, err := models.Parse(tc.spec, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			s, err := SequentialOf(net)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, 2))
			theta := make([]float64, net.NumParams())
			for i := range theta {
				theta[i] = r.NormFloat64()
			}
			const n = 3
			x := make([]float64, n*tc.in)
			for i := range x {
				x[i] = r.NormFloat64()
			}
			tr := &check.Trajectory{Steps: []int{0}, LR: []float64{0.1}, Reduction: "sum",
				Params: s.Params, Theta: [][]float64{s.ThetaOut(theta)},
				X: s.InputOut(x, n), N: n, D: tc.in, Y: make([]float64, n), InputShape: s.InputShape}
			for _, m := range s.Modules {
				tr.Modules = append(tr.Modules, m.Text)
			}
			if err := tr.Validate(); err != nil {
				t.Fatal(err)
			}
			m, err := check.MapModel(tr)
			if err != nil {
				t.Fatalf("check.MapModel refuses %v: %v", tr.Modules, err)
			}
			mapped, err := models.Parse(m.Spec, m.In)
			if err != nil {
				t.Fatal(err)
			}
			if !SameModel(mapped, net) {
				t.Fatalf("mapped back to %s on %d inputs, want %s on %d", m.Spec, m.In, net, tc.in)
			}
			back := m.Apply(tr)
			if !slices.Equal(back.Theta[0], theta) {
				t.Errorf("θ does not come back")
			}
			if !slices.Equal(back.X, x) {
				t.Errorf("X does not come back")
			}
			if !slices.Equal(s.ThetaIn(s.ThetaOut(theta)), theta) || !slices.Equal(s.InputIn(s.InputOut(x, n), n), x) {
				t.Errorf("ThetaIn/InputIn are not the inverses of ThetaOut/InputOut")
			}
		})
	}
}

// TestSequentialPermutationMatters: for the CNNs the layouts differ, so
// the identity permutation would not come back (the round trip is not
// vacuous).
func TestSequentialPermutationMatters(t *testing.T) {
	for _, spec := range []struct {
		s  string
		in int
	}{{"cnn2d:8x8x1:relu:3c3-valid-max2", 64}, {"cnn:relu:2c3-max2@2", 24}} {
		net, _ := models.Parse(spec.s, spec.in)
		s, err := SequentialOf(net)
		if err != nil {
			t.Fatal(err)
		}
		theta := make([]float64, net.NumParams())
		for i := range theta {
			theta[i] = float64(i)
		}
		if slices.Equal(s.ThetaOut(theta), theta) {
			t.Errorf("%s: θ's layout is PyTorch's already?", spec.s)
		}
	}
}

func TestSequentialRefuses(t *testing.T) {
	for _, tc := range []struct {
		spec string
		in   int
	}{{"mlp:softplus:2x4", 3}, {"mlp:gelu:2x4", 3}, {"cnn:id:2c3", 8}} {
		net, err := models.Parse(tc.spec, tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := SequentialOf(net); !errors.Is(err, ErrNotExpressible) {
			t.Errorf("%s: got %v, want ErrNotExpressible", tc.spec, err)
		}
	}
}

// TestWindowScheduleIsRunWindows: the steps WindowSchedule lists are the
// records train.RunWindows makes for the plan, and the steps it takes.
func TestWindowScheduleIsRunWindows(t *testing.T) {
	for _, plan := range []train.WindowPlan{
		{Steps: 200, Burst: 16, Growth: 1.5},
		{Steps: 1000, Burst: 2, Every: 100},
		{Steps: 50, Burst: 1, Growth: 1.2},
		{Steps: 7, Burst: 4, Every: 3},
	} {
		s, steps, err := WindowSchedule(plan)
		if err != nil {
			t.Fatal(err)
		}
		c := &Case{Name: "w", Model: "linear", In: 2, N: 2, X: []float64{1, 0, 0, 1}, Y: []float64{1, -1},
			Theta0: []float64{0.1, 0.2}, Loss: Logistic, Rule: StepRule{Kind: GD, LR: 0.1}, Steps: steps, Record: s}
		obj, err := c.objective()
		if err != nil {
			t.Fatal(err)
		}
		gd, _ := train.NewGD(0.1)
		tr, err := train.RunWindows(obj, gd, append([]float64(nil), c.Theta0...), plan)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, r := range tr.Records {
			got = append(got, r.Step)
		}
		if !slices.Equal(got, s.List) || tr.Steps != steps {
			t.Errorf("%+v: RunWindows records %v and takes %d steps, the schedule %v and %d", plan, got, tr.Steps, s.List, steps)
		}
		// Without the plan (another engine's view), Local records the
		// same steps and θ.
		lt, err := Local{}.Train(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		c.Record.Windows = nil
		lp, err := Local{}.Train(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		if len(lt.Records) != len(lp.Records) {
			t.Fatalf("%+v: %d records with the plan, %d with its list", plan, len(lt.Records), len(lp.Records))
		}
		for i := range lt.Records {
			if lt.Records[i].Step != lp.Records[i].Step || !slices.Equal(lt.Records[i].Theta, lp.Records[i].Theta) {
				t.Fatalf("%+v: record %d differs between the windows run and the listed steps", plan, i)
			}
		}
	}
}
