package properties

import (
	"testing"
)

// Section E: GRW and importance weighting for classification. Direction
// entries run 6 GD cases (2·10⁵ steps each at the quick budget) per claim
// and per control.

func TestZD_T7_GRWDirection(t *testing.T)                 { claims(t, "ZD-T7", 6) }
func TestZD_T7_GRWDirection_NegativeControl(t *testing.T) { controls(t, "ZD-T7", 6) }

func TestZD_T8_RegularizationPath(t *testing.T)                 { claims(t, "ZD-T8", 6) }
func TestZD_T8_RegularizationPath_NegativeControl(t *testing.T) { controls(t, "ZD-T8", 6) }

func TestZD_PT_WeightDependentLimits(t *testing.T)                 { claims(t, "ZD-PT", 8) }
func TestZD_PT_WeightDependentLimits_NegativeControl(t *testing.T) { controls(t, "ZD-PT", 8) }

func TestZD_B_MultiClassDirection(t *testing.T)                 { claims(t, "ZD-B", 6) }
func TestZD_B_MultiClassDirection_NegativeControl(t *testing.T) { controls(t, "ZD-B", 6) }

func TestXY_P1_IWDirection(t *testing.T)                 { claims(t, "XY-P1", 6) }
func TestXY_P1_IWDirection_NegativeControl(t *testing.T) { controls(t, "XY-P1", 6) }
