package homogeneity

import "testing"

// Section A: homogeneity and exact identities, 100 generated cases per claim
// (the minimum) and 50 per negative control.

func TestLL_B2a_Homogeneity(t *testing.T)         { Assert(t, "LL-B2a") }
func TestLL_B2b_GradientHomogeneity(t *testing.T) { Assert(t, "LL-B2b") }
func TestLL_B3_EulerIdentity(t *testing.T)        { Assert(t, "LL-B3") }
func TestLL_B3m_MultiHomogeneity(t *testing.T)    { Assert(t, "LL-B3m") }
func TestENG_grad_FiniteDifferences(t *testing.T) { Assert(t, "ENG-grad") }
func TestLL_B4_RadialIdentity(t *testing.T)       { Assert(t, "LL-B4") }
