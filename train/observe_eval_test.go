package train

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestObserveMayEvaluateElsewhere: an Observe callback that evaluates the
// objective at another θ (a check judging the records so far, as the flow
// fault controls' stop rule does) leaves the run's steps as they are.
func TestObserveMayEvaluateElsewhere(t *testing.T) {
	for _, name := range []string{"gd", "flow", "gd-chi2"} {
		t.Run(name, func(t *testing.T) {
			obj, theta0 := benchObjective(t, "mlp:relu:8", 20, 3)
			opt := func() Optimizer {
				if name != "flow" {
					gd, err := NewGD(1e-3)
					require.NoError(t, err)
					return gd
				}
				fl, err := NewFlow(1e-6)
				require.NoError(t, err)
				return fl
			}
			run := func(observe func(*Record, []float64, *Eval) error) *Trajectory {
				var w Weighting
				if name == "gd-chi2" { // the scheme's weights move every step
					chi2, err := NewChiSquareDRO(1)
					require.NoError(t, err)
					w = chi2
				}
				tr, err := Run(obj, opt(), append([]float64(nil), theta0...), Config{Steps: 40, Every: 4, Observe: observe, Weighting: w})
				require.NoError(t, err)
				return tr
			}
			want := run(nil)
			other := make([]float64, len(theta0))
			got := run(func(r *Record, th []float64, _ *Eval) error {
				for i := range th {
					other[i] = 2*th[i] + 0.1
				}
				_, err := obj.Evaluate(other, true)
				return err
			})
			require.Len(t, got.Records, len(want.Records))
			for i := range want.Records {
				assert.Equal(t, want.Records[i].LogLoss, got.Records[i].LogLoss, "record %d", i)
			}
		})
	}
}
