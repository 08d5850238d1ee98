package losses

import (
	"fmt"
	"strings"
)

// Names lists the loss names ByName accepts.
var Names = []string{"exp", "logistic", "ce", "squared", "poly"}

// ByName returns the loss the CLI calls name: exp, logistic, ce, squared,
// poly (ZD App. C's polynomially tailed loss, α = 1, β = 0), or
// "expr:FORMULA", a binary margin loss read from a formula in q (Expr).
func ByName(name string) (Loss, error) {
	switch name {
	case "exp":
		return NewBinary(Exponential{}), nil
	case "logistic":
		return NewBinary(Logistic{}), nil
	case "poly":
		return NewBinary(ZDPolyTail()), nil
	case "ce":
		return CrossEntropy{}, nil
	case "squared":
		return Squared{}, nil
	}
	if l, ok, err := exprByName(name); ok {
		return l, err
	}
	return nil, fmt.Errorf("unknown loss %q (want one of %s, or expr:FORMULA)", name, strings.Join(Names, ", "))
}

// MarginOf returns the margin loss whose g defines the smoothed margin of l,
// and false for a loss without one (a regression loss).
func MarginOf(l Loss) (Margin, bool) {
	switch v := l.(type) {
	case BinaryLoss:
		return v.M, true
	case CrossEntropy:
		return v.MarginLoss(), true
	}
	return nil, false
}
