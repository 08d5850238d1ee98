package homogeneity

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/theorems"
	homogeneityth "github.com/implicitbias/implicitbias/theorems/homogeneity"
)

// Section A of the catalog: homogeneity and exact identities.

// pointCase builds the PointCase of an architecture; declared selects the
// degree the user declares (0: derive it from the architecture).
func pointCase(a cases.ArchCase, declared func(cases.Built) float64) (homogeneityth.PointCase, error) {
	b, err := a.Build()
	if err != nil {
		return homogeneityth.PointCase{}, err
	}
	c := homogeneityth.PointCase{Model: b.Model, Theta: b.Theta, X: b.X, N: b.N}
	if declared != nil {
		c.Degree = declared(b)
	}
	return c, nil
}

func derived(cases.Built) float64          { return 0 }
func biasFreeDegree(b cases.Built) float64 { return b.Degree }
func degreePlusOne(b cases.Built) float64  { return b.Degree + 1 }

// pointProperty turns a check of a PointCase into a Property over
// architectures.
func pointProperty(name string, v cases.Variant, declared func(cases.Built) float64, check func(homogeneityth.PointCase) theorems.Verdict) properties.Property[cases.ArchCase] {
	return properties.Property[cases.ArchCase]{Name: name, Gen: cases.GenArch(v), Check: func(r *properties.Runner, x cases.ArchCase) theorems.Verdict {
		c, err := pointCase(x, declared)
		if err != nil {
			return theorems.Assumption("case does not build: %v", err)
		}
		if r.Engine != nil { // the engine under test answers Φ and ∇Φ at θ
			m, err := r.Evaluated(fmt.Sprintf("Φ %v", x), c.Model, c.X, c.N, c.Theta)
			if v, ok := properties.EngineVerdict(err); ok {
				return v
			}
			if err != nil {
				return theorems.Assumption("case does not evaluate: %v", err)
			}
			c.Model = m
		}
		return check(c)
	}}
}

func scaledProperty(name string, v cases.Variant, declared func(cases.Built) float64, check func(homogeneityth.PointCase, float64) theorems.Verdict) properties.Property[cases.ScaledCase] {
	return properties.Property[cases.ScaledCase]{Name: name, Gen: cases.GenScaled(v, v != cases.Homogeneous), Check: func(r *properties.Runner, x cases.ScaledCase) theorems.Verdict {
		sc := x
		c, err := pointCase(sc.Arch, declared)
		if err != nil {
			return theorems.Assumption("case does not build: %v", err)
		}
		s := math.Pow(10, sc.LogScale)
		if r.Engine != nil { // the engine under test answers Φ and ∇Φ at θ and sθ (as the checks scale it)
			scaled := make([]float64, len(c.Theta))
			floats.ScaleTo(scaled, s, c.Theta)
			m, err := r.Evaluated(fmt.Sprintf("Φ %v", x), c.Model, c.X, c.N, c.Theta, scaled)
			if v, ok := properties.EngineVerdict(err); ok {
				return v
			}
			if err != nil {
				return theorems.Assumption("case does not evaluate: %v", err)
			}
			c.Model = m
		}
		return check(c, s)
	}}
}

func lossProperty(name string, v cases.Variant, binary bool, check func(cases.LossCase) theorems.Verdict) properties.Property[cases.LossCase] {
	return properties.Property[cases.LossCase]{Name: name, Gen: cases.GenLoss(v, binary), Check: func(r *properties.Runner, x cases.LossCase) theorems.Verdict {
		return check(x)
	}}
}

// radialProperty checks LL-B4's radial identity on binary loss cases with
// the degree declared (0: derived); under another engine the objective's
// Φ and ∇Φ at the case's θ are the engine's, the loss ours.
func radialProperty(name string, v cases.Variant, declared func(cases.Built) float64) properties.Property[cases.LossCase] {
	return properties.Property[cases.LossCase]{Name: name, Gen: cases.GenLoss(v, true), Check: func(r *properties.Runner, x cases.LossCase) theorems.Verdict {
		obj, b, err := x.Build()
		if err != nil {
			return theorems.Assumption("case does not build: %v", err)
		}
		if r.Engine != nil {
			obj, err = r.EvaluatedObjective(fmt.Sprintf("Φ %v", x), obj, b.Theta)
			if v, ok := properties.EngineVerdict(err); ok {
				return v
			}
			if err != nil {
				return theorems.Assumption("case does not evaluate: %v", err)
			}
		}
		return homogeneityth.RadialIdentity(obj, b.Theta, declared(b))
	}}
}

// Entries returns the entries of catalog section A, unbound (suite.Entries
// and properties.Bind add their catalog Info and fault controls).
func Entries() (es []properties.Entry) {
	es = append(es, properties.Entry{Info: theorems.Info{ID: "LL-B2a"},
		Claims: []properties.Prop{scaledProperty("homogeneous architectures", cases.Homogeneous, derived, homogeneityth.Homogeneity)},
		Controls: []properties.Prop{
			properties.Drops("bias", scaledProperty("bias term, bias-free L declared", cases.WithBias, biasFreeDegree, homogeneityth.Homogeneity)),
			properties.Drops("bias-derived", scaledProperty("bias term, L derived", cases.WithBias, derived, homogeneityth.Homogeneity)),
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "LL-B2b"},
		Claims: []properties.Prop{scaledProperty("homogeneous architectures", cases.Homogeneous, derived, homogeneityth.GradientHomogeneity)},
		Controls: []properties.Prop{
			properties.Drops("activation", scaledProperty("tanh/softplus, ReLU's L declared", cases.NonHomogeneousAct, biasFreeDegree, homogeneityth.GradientHomogeneity)),
			properties.Drops("activation-derived", scaledProperty("tanh/softplus, L derived", cases.NonHomogeneousAct, derived, homogeneityth.GradientHomogeneity)),
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "LL-B3"},
		Claims: []properties.Prop{pointProperty("homogeneous architectures", cases.Homogeneous, derived, homogeneityth.EulerIdentity)},
		Controls: []properties.Prop{
			properties.Drops("bias", pointProperty("bias term, bias-free L declared", cases.WithBias, biasFreeDegree, homogeneityth.EulerIdentity)),
			properties.Drops("activation", pointProperty("tanh/softplus, ReLU's L declared", cases.NonHomogeneousAct, biasFreeDegree, homogeneityth.EulerIdentity)),
			properties.Drops("degree", pointProperty("wrong declared L (L+1)", cases.Homogeneous, degreePlusOne, homogeneityth.EulerIdentity)),
			properties.Drops("bias-derived", pointProperty("bias term, L derived", cases.WithBias, derived, homogeneityth.EulerIdentity)),
		},
		Faults: []properties.FaultControl{
			{Fault: "degree-plus-one", Why: "the Euler identity ⟨θ, ∇Φ⟩ = L·Φ fails with the declared L"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "LL-B3m"},
		Claims: []properties.Prop{pointProperty("homogeneous architectures", cases.Homogeneous, derived, homogeneityth.MultiHomogeneity)},
		Controls: []properties.Prop{
			properties.Property[cases.ArchCase]{Name: "bias term, bias-free block degrees declared", Drops: "bias", Gen: cases.GenArch(cases.WithBias), Check: func(r *properties.Runner, x cases.ArchCase) theorems.Verdict {
				b, err := x.Build()
				if err != nil {
					return theorems.Assumption("case does not build: %v", err)
				}
				return homogeneityth.MultiHomogeneity(homogeneityth.PointCase{Model: b.Model, BlockDegrees: b.Blocks, Theta: b.Theta, X: b.X, N: b.N})
			}},
			properties.Property[cases.ArchCase]{Name: "wrong block degree (k₁+1, k₂−1)", Drops: "degree", Gen: cases.GenArch(cases.Homogeneous), Check: func(r *properties.Runner, x cases.ArchCase) theorems.Verdict {
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
				return homogeneityth.MultiHomogeneity(homogeneityth.PointCase{Model: b.Model, BlockDegrees: ks, Theta: b.Theta, X: b.X, N: b.N})
			}},
			properties.Drops("activation-derived", pointProperty("tanh/softplus, L derived", cases.NonHomogeneousAct, derived, homogeneityth.MultiHomogeneity)),
		},
		Faults: []properties.FaultControl{
			{Fault: "degree-plus-one", Why: "the first block's Euler identity fails with the declared k₁"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "ENG-grad"},
		Claims: []properties.Prop{
			properties.Property[cases.ArchCase]{Name: "model gradients ∇Φ", Gen: cases.GenArch(cases.Homogeneous), Check: func(r *properties.Runner, x cases.ArchCase) theorems.Verdict {
				a := x
				c, err := pointCase(a, derived)
				if err != nil {
					return theorems.Assumption("case does not build: %v", err)
				}
				return homogeneityth.GradientFD(c, rand.New(rand.NewPCG(a.Seed, 5)))
			}},
			lossProperty("objective gradients ∇ log 𝓛", cases.Homogeneous, false, func(c cases.LossCase) theorems.Verdict {
				obj, b, err := c.Build()
				if err != nil {
					return theorems.Assumption("case does not build: %v", err)
				}
				return homogeneityth.ObjectiveGradientFD(obj, b.Theta, rand.New(rand.NewPCG(c.Arch.Seed, 6)))
			}),
		},
		Controls: []properties.Prop{
			// A one-entry first block reads the same reversed, so the planted
			// bug would be a no-op: keep cases whose first block has ≥ 2
			// entries. (Collected from the soak, seed 1795317677944795: a CNN
			// whose first stage is one 1-wide filter, cnn:relu3:1c1-max1,…,
			// has a one-entry first block although its input has 10 positions.)
			properties.Property[cases.ArchCase]{Name: "wrong backward pass (first block's gradient in reversed layout)", Drops: "backward", Gen: cases.GenArch(cases.Homogeneous).SuchThat(FirstBlockReversible), Check: func(r *properties.Runner, x cases.ArchCase) theorems.Verdict {
				a := x
				c, err := pointCase(a, derived)
				if err != nil {
					return theorems.Assumption("case does not build: %v", err)
				}
				c.Model = reversedBackward{c.Model}
				return homogeneityth.GradientFD(c, rand.New(rand.NewPCG(a.Seed, 5)))
			}},
		},
		Faults: []properties.FaultControl{
			{Fault: "backward-first-block", Why: "backprop disagrees with the finite differences of the same forward pass"},
			{Fault: "fprime-branch", On: "log 𝓛", Why: "the gradient of log 𝓛 disagrees with its finite differences at separated samples"},
		},
	})
	es = append(es, properties.Entry{Info: theorems.Info{ID: "LL-B4"},
		Claims:   []properties.Prop{radialProperty("exp, logistic, polynomial tail", cases.Homogeneous, derived)},
		Controls: []properties.Prop{properties.Drops("bias", radialProperty("bias term, bias-free L declared", cases.WithBias, biasFreeDegree))},
		Faults: []properties.FaultControl{
			{Fault: "backward-first-block", Why: "⟨θ, −∇𝓛⟩ is off by the first block's share, so it is not L·ν"},
		},
	})
	return es
}

// FirstBlockReversible reports whether a's model has a first parameter block
// of at least 2 entries, whose reversal changes it (for a gradient with
// distinct entries).
func FirstBlockReversible(a cases.ArchCase) bool {
	m, err := models.Parse(a.Spec(), a.InDim())
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
