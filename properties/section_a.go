package properties

import (
	"math"
	"math/rand/v2"

	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/homogeneity"
)

// Section A of the catalog: homogeneity and exact identities.

// pointCase builds the PointCase of an architecture; declared selects the
// degree the user declares (0: derive it from the architecture).
func pointCase(a ArchCase, declared func(Built) float64) (homogeneity.PointCase, error) {
	b, err := a.Build()
	if err != nil {
		return homogeneity.PointCase{}, err
	}
	c := homogeneity.PointCase{Model: b.Model, Theta: b.Theta, X: b.X, N: b.N}
	if declared != nil {
		c.Degree = declared(b)
	}
	return c, nil
}

// drops names the hypothesis a negative control breaks (for verify --hunt).
func drops[C any](key string, p Property[C]) Property[C] {
	p.Drops = key
	return p
}

func derived(Built) float64          { return 0 }
func biasFreeDegree(b Built) float64 { return b.Degree }
func degreePlusOne(b Built) float64  { return b.Degree + 1 }

// pointProperty turns a check of a PointCase into a Property over
// architectures.
func pointProperty(name string, v Variant, declared func(Built) float64, check func(homogeneity.PointCase) theorems.Verdict) Property[ArchCase] {
	return Property[ArchCase]{Name: name, Gen: GenArch(v), Check: func(r *Runner, x ArchCase) theorems.Verdict {
		c, err := pointCase(x, declared)
		if err != nil {
			return theorems.Assumption("case does not build: %v", err)
		}
		return check(c)
	}}
}

func scaledProperty(name string, v Variant, declared func(Built) float64, check func(homogeneity.PointCase, float64) theorems.Verdict) Property[ScaledCase] {
	return Property[ScaledCase]{Name: name, Gen: GenScaled(v, v != Homogeneous), Check: func(r *Runner, x ScaledCase) theorems.Verdict {
		sc := x
		c, err := pointCase(sc.Arch, declared)
		if err != nil {
			return theorems.Assumption("case does not build: %v", err)
		}
		return check(c, math.Pow(10, sc.LogScale))
	}}
}

func lossProperty(name string, v Variant, binary bool, check func(LossCase) theorems.Verdict) Property[LossCase] {
	return Property[LossCase]{Name: name, Gen: GenLoss(v, binary), Check: func(r *Runner, x LossCase) theorems.Verdict {
		return check(x)
	}}
}

func sectionA() (es []Entry) {
	es = append(es, Entry{Info: theorems.Info{ID: "LL-B2a"},
		Claims: []Prop{scaledProperty("homogeneous architectures", Homogeneous, derived, homogeneity.Homogeneity)},
		Controls: []Prop{
			drops("bias", scaledProperty("bias term, bias-free L declared", WithBias, biasFreeDegree, homogeneity.Homogeneity)),
			drops("bias-derived", scaledProperty("bias term, L derived", WithBias, derived, homogeneity.Homogeneity)),
		},
	})
	es = append(es, Entry{Info: theorems.Info{ID: "LL-B2b"},
		Claims: []Prop{scaledProperty("homogeneous architectures", Homogeneous, derived, homogeneity.GradientHomogeneity)},
		Controls: []Prop{
			drops("activation", scaledProperty("tanh/softplus, ReLU's L declared", NonHomogeneousAct, biasFreeDegree, homogeneity.GradientHomogeneity)),
			drops("activation-derived", scaledProperty("tanh/softplus, L derived", NonHomogeneousAct, derived, homogeneity.GradientHomogeneity)),
		},
	})
	es = append(es, Entry{Info: theorems.Info{ID: "LL-B3"},
		Claims: []Prop{pointProperty("homogeneous architectures", Homogeneous, derived, homogeneity.EulerIdentity)},
		Controls: []Prop{
			drops("bias", pointProperty("bias term, bias-free L declared", WithBias, biasFreeDegree, homogeneity.EulerIdentity)),
			drops("activation", pointProperty("tanh/softplus, ReLU's L declared", NonHomogeneousAct, biasFreeDegree, homogeneity.EulerIdentity)),
			drops("degree", pointProperty("wrong declared L (L+1)", Homogeneous, degreePlusOne, homogeneity.EulerIdentity)),
			drops("bias-derived", pointProperty("bias term, L derived", WithBias, derived, homogeneity.EulerIdentity)),
		},
		Faults: []FaultControl{
			{Fault: "degree-plus-one", Why: "the Euler identity ⟨θ, ∇Φ⟩ = L·Φ fails with the declared L"},
		},
	})
	es = append(es, Entry{Info: theorems.Info{ID: "LL-B3m"},
		Claims: []Prop{pointProperty("homogeneous architectures", Homogeneous, derived, homogeneity.MultiHomogeneity)},
		Controls: []Prop{
			Property[ArchCase]{Name: "bias term, bias-free block degrees declared", Drops: "bias", Gen: GenArch(WithBias), Check: func(r *Runner, x ArchCase) theorems.Verdict {
				b, err := x.Build()
				if err != nil {
					return theorems.Assumption("case does not build: %v", err)
				}
				return homogeneity.MultiHomogeneity(homogeneity.PointCase{Model: b.Model, BlockDegrees: b.Blocks, Theta: b.Theta, X: b.X, N: b.N})
			}},
			Property[ArchCase]{Name: "wrong block degree (k₁+1, k₂−1)", Drops: "degree", Gen: GenArch(Homogeneous), Check: func(r *Runner, x ArchCase) theorems.Verdict {
				b, err := x.Build()
				if err != nil {
					return theorems.Assumption("case does not build: %v", err)
				}
				ks := append([]float64(nil), b.Blocks...)
				// Moving one unit of degree between blocks keeps L = Σk_i, so
				// only the per-block identity can see it; a one-block model
				// gets a wrong total instead.
				ks[0]++
				if len(ks) > 1 {
					ks[len(ks)-1]--
				}
				return homogeneity.MultiHomogeneity(homogeneity.PointCase{Model: b.Model, BlockDegrees: ks, Theta: b.Theta, X: b.X, N: b.N})
			}},
			drops("activation-derived", pointProperty("tanh/softplus, L derived", NonHomogeneousAct, derived, homogeneity.MultiHomogeneity)),
		},
		Faults: []FaultControl{
			{Fault: "degree-plus-one", Why: "the first block's Euler identity fails with the declared k₁"},
		},
	})
	es = append(es, Entry{Info: theorems.Info{ID: "ENG-grad"},
		Claims: []Prop{
			Property[ArchCase]{Name: "model gradients ∇Φ", Gen: GenArch(Homogeneous), Check: func(r *Runner, x ArchCase) theorems.Verdict {
				a := x
				c, err := pointCase(a, derived)
				if err != nil {
					return theorems.Assumption("case does not build: %v", err)
				}
				return homogeneity.GradientFD(c, rand.New(rand.NewPCG(a.Seed, 5)))
			}},
			lossProperty("objective gradients ∇ log 𝓛", Homogeneous, false, func(c LossCase) theorems.Verdict {
				obj, b, err := c.Build()
				if err != nil {
					return theorems.Assumption("case does not build: %v", err)
				}
				return homogeneity.ObjectiveGradientFD(obj, b.Theta, rand.New(rand.NewPCG(c.Arch.Seed, 6)))
			}),
		},
		Controls: []Prop{
			// A one-entry first block reads the same reversed, so the planted
			// bug would be a no-op: keep cases whose first block has ≥ 2
			// entries. (Collected from the soak, seed 1795317677944795: a CNN
			// whose first stage is one 1-wide filter, cnn:relu3:1c1-max1,…,
			// has a one-entry first block although its input has 10 positions.)
			Property[ArchCase]{Name: "wrong backward pass (first block's gradient in reversed layout)", Drops: "backward", Gen: GenArch(Homogeneous).SuchThat(firstBlockReversible), Check: func(r *Runner, x ArchCase) theorems.Verdict {
				a := x
				c, err := pointCase(a, derived)
				if err != nil {
					return theorems.Assumption("case does not build: %v", err)
				}
				c.Model = reversedBackward{c.Model}
				return homogeneity.GradientFD(c, rand.New(rand.NewPCG(a.Seed, 5)))
			}},
		},
		Faults: []FaultControl{
			{Fault: "backward-first-block", Why: "backprop disagrees with the finite differences of the same forward pass"},
			{Fault: "fprime-branch", On: "log 𝓛", Why: "the gradient of log 𝓛 disagrees with its finite differences at separated samples"},
		},
	})
	es = append(es, Entry{Info: theorems.Info{ID: "LL-B4"},
		Claims: []Prop{lossProperty("exp, logistic, polynomial tail", Homogeneous, true, func(c LossCase) theorems.Verdict {
			obj, b, err := c.Build()
			if err != nil {
				return theorems.Assumption("case does not build: %v", err)
			}
			return homogeneity.RadialIdentity(obj, b.Theta, 0)
		})},
		Controls: []Prop{drops("bias", lossProperty("bias term, bias-free L declared", WithBias, true, func(c LossCase) theorems.Verdict {
			obj, b, err := c.Build()
			if err != nil {
				return theorems.Assumption("case does not build: %v", err)
			}
			return homogeneity.RadialIdentity(obj, b.Theta, b.Degree)
		}))},
		Faults: []FaultControl{
			{Fault: "backward-first-block", Why: "⟨θ, −∇𝓛⟩ is off by the first block's share, so it is not L·ν"},
		},
	})
	return es
}

// firstBlockReversible reports whether a's model has a first parameter block
// of at least 2 entries, whose reversal changes it (for a gradient with
// distinct entries).
func firstBlockReversible(a ArchCase) bool {
	m, err := models.Parse(a.Spec(), a.in())
	return err == nil && m.Blocks()[0].Len >= 2
}

// reversedBackward is a deliberately wrong engine: it returns the first
// parameter block's gradient in reversed order, the kind of layout bug
// (row- versus column-major) a backward pass can have. ENG-grad must catch it.
type reversedBackward struct{ models.Model }

func (r reversedBackward) Backward(ws models.Workspace, theta, gOut, grad []float64) {
	r.Model.Backward(ws, theta, gOut, grad)
	b := r.Model.Blocks()[0]
	g := grad[b.Offset : b.Offset+b.Len]
	for i, j := 0, len(g)-1; i < j; i, j = i+1, j-1 {
		g[i], g[j] = g[j], g[i]
	}
}

// Pattern forwards the kink pattern of the wrapped model.
func (r reversedBackward) Pattern(ws models.Workspace, dst []byte) []byte {
	if k, ok := r.Model.(models.Kinked); ok {
		return k.Pattern(ws, dst)
	}
	return dst
}
