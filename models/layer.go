package models

import "math/rand/v2"

// layer is one stage of a Network acting on a batch of n samples stored
// row-major: its input is n×inDim, its output n×outDim.
type layer interface {
	dims() (in, out int)
	numParams() int
	// auxSize and scratchSize are the floats per sample the layer keeps from
	// forward to backward, and needs as temporary space.
	auxSize() int
	scratchSize() int
	// forward writes the output of the n samples of in, with parameters p.
	forward(p, in, out, aux, scratch []float64, n int)
	// backward writes into gp the gradient of Σ gOut⊙out with respect to p
	// and, when gIn is not nil, with respect to in. It must not modify gOut.
	backward(p, in, gOut, gIn, gp, aux, scratch []float64, n int)
	// degree returns the multi-degree of the output given that of the input;
	// block is the layer's parameter block (−1 when it has no parameters).
	degree(d multiDegree, block int) multiDegree
	// initParams draws the layer's parameters.
	initParams(r *rand.Rand, p []float64)
	// pattern appends a description of the side of every kink the last
	// forward pass was on (empty for smooth layers): two parameter vectors
	// with the same pattern lie in the same smooth piece.
	pattern(in, aux []float64, n int, dst []byte) []byte
	String() string
}
