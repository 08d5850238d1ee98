package losses

// DeclaredMargin returns the margin loss that l declares: its own
// (MarginOf, then Declared). A check computes its theory for the declared
// loss, never from the implementation it checks.
func DeclaredMargin(l Loss) (Margin, bool) {
	if l == nil {
		return nil, false
	}
	m, ok := MarginOf(l)
	if !ok {
		return nil, false
	}
	return Declared(m), true
}

// Declared returns the margin loss m declares: m, or for a margin that
// stands in for another and says so (Unwrap: a planted fault of package
// faults, which keeps the loss's name and changes its values) the one it
// wraps.
func Declared(m Margin) Margin {
	for {
		w, wraps := m.(interface{ Unwrap() Margin })
		if !wraps {
			return m
		}
		m = w.Unwrap()
	}
}

// IsExponential reports the exponential loss ℓ(u) = e^{−u}.
func IsExponential(m Margin) bool {
	_, ok := m.(Exponential)
	return ok
}
