package models

import (
	"fmt"
	"strconv"
	"strings"
)

// Degree is the symbolic homogeneity of a model in its parameters.
type Degree struct {
	// Homogeneous reports whether Φ(cθ; x) = c^Order Φ(θ; x) for all c > 0.
	Homogeneous bool
	// Order is L, the sum of the block degrees, when Homogeneous.
	Order float64
	// Blocks holds k_i for each parameter block (multi-homogeneity), when
	// Homogeneous.
	Blocks []float64
	// Reason says why the model is not homogeneous, when it is not.
	Reason string
}

// String returns "L=…" with the block degrees, or "not homogeneous: reason".
func (d Degree) String() string {
	if !d.Homogeneous {
		return "not homogeneous: " + d.Reason
	}
	parts := make([]string, len(d.Blocks))
	for i, k := range d.Blocks {
		parts[i] = strconv.FormatFloat(k, 'g', -1, 64)
	}
	return fmt.Sprintf("L=%g (blocks %s)", d.Order, strings.Join(parts, "+"))
}

// multiDegree is the degree of an intermediate quantity in each parameter
// block: scaling block i by c scales the quantity by c^{k[i]}. A quantity
// that is not multi-homogeneous carries the reason instead.
type multiDegree struct {
	k      []float64
	reason string
}

func (m multiDegree) homogeneous() bool { return m.reason == "" }

func (m multiDegree) isZero() bool {
	for _, v := range m.k {
		if v != 0 {
			return false
		}
	}
	return true
}

func (m multiDegree) equal(o multiDegree) bool {
	for i := range m.k {
		if m.k[i] != o.k[i] {
			return false
		}
	}
	return true
}

// plusBlock returns the degree of a product of the quantity with a parameter
// of block b (a dense or convolutional layer without bias).
func (m multiDegree) plusBlock(b int) multiDegree {
	if !m.homogeneous() {
		return m
	}
	k := append([]float64(nil), m.k...)
	k[b]++
	return multiDegree{k: k}
}

// times returns the degree after an activation of degree p.
func (m multiDegree) times(p float64) multiDegree {
	if !m.homogeneous() {
		return m
	}
	k := make([]float64, len(m.k))
	for i, v := range m.k {
		k[i] = p * v
	}
	return multiDegree{k: k}
}

// sum returns the degree of a sum of two terms: defined only when both terms
// have the same degree in every block.
func (m multiDegree) sum(o multiDegree, what string) multiDegree {
	if !m.homogeneous() {
		return m
	}
	if !o.homogeneous() {
		return o
	}
	if !m.equal(o) {
		return multiDegree{reason: what}
	}
	return m
}

func (m multiDegree) total() float64 {
	var s float64
	for _, v := range m.k {
		s += v
	}
	return s
}

// affineDegree returns the degree of W·a (+ b) for a parameter block W (and
// b) when a has degree d: the product adds one to the block's degree; a bias
// is a summand of degree one in the block, which matches only when a does not
// depend on θ (the first layer).
func affineDegree(d multiDegree, block int, bias bool) multiDegree {
	out := d.plusBlock(block)
	if !bias || !out.homogeneous() {
		return out
	}
	b := multiDegree{k: make([]float64, len(d.k))}
	b.k[block] = 1
	return out.sum(b, fmt.Sprintf("bias term of layer %d has degree 1 but its weight term has degree %g", block+1, out.total()))
}
