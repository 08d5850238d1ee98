package cases

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/properties"
)

// Families of generated architectures.
const (
	FamLinear = iota
	FamDeepLinear
	FamMLP
	FamCNN
	FamCNN2D
	numFamilies
)

// homogeneousActs are the activations of generated homogeneous networks.
var homogeneousActs = []string{"relu", "lrelu0.1", "lrelu0.3", "relu2", "relu3", "quad", "id"}

// Activations of a homogeneous ArchCase (its Act, an index into
// homogeneousActs), for literal cases.
const (
	ActReLU = iota
	ActLReLU01
	ActLReLU03
	ActReLU2
	ActReLU3
	ActQuad
	ActIdentity
)

// nonHomogeneousActs are the activations of the negative controls.
var nonHomogeneousActs = []string{"tanh", "softplus"}

// ArchCase is a generated network with parameters and inputs, described by
// small integers and a seed so that gopter can shrink it.
type ArchCase struct {
	Family  int // FamLinear … FamCNN
	Depth   int // layers, 1…5 (clamped to 3 for activations of degree ≥ 2)
	Width   int // hidden width, 1…64
	Act     int // index into the activation list
	In      int // input dimension, 1…12 (CNN: positions, at least 4; CNN2D: unused, the image comes from Seed)
	Outputs int // 1 (a score) or 2…4 (multi-class scores)
	Samples int // inputs, 1…5
	Conv    int // CNN, CNN2D: conv stages 1…2, their shapes and pooling derived from Seed
	Seed    uint64
	// Bias adds a bias term to every layer; NonHomogeneous swaps the
	// activation for tanh/softplus. Both are negative controls.
	Bias, NonHomogeneous bool
	// Fault names an engine fault planted in the model and, for a
	// LossCase, its loss (package faults); empty for the claims.
	Fault string
}

func (c ArchCase) WithFault(name string) any { c.Fault = name; return c }

// act returns the activation spelling.
func (c ArchCase) ActName() string {
	if c.NonHomogeneous {
		return nonHomogeneousActs[properties.Pick(c.Act, len(nonHomogeneousActs))]
	}
	return homogeneousActs[properties.Pick(c.Act, len(homogeneousActs))]
}

func (c ArchCase) depth() int {
	d := min(max(c.Depth, 1), 5)
	if a, err := models.ParseActivation(c.ActName()); err == nil {
		if k, ok := a.Degree(); ok && k >= 2 {
			d = min(d, 3) // degree 121 at depth 5 with ReLU³ is a float range test, not an identity test.
		}
	}
	return d
}

func (c ArchCase) InDim() int {
	switch c.Family % numFamilies {
	case FamCNN:
		return max(c.In, 4)
	case FamCNN2D:
		h, w, ch := c.image()
		return h * w * ch
	}
	return max(c.In, 1)
}

// Spec returns the model spec of the case.
func (c ArchCase) Spec() string {
	width := min(max(c.Width, 1), 64)
	var s string
	switch c.Family % numFamilies {
	case FamLinear:
		s = "linear"
	case FamDeepLinear:
		s = fmt.Sprintf("deeplinear:%dx%d", c.depth(), width)
	case FamMLP:
		s = fmt.Sprintf("mlp:%s:%dx%d", c.ActName(), c.depth(), width)
	case FamCNN:
		r := rand.New(rand.NewPCG(c.Seed, 7))
		length := c.InDim()
		stages := ""
		for i := 0; i < min(max(c.Conv, 1), 2); i++ {
			k := 1 + r.IntN(min(3, length))
			ch := 1 + r.IntN(min(6, width))
			stage := fmt.Sprintf("%dc%d", ch, k)
			length = length - k + 1
			if p := 1 + r.IntN(2); length >= 2*p && r.IntN(3) > 0 {
				stage += fmt.Sprintf("-%s%d", []string{"max", "avg"}[r.IntN(2)], p)
				length /= p
			}
			if i > 0 {
				stages += ","
			}
			stages += stage
			if length < 2 {
				break
			}
		}
		s = fmt.Sprintf("cnn:%s:%s", c.ActName(), stages)
		if c.depth() > 2 {
			s += fmt.Sprintf(":%d", min(width, 8))
		}
	case FamCNN2D:
		s = c.spec2D(width)
	}
	if c.Outputs > 1 {
		s += fmt.Sprintf("/%d", min(c.Outputs, 4))
	}
	return s
}

// String describes the case so that it can be rebuilt.
func (c ArchCase) String() string {
	s := c.Spec()
	if c.Bias {
		s += "+bias"
	}
	return fmt.Sprintf("%s in=%d samples=%d seed=%d", s, c.InDim(), max(c.Samples, 1), c.Seed) + properties.FaultSuffix(c.Fault)
}

// Built is a case made concrete.
type Built struct {
	Model models.Model
	// Degree is L of the bias-free, homogeneous version of the architecture:
	// what a user would declare. For a homogeneous case it is the model's
	// own symbolic degree.
	Degree float64
	Blocks []float64
	Theta  []float64
	X      []float64
	N      int
}

// Build makes the model, draws θ from the model's initialization and the
// inputs from N(0, I). It redraws (deterministically, up to 20 times) while
// every gradient ∇Φ(θ; x_n) is zero, so that cases are not dead networks at
// which every identity holds vacuously.
func (c ArchCase) Build() (Built, error) {
	f, err := faults.Lookup(c.Fault)
	if err != nil {
		return Built{}, err
	}
	spec := c.Spec()
	ref, err := models.Parse(spec, c.InDim()) // the bias-free, homogeneous reference
	if err != nil {
		return Built{}, err
	}
	if c.NonHomogeneous {
		// Declare the degree the architecture would have with ReLU.
		hom := c
		hom.NonHomogeneous = false
		hom.Act = 0
		if ref, err = models.Parse(hom.Spec(), c.InDim()); err != nil {
			return Built{}, err
		}
	}
	m := ref
	if c.Bias {
		if m, err = models.Parse(spec+"+bias", c.InDim()); err != nil {
			return Built{}, err
		}
	} else if c.NonHomogeneous {
		if m, err = models.Parse(spec, c.InDim()); err != nil {
			return Built{}, err
		}
	}
	// A model fault is the engine's: its symbolic degree (the declared L
	// of the reference) comes from the same faulty engine.
	declared := f.Model(ref).Degree()
	b := Built{Model: f.Model(m), Degree: declared.Order, Blocks: declared.Blocks, N: min(max(c.Samples, 1), 5)}
	b.Theta = make([]float64, m.NumParams())
	b.X = make([]float64, b.N*m.In())
	g := models.NewGrader(m)
	grad := make([]float64, m.NumParams())
	for try := uint64(0); try < 20; try++ {
		r := rand.New(rand.NewPCG(c.Seed, try))
		m.Init(r, b.Theta)
		if c.Bias && c.Family%numFamilies == FamCNN2D {
			biasesOffZero(r, b.Theta)
		}
		for i := range b.X {
			b.X[i] = r.NormFloat64()
		}
		if live(g, b, grad) {
			break
		}
	}
	return b, nil
}

func live(g *models.Grader, b Built, grad []float64) bool {
	d := b.Model.In()
	for n := 0; n < b.N; n++ {
		for k := 0; k < b.Model.Out(); k++ {
			g.Grad(b.Theta, b.X[n*d:(n+1)*d], k, grad)
			if nrm := floats.Norm(grad, 2); nrm > 0 && !math.IsInf(nrm, 0) {
				return true
			}
		}
	}
	return false
}

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
