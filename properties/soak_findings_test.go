package properties

import "testing"

// TestSoakFindings reruns, at the seeds where `scripts/soak` found them,
// the property tests that failed (docs/trust.md):
//
//   - seed 1795317677944795: TestGenDataSeparable failed on a dead
//     3-class CNN teacher (cnn:relu2:6c1-max2,1c2:8/3), which DataCase.Build
//     reports as degenerate and every check counts as undecided — the test
//     now does too; and the ENG-grad negative control "wrong backward pass"
//     was not caught on cnn:relu3:1c1-max1,4c3-avg1, whose first parameter
//     block has one entry (reversing it is a no-op) — the control's
//     generator now keeps first blocks of ≥ 2 entries;
//   - seed 1795317677952714: the same control on cnn:relu:1c1-avg2:1/3;
//   - seed 1795317919953440: ZD-T1's control "Adam (leaves the span)" failed
//     on a case whose Adam run ended just short of the interpolation
//     tolerance (inconclusive); runProperty now discards inconclusive
//     control cases as it does claim cases (at most n/10).
func TestSoakFindings(t *testing.T) {
	for _, seed := range []string{"1795317677944795", "1795317677952714", "1795317919953440"} {
		t.Run(seed, func(t *testing.T) {
			t.Setenv("IMPLICITBIAS_SEED", seed)
			t.Run("GenDataSeparable", TestGenDataSeparable)
			t.Run("ENG-grad control", TestENG_grad_FiniteDifferences_NegativeControl)
			if seed == "1795317919953440" {
				t.Run("ZD-T1 control", TestZD_T1_InterpolatorUniqueness_NegativeControl)
			}
		})
	}
}
