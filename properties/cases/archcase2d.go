package cases

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The 2-D CNN family (issue 20): small images and one or two conv stages,
// so that ENG-grad, LL-B2a/b, LL-B3 and LL-B3m see the layers of LL's MNIST
// network (LL App. J) — 2-D convolutions with stride and "same"/"valid"
// padding, max and average pooling, the flatten, a dense layer — at a cost
// of milliseconds per case (at most 8×8×3 inputs and 4 channels, so the
// output layer has at most 8·8·4·4 weights).
//
// Everything but the activation, the depth (a dense hidden layer when
// depth() > 2) and the outputs is drawn from the case's Seed, on streams of
// its own (PCG stream 11 for the image, 13 for the stages): the image
// comes first because in() needs it without the rest.

// image returns the case's input shape: height and width 4…8 (not
// necessarily equal, so that a row/column mix-up changes the result) and
// 1…3 channels.
func (c ArchCase) image() (h, w, ch int) {
	r := rand.New(rand.NewPCG(c.Seed, 11))
	return 4 + r.IntN(5), 4 + r.IntN(5), 1 + r.IntN(3)
}

// spec2D returns the cnn2d spec of the case (models.SpecGrammar):
// min(max(Conv, 1), 2) stages, each with kernel 1…min(3, h, w), stride 1–2,
// "same" or "valid" padding, 1…min(4, width) channels, and in two draws of
// three a max or average pooling of size 1–2 when the map is large enough;
// a second stage only when the first leaves a map of at least 2×2.
func (c ArchCase) spec2D(width int) string {
	h0, w0, ch := c.image()
	h, w := h0, w0
	r := rand.New(rand.NewPCG(c.Seed, 13))
	var stages []string
	for i := 0; i < min(max(c.Conv, 1), 2); i++ {
		if i > 0 && min(h, w) < 2 {
			break
		}
		k := 1 + r.IntN(min(3, h, w))
		stride := 1 + r.IntN(2)
		valid := r.IntN(2) == 0
		stage := fmt.Sprintf("%dc%d", 1+r.IntN(min(4, width)), k)
		if stride > 1 {
			stage += fmt.Sprintf("s%d", stride)
		}
		if valid {
			stage += "-valid"
			h, w = (h-k)/stride+1, (w-k)/stride+1
		} else {
			h, w = (h+stride-1)/stride, (w+stride-1)/stride
		}
		if p := 1 + r.IntN(2); min(h, w) >= p && r.IntN(3) > 0 {
			stage += fmt.Sprintf("-%s%d", []string{"max", "avg"}[r.IntN(2)], p)
			h, w = h/p, w/p
		}
		stages = append(stages, stage)
	}
	s := fmt.Sprintf("cnn2d:%dx%dx%d:%s:%s", h0, w0, ch, c.ActName(), strings.Join(stages, ","))
	if c.depth() > 2 {
		s += fmt.Sprintf(":%d", min(width, 8))
	}
	return s
}

// biasesOffZero draws from N(0, 1), as the other families' initializations
// draw biases, every parameter that a 2-D CNN's He initialization left at
// exactly 0: its biases (LL App. J), since a He-normal weight is 0 with
// probability 0. At zero biases a `+bias` network is still homogeneous in
// θ (Φ(cθ) keeps b = 0), so the bias controls of LL-B2a, LL-B3, LL-B3m and
// LL-B4 would have nothing to catch.
func biasesOffZero(r *rand.Rand, theta []float64) {
	for i, v := range theta {
		if v == 0 {
			theta[i] = r.NormFloat64()
		}
	}
}

// CNN2D reports whether c is a 2-D CNN (about one draw in five of GenArch).
func (c ArchCase) CNN2D() bool { return c.Family%numFamilies == FamCNN2D }
