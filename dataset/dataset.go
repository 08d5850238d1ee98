// Package dataset holds the samples a model is trained on, with the
// validation every theorem needs before it can be applied: finite values,
// consistent shapes, labels of the right kind.
package dataset

import (
	"errors"
	"fmt"
	"math"
)

// Dataset is N samples x_i ∈ ℝ^D with targets y_i, stored row-major.
type Dataset struct {
	N, D int
	X    []float64 // N×D, row i is sample i
	Y    []float64 // ±1 (binary), a class index (multi-class) or a real target
	// Groups optionally assigns each sample to a group 0…K−1 (for GRW
	// schemes such as importance weighting and Group DRO).
	Groups []int
}

// Row returns sample i.
func (d *Dataset) Row(i int) []float64 { return d.X[i*d.D : (i+1)*d.D] }

// ErrEmpty reports a dataset without samples or features.
var ErrEmpty = errors.New("dataset: no samples")

// Validate checks shapes and that every value is finite.
func (d *Dataset) Validate() error {
	if d == nil || d.N == 0 {
		return ErrEmpty
	}
	if d.D < 1 {
		return fmt.Errorf("dataset: samples have no features (d = %d)", d.D)
	}
	if len(d.X) != d.N*d.D || len(d.Y) != d.N {
		return fmt.Errorf("dataset: shape mismatch: %d×%d samples but %d values and %d targets", d.N, d.D, len(d.X), len(d.Y))
	}
	if d.Groups != nil && len(d.Groups) != d.N {
		return fmt.Errorf("dataset: %d samples but %d group labels", d.N, len(d.Groups))
	}
	for i, v := range d.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("dataset: sample %d feature %d is %v", i/d.D+1, i%d.D+1, v)
		}
	}
	for i, v := range d.Y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("dataset: sample %d target is %v", i+1, v)
		}
	}
	for i, g := range d.Groups {
		if g < 0 {
			return fmt.Errorf("dataset: sample %d has negative group %d", i+1, g)
		}
	}
	return nil
}

// ValidateBinary checks Validate and that every label is −1 or +1.
func (d *Dataset) ValidateBinary() error {
	if err := d.Validate(); err != nil {
		return err
	}
	for i, v := range d.Y {
		if v != 1 && v != -1 {
			return fmt.Errorf("dataset: sample %d has label %v; binary losses need labels −1 or +1", i+1, v)
		}
	}
	return nil
}

// ValidateClasses checks Validate and that every label is a class index in
// 0…k−1.
func (d *Dataset) ValidateClasses(k int) error {
	if err := d.Validate(); err != nil {
		return err
	}
	for i, v := range d.Y {
		if v != math.Trunc(v) || v < 0 || v >= float64(k) {
			return fmt.Errorf("dataset: sample %d has label %v; %d-class losses need labels 0…%d", i+1, v, k, k-1)
		}
	}
	return nil
}

// Classes returns the number of distinct label values.
func (d *Dataset) Classes() int {
	seen := map[float64]bool{}
	for _, v := range d.Y {
		seen[v] = true
	}
	return len(seen)
}

// Subset returns the samples at idx (copied).
func (d *Dataset) Subset(idx []int) *Dataset {
	s := &Dataset{N: len(idx), D: d.D, X: make([]float64, 0, len(idx)*d.D), Y: make([]float64, 0, len(idx))}
	for _, i := range idx {
		s.X = append(s.X, d.Row(i)...)
		s.Y = append(s.Y, d.Y[i])
		if d.Groups != nil {
			s.Groups = append(s.Groups, d.Groups[i])
		}
	}
	return s
}
