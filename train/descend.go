package train

// Descend takes steps GD steps from θ (in place) without recording: each
// evaluates 𝓛 and ∇𝓛 at θ_t and sets θ_{t+1} = θ_t − η∇𝓛, as Run's steps
// do (the same bits). θ is lent to the objective's cache for the duration
// (Objective.runθ: no copy of θ per step), so θ must not change but by the
// steps. It does not allocate.
func Descend(obj *Objective, gd *GD, theta []float64, steps int) error {
	obj.runθ = theta
	defer obj.endLending()
	for t := 0; t < steps; t++ {
		ev, err := obj.Evaluate(theta, true)
		if err != nil {
			return err
		}
		obj.stepping()
		if _, err := gd.Step(obj, theta, ev); err != nil {
			return err
		}
	}
	return nil
}
