package experiment

import (
	"fmt"

	"github.com/implicitbias/implicitbias/dataset"
)

// Downsample returns d's images (side×side pixels, one channel, row major)
// averaged over non-overlapping factor×factor blocks: images of
// (side/factor)² pixels. factor must divide side. Averaging keeps pixels
// in [0, 1] and the data's classes; it is how the small preset shrinks
// Fashion-MNIST's 28×28 images to 14×14 or 7×7 (an input of fewer pixels
// is a cheaper first convolution, not another model family).
func Downsample(d *dataset.Dataset, side, factor int) (*dataset.Dataset, error) {
	switch {
	case d == nil:
		return nil, fmt.Errorf("experiment: downsample: no data")
	case side < 1 || d.D != side*side:
		return nil, fmt.Errorf("experiment: downsample: %d features are no %d×%d image", d.D, side, side)
	case factor < 1 || side%factor != 0:
		return nil, fmt.Errorf("experiment: downsample: factor %d does not divide the side %d", factor, side)
	}
	out := side / factor
	s := &dataset.Dataset{N: d.N, D: out * out, X: make([]float64, d.N*out*out), Y: append([]float64(nil), d.Y...)}
	if d.Groups != nil {
		s.Groups = append([]int(nil), d.Groups...)
	}
	inv := 1 / float64(factor*factor)
	for n := 0; n < d.N; n++ {
		src, dst := d.Row(n), s.Row(n)
		for r := 0; r < out; r++ {
			for c := 0; c < out; c++ {
				sum := 0.0
				for a := 0; a < factor; a++ {
					for b := 0; b < factor; b++ {
						sum += src[(r*factor+a)*side+c*factor+b]
					}
				}
				dst[r*out+c] = sum * inv
			}
		}
	}
	return s, nil
}
