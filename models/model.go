package models

import "math/rand/v2"

// Model is a network Φ(θ; x) ∈ ℝ^Out on inputs x ∈ ℝ^In with a flat
// parameter vector θ ∈ ℝ^NumParams.
//
// Forward and Backward work on batches and keep their state in a Workspace
// made by NewWorkspace; after the workspace is made they do not allocate.
// A workspace serves one goroutine at a time.
type Model interface {
	In() int
	Out() int
	NumParams() int
	// Degree is the symbolic homogeneity of Φ in θ, derived from the
	// architecture.
	Degree() Degree
	// Blocks lists the parameter blocks, in order; their degrees make up
	// Degree().Blocks.
	Blocks() []Block
	// String is the model's spec (see Parse).
	String() string
	// NewWorkspace returns buffers for batches of up to n samples.
	NewWorkspace(n int) Workspace
	// Forward computes Φ(θ; x_i) for the n rows of x (n×In) and returns them
	// as an n×Out slice owned by ws, valid until the next Forward on ws.
	// It keeps x: x must not change before the matching Backward.
	Forward(ws Workspace, theta, x []float64, n int) []float64
	// Backward writes into grad (len NumParams) the gradient
	//
	//	Σ_i Σ_k gOut[i·Out+k] ∇_θ Φ_k(θ; x_i)
	//
	// at the θ and x of the last Forward on ws.
	Backward(ws Workspace, theta, gOut, grad []float64)
	// Init draws θ from the model's default initialization.
	Init(r *rand.Rand, theta []float64)
}

// Workspace holds a model's buffers between Forward and Backward.
type Workspace interface {
	// Cap is the largest batch the workspace serves.
	Cap() int
}

// Block is a contiguous range of parameters (a layer's weights and bias).
type Block struct {
	Name   string
	Offset int
	Len    int
}

// Kinked is implemented by models that are only piecewise smooth (ReLU,
// LeakyReLU, max pooling). Pattern appends to dst a description of the
// smooth piece the last Forward on ws was in: if two parameter vectors give
// the same pattern for the same inputs, Φ is smooth (polynomial for ReLU-type
// nets) on the segment between them within each layer's piece.
type Kinked interface {
	Pattern(ws Workspace, dst []byte) []byte
}
