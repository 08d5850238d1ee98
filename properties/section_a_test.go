package properties

import "testing"

// Section A: homogeneity and exact identities, 100 generated cases per claim
// (the minimum) and 50 per negative control.

func TestLL_B2a_Homogeneity(t *testing.T)                 { claims(t, "LL-B2a", 100) }
func TestLL_B2a_Homogeneity_NegativeControl(t *testing.T) { controls(t, "LL-B2a", 50) }

func TestLL_B2b_GradientHomogeneity(t *testing.T)                 { claims(t, "LL-B2b", 100) }
func TestLL_B2b_GradientHomogeneity_NegativeControl(t *testing.T) { controls(t, "LL-B2b", 50) }

func TestLL_B3_EulerIdentity(t *testing.T)                 { claims(t, "LL-B3", 100) }
func TestLL_B3_EulerIdentity_NegativeControl(t *testing.T) { controls(t, "LL-B3", 50) }

func TestLL_B3m_MultiHomogeneity(t *testing.T)                 { claims(t, "LL-B3m", 100) }
func TestLL_B3m_MultiHomogeneity_NegativeControl(t *testing.T) { controls(t, "LL-B3m", 50) }

func TestENG_grad_FiniteDifferences(t *testing.T)                 { claims(t, "ENG-grad", 100) }
func TestENG_grad_FiniteDifferences_NegativeControl(t *testing.T) { controls(t, "ENG-grad", 50) }

func TestLL_B4_RadialIdentity(t *testing.T)                 { claims(t, "LL-B4", 100) }
func TestLL_B4_RadialIdentity_NegativeControl(t *testing.T) { controls(t, "LL-B4", 50) }
