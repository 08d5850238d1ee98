package faults

import (
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

func withBranchFPrime(l losses.Loss) losses.Loss {
	if b, ok := l.(losses.BinaryLoss); ok {
		return losses.NewBinary(branchFPrime{b.M})
	}
	return l
}
