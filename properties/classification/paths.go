package classification

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/numerics"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/theorems/grwclass"
	"github.com/implicitbias/implicitbias/train"
)

// The regularized paths θ_R of ZD Thm 8 and App. C, computed by
// train.MinimizeOnBall from the SVM direction (never from a run under
// test): ZD-T8's and ZD-PT's reference, the polynomial controls' limits
// and the figures' paths.

// rays computes θ_R = argmin_{‖θ‖≤R} Σ_i w_i ℓ(y_i⟨θ, x_i⟩) at the radii
// (increasing), each from the previous one (the first from the SVM
// direction): never from a trajectory under test. fault names an engine
// fault planted in the objective, for ZD-PT, whose claim is about the
// paths themselves ("" for a path that is a reference, as ZD-T8's).
func rays(data *dataset.Dataset, loss string, w []float64, radii []float64, fault string) ([]grwclass.PathRay, error) {
	obj, err := LinearObjective(data, 1, loss)
	if err != nil {
		return nil, err
	}
	if obj, _, err = properties.Plant(fault, obj, nil); err != nil {
		return nil, err
	}
	if err := obj.SetWeights(w); err != nil {
		return nil, err
	}
	sol, err := numerics.HardMarginSVM(mat.NewDense(data.N, data.D, data.X), data.Y, nil)
	if err != nil {
		return nil, err
	}
	th := sol.Direction()
	var out []grwclass.PathRay
	for _, radius := range radii {
		res, err := train.MinimizeOnBall(obj, th, radius, nil)
		if err != nil {
			return nil, fmt.Errorf("path at R = %g: %w", radius, err)
		}
		if !(res.Multiplier > 0) {
			return nil, fmt.Errorf("path at R = %g: the ball's multiplier is %g: the point's precision is unknown", radius, res.Multiplier)
		}
		out = append(out, grwclass.PathRay{R: radius, ThetaR: append([]float64(nil), th...), Precision: res.Residual / res.Multiplier})
	}
	return out, nil
}

// twoWeightings returns ERM's weights and the case's random importance
// weights (M ≥ 4 so that the two limits are clearly apart).
func twoWeightings(c ClassCase) [2][]float64 {
	c.LogM = math.Max(c.LogM, math.Log(4))
	erm := make([]float64, c.n())
	for i := range erm {
		erm[i] = 1
	}
	return [2][]float64{erm, c.ImportanceWeights()}
}
