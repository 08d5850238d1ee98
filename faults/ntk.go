package faults

import (
	"github.com/implicitbias/implicitbias/models"
)

// ntkFaults lists the faults of the NTK network of catalog section F. The
// sweeps build the network through Fault.Model (properties/ntk's buildNTK), so
// the kernel Θ^{(0)}, the linearization and every run are the faulty
// network's, as in an engine with the bug.
func ntkFaults() []Fault {
	return []Fault{
		{
			Name: "ntk-scale", Component: "model",
			Effect: "the NTK network's output layer is scaled by 1/d_L instead of 1/√d_L (the square root dropped: the mean-field scaling)",
			model:  meanFieldOutput,
		},
	}
}

// meanFieldOutput rebuilds an NTK network with the output factor 1/d_L;
// other models, and networks already so scaled, are returned unchanged.
func meanFieldOutput(m models.Model) models.Model {
	net, ok := m.(*models.NTK)
	if !ok || net.Scaling() != models.NTKScaling {
		return m
	}
	g, err := models.NewNTK(models.NTKConfig{In: net.In(), Hidden: net.Hidden(), Act: net.Activation(),
		Beta: net.Beta(), Last: net.LastLayer(), Out: models.MeanField})
	if err != nil {
		return m
	}
	return g
}
