package faults

import (
	"math"

	"github.com/implicitbias/implicitbias/losses"
)

// branchFPrime is a margin loss whose f′ is doubled on the branch q > 0
// (the branch a stable implementation computes separately for positive
// margins), while f itself is right: the gradient the objective forms from
// f′ is then not the gradient of the loss it reports.
type branchFPrime struct{ losses.Margin }

func (b branchFPrime) FPrime(q float64) float64 {
	if q > 0 {
		return 2 * b.Margin.FPrime(q)
	}
	return b.Margin.FPrime(q)
}

func (b branchFPrime) DLogLoss(q float64) float64 { return -b.FPrime(q) }

// Unwrap returns the loss the fault stands in for: what the run declares,
// which the checks compute their theory for.
func (b branchFPrime) Unwrap() losses.Margin { return b.Margin }

// underflowing leaves log domain: log ℓ(q) = log(e^{log ℓ(q)}), with ℓ
// floored at the smallest subnormal (5e-324) instead of underflowing to 0
// (so that nothing becomes −Inf; math.Log reads that subnormal as about
// e^{−709} on amd64): past q ≈ 709–745 every loss reads the same floor
// and its f′ reads 0. A plain-float64 engine (LL App. K.2's warning).
type underflowing struct{ losses.Margin }

const smallestSubnormal = 0x1p-1074

func (u underflowing) LogLoss(q float64) float64 {
	return math.Log(math.Max(math.Exp(u.Margin.LogLoss(q)), smallestSubnormal))
}

func (u underflowing) F(q float64) float64 { return -u.LogLoss(q) }

func (u underflowing) FPrime(q float64) float64 {
	if math.Exp(u.Margin.LogLoss(q)) < smallestSubnormal {
		return 0
	}
	return u.Margin.FPrime(q)
}

func (u underflowing) DLogLoss(q float64) float64 { return -u.FPrime(q) }

// Unwrap returns the loss the fault stands in for.
func (u underflowing) Unwrap() losses.Margin { return u.Margin }

func withUnderflow(l losses.Loss) losses.Loss {
	if b, ok := l.(losses.BinaryLoss); ok {
		return losses.NewBinary(underflowing{b.M})
	}
	return l
}

func withBranchFPrime(l losses.Loss) losses.Loss {
	if b, ok := l.(losses.BinaryLoss); ok {
		return losses.NewBinary(branchFPrime{b.M})
	}
	return l
}
