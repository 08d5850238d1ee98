package dataset

import "math"

// Standardize rescales every feature in place to mean 0 and standard
// deviation 1 over the samples, x_ij ← (x_ij − μ_j)/σ_j, and returns μ and
// σ. A constant feature (σ_j = 0) is only centred (σ_j is reported as 1):
// it then is 0 for every sample and carries no information either way.
//
// Raw pixels (0…255) put the first gradient step of a summed loss far past
// the region where the loss is smooth enough for the step size; after
// standardization ‖x_i‖² is about D for every dataset, which a step size can
// be chosen for. The theorems are about the data as given: a model trained
// on standardized data is a model of the standardized features (θ applies
// to (x − μ)/σ), which is why the CLI reports μ and σ with θ.
func (d *Dataset) Standardize() (mean, scale []float64) {
	mean, scale = make([]float64, d.D), make([]float64, d.D)
	for j := 0; j < d.D; j++ {
		// Two passes: the mean, then the squared deviations (no
		// cancellation of E[x²] − E[x]²).
		var s float64
		for i := 0; i < d.N; i++ {
			s += d.X[i*d.D+j]
		}
		mu := s / float64(d.N)
		var ss float64
		for i := 0; i < d.N; i++ {
			v := d.X[i*d.D+j] - mu
			ss += v * v
		}
		sd := math.Sqrt(ss / float64(d.N))
		if !(sd > 0) || math.IsInf(sd, 0) {
			sd = 1
		}
		mean[j], scale[j] = mu, sd
		for i := 0; i < d.N; i++ {
			d.X[i*d.D+j] = (d.X[i*d.D+j] - mu) / sd
		}
	}
	return mean, scale
}
