package ntk

import (
	"fmt"
	"math/rand/v2"

	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/theorems"
	ntkth "github.com/implicitbias/implicitbias/theorems/ntk"
)

// KernelSweepCase is a ZD-L3 case: the activation, the data and the
// initialization seeds; Bottleneck (the negative control) keeps the first
// hidden layer at 4 units while the second grows, so that not every width
// tends to infinity (Lemma 3's hypothesis).
type KernelSweepCase struct {
	Act        int // ActTanh, ActGELU (an index into ntkActs)
	Data, Init uint64
	Bottleneck bool
	// Fault names an engine fault planted in the network (package
	// faults); empty for the claims.
	Fault string
}

func (c KernelSweepCase) WithFault(name string) any { c.Fault = name; return c }

func (c KernelSweepCase) act() models.Activation {
	return ntkActs[properties.Pick(c.Act, len(ntkActs))]
}

// spec returns the network of width w ("W" in descriptions).
func (c KernelSweepCase) spec(r *properties.Runner, w any) string {
	if c.Bottleneck {
		return fmt.Sprintf("ntk:%s:4-%v", c.act(), w)
	}
	return ntkSpec(c.act(), 2, w)
}

func (c KernelSweepCase) Describe(r *properties.Runner) string {
	s := kernelSize(r)
	return fmt.Sprintf("%s, widths %v, %d seeds, data seed %d, init seed %d", c.spec(r, "W"), s.widths, s.seeds, c.Data, c.Init) + properties.FaultSuffix(c.Fault)
}

// GenKernelSweep generates ZD-L3 cases.
func GenKernelSweep(bottleneck bool) properties.Gen[KernelSweepCase] {
	return genSweep(func(act int, data, init uint64) KernelSweepCase {
		return KernelSweepCase{Act: act, Data: data, Init: init, Bottleneck: bottleneck}
	})
}

// Run computes the Gram matrices Θ^{(0)}(X, X) of every (width, seed), in
// parallel (cached per case and budget: the figures reuse them).
func (c KernelSweepCase) Run(r *properties.Runner) ([]ntkth.KernelWidth, error) {
	return properties.Cache[[]ntkth.KernelWidth](r, "kernelRuns").Get(c.Describe(r)+"/"+r.Budget.String(), func() ([]ntkth.KernelWidth, error) { return c.run(r) })
}

func (c KernelSweepCase) run(r *properties.Runner) ([]ntkth.KernelWidth, error) {
	s := kernelSize(r)
	f, d, err := sweepInputs(c.Fault, c.Data, ntkTest, false)
	if err != nil {
		return nil, err
	}
	out := make([]ntkth.KernelWidth, len(s.widths))
	for i, w := range s.widths {
		out[i] = ntkth.KernelWidth{Width: w, Grams: make([][]float64, s.seeds)}
	}
	errs := make([]error, len(s.widths)*s.seeds)
	properties.RunParallel(len(errs), func(j int) {
		i, k := j/s.seeds, j%s.seeds
		net, err := buildNTK(c.spec(r, s.widths[i]), f)
		if err != nil {
			errs[j] = err
			return
		}
		theta := make([]float64, net.NumParams())
		net.Init(rand.New(rand.NewPCG(c.Init+uint64(k), uint64(s.widths[i]))), theta)
		g := make([]float64, NTKN*NTKN)
		net.Kernel(theta, d.train.X, NTKN, d.train.X, NTKN, g)
		out[i].Grams[k] = g
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (c KernelSweepCase) check(r *properties.Runner) theorems.Verdict {
	ws, err := c.Run(r)
	if err != nil {
		return properties.BuildFailed(err)
	}
	return ntkth.NTKConcentration(NTKN, ws)
}
