package properties

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// TestSoakFindings reruns, at the seeds where `scripts/soak` found them,
// the property tests that failed (docs/trust.md). The findings whose case
// is kept as a literal instead (ENG-grad's, LL-G's and LL-4.2's controls
// on linear nets, LL-K1's stalls, ZD-L3's GELU sweeps, the dead teacher:
// TestSoakCases, TestSoakDeadTeacher,
// TestSoakCasesOutsideBackwardControl) are
// no longer rerun here; the list keeps their history:
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
//     control cases as it does claim cases;
//   - seeds 1795317920000954 (and 1795317919961359, …77197, …85116,
//     …08873): LL-4.4 on GD's linear runs gave up at 8 passes and 1–3
//     inconclusive cases (ε not yet halved, about 7% of cases): runProperty
//     then allowed max(3, n/10);
//   - seed 1795317919969278: LL-4.1's too-large-step control was reported
//     falsified on a 1-D linear case (whose direction cannot move) that
//     gopter had shrunk from an inconclusive case; discarded now;
//   - seed 1795317919993035: LL-F's control panicked (integer divide by
//     zero) while shrinking a case to 2 classes with only cross-entropy in
//     its loss list; FlowCase.Build now reports that case degenerate
//     (TestFlowCaseNoBinaryLoss); and LL-4.5 on deep linear GD gave up at
//     2 inconclusive cases of 10;
//   - seed 1795327227060551: LL-G's too-large-step control was not caught
//     on a 2-layer identity-activation net in 2-D (mlp:id:2x5 in=2 N=14),
//     on which γ̃ grew at every one of the 100 overshooting steps: there
//     was no violation to see. The control now counts such a run as
//     undecided, after an independent recomputation of γ̃ from the records
//     (largestDrop) finds no decrease (TestLargestDrop,
//     TestBigStepControlCatchesAMiss);
//   - seed 1795336477017030: XY-P2 reported the S^⊥ residual of a
//     non-separable case doubling (8.4 → 16.7) while Π_S θ was still up to
//     7.5 from θ̃(w) in the first half of the run; the separable samples'
//     margins carry that distance, and the residual with it: such a growth
//     is now undecided (theorems.finiteTransient, TestNonSeparableLimit);
//   - seed 1795335282021364: ENG-grad's model gradients were 6e-6 off
//     central differences on a degree-7 CNN (cnn:relu2:6c1,5c3-max1:8/2) at
//     a point where ‖∇Φ‖ = 4e-8: the differences' truncation error h²f‴/6
//     (it fell 4× per halving of h; the engine was right). The check now
//     uses the fourth-order stencil (TestFDCompareHighCurvature);
//   - seed 1795336113000100: XY-P2's wrong-weights control missed a case
//     whose D_nonsep pair had nearly equal weights (θ̃(w) 0.0099 from
//     θ̃(1)); the control's cases now weight each pair M and 1/M
//     (NonSepCase.Spread);
//   - seed 1795336113008019: ZD-T8's path under Group DRO's limit weights
//     (q = 1e-9 on a support vector) reached its bounded residual only at
//     R ≈ 10⁵, past the test's first half: the test now also allows the
//     residual's computed limit ‖δ_∞‖ (theorems.pathOffset,
//     TestPathAgreementWeights);
//   - seed 1795337506107226: LL-K1's loss-based schedule stalled on a
//     3-layer ReLU net at log 𝓛 = 0.286 (η = e^{−36}, never separated) and
//     the check read the unseparated end as γ̃ ∉ (0, γ̄]: a stall before
//     separation is now undecided (LL App. K.1 starts from a separated
//     point; TestLossBasedScheduleSynthetic);
//   - seed 1795337506035955: LL-4.2's too-large-step control, like LL-G's
//     above, on a 2-D deep linear net whose γ̂ grew at every overshooting
//     step: undecided now after an independent recomputation of γ̂ from
//     the records (largestHatDrop, TestLargestHatDrop);
//   - seed 1795337506233930: LL-K1 again, a ReLU³ net stalled before
//     separating (covered by the fix for 1795337506107226);
//   - seed 1795337506210173: ZD-T4/L5's q_0 = 0 control: the test's own
//     assertion required the first sampled case to be violated, and its
//     3-seed slope fit was inconclusive; it now takes the first decided of
//     up to three cases, as the harness does;
//   - seed 1795337506059712: LL-lin's residual rose 1.17 → 2.67 on data
//     with two samples just off the margin (margins 1.09, 1.12): their
//     pull decays like T^{−0.09} and was still moving the residual. A
//     growth that such a decaying pull explains (theorems' pullGrowth) is
//     now undecided (TestResidualGrowthOffMargin);
//   - seed 1795337506020117: ZD-T7's Fenchel–Young gap rose 0.076 → 0.183
//     towards its computed limit 0.181 (theorems' gapLimit, from the
//     tangent offset δ_∞ under the run's weights): the test now compares
//     the end with max(first half, limit) (TestGapLimit);
//   - seed 1795337506336877: XY-P2's finite part ended 4.2 (160 on the
//     unshrunk case) from θ̃(w) on data whose two D_nonsep pairs were 0.008
//     from collinear: F is nearly flat along one direction of S (ω = 10⁻⁴,
//     cω·T = 0.03 at the first window), so the run was far too short for
//     the proved rate to show; such a run is now undecided
//     (theorems' slowFinitePart, TestSlowFinitePart);
//   - seed 1795342569138253: ENG-grad's objective gradients on a squared
//     loss of one sample near its fit: log F is singular ~1/‖∇ log F‖ =
//     3.7e-5 away, and the fourth-order differences at h = 6e-6 were 3e-4
//     off (the engine was right); the step is now at most 1% of that
//     distance (TestObjectiveFDNearAFit). Shrinking the failing case then
//     panicked on a negative loss index (TestPickNegative);
//   - seed 1795342569154091: the same ENG-grad case family, and ZD-T7's
//     residual rose 0.71 → 1.42 (ratio 2.0) towards its computed limit
//     2.14 (three support vectors, schedule A1): the residual test now
//     compares the end with max(first half, ‖r_∞‖), r_∞ the residual's
//     limit (theorems' residualLimit, TestResidualLimit);
//   - seed 1795345548068000: XY-P1's polynomial-tail control (α = 1) went
//     10.4 → 30.2 against a computed limit of 19.4 (two support vectors
//     with little tangent spread): the section-E direction controls use
//     α = 1/2 now (72 at the end);
//   - seed 1795345548060081: LL-K1's loss-based schedule stalled after
//     separating, at log 𝓛 = −1390 with α = 5.5e-17, on a 3-layer
//     LeakyReLU net: a stall on a kinked network is undecided (LL's GD
//     analysis assumes C²; TestLossBasedScheduleSynthetic);
//   - seed 1795347598097907: XY-P2's wrong-weights control held (1.45) on
//     a case whose finite part's slowest mode had not relaxed by the first
//     window: slowFinitePart now makes the finite test undecided there
//     whatever it says, and reads T at the window's end (it had read it
//     at the record of the window's largest value) (TestSlowFinitePart);
//   - seeds 1795347598058312 (LL-4.4) and 1795347598050393 (LL-A9): the
//     linear-GD claims gave up at 4 inconclusive cases (ε or 1 − β not yet
//     halved; 10% and 13% of cases at η = 0.05). The linear family now
//     runs at η = 1 (KKTCase.pilotLR; 7.3% and 3.7%) and the two claims
//     declare their measured rates, from which the harness sizes their
//     allowance (DiscardAllowance: 7 and 5; TestUndecidedRates);
//   - seeds 1795352410080667 and 1795352410120262: ZD-L3 on GELU sweeps
//     reported slopes −0.876 ± 0.124 and −0.870 ± 0.107: the fit was
//     weighted by delta-method standard errors estimated from the same
//     seeds, which understated the slope's error; it is now least squares
//     with a jackknife standard error over the seeds, at a two-sided
//     false-alarm rate of 1e-4 (TestNTKConcentrationCalibration);
//   - seed 1795352410104424: XY-P2's wrong-weights control held on a case
//     whose finite part's slowest mode had relaxed past cω·T = 1/2 but not
//     far enough for a wrong limit to show (break-even ≈ 0.65): the finite
//     test now decides only from cω·T = 2 (TestSlowFinitePart);
//   - seed 1795354210101905: ENG-grad's backward control gave up at 6
//     discards of 5 allowed, all of them draws its filtered generator
//     rejected, which the harness had begun to count as discards (forAll
//     now draws again); and ZD-L3's control test required its first case
//     to be violated while the jackknife left it undecided (−0.434 ± 1.23;
//     3 of 100 bottleneck cases are): the first decided of three now.
func TestSoakFindings(t *testing.T) {
	for _, tc := range []struct {
		seed  string
		tests map[string]func(*testing.T)
	}{
		{"1795317919953440", map[string]func(*testing.T){"ZD-T1 control": soakRun(1795317919953440, "ZD-T1", controls, 25)}},
		{"1795317920000954", map[string]func(*testing.T){"LL-4.4": soakRun(1795317920000954, "LL-4.4", claims, 8)}},
		{"1795317919969278", map[string]func(*testing.T){"LL-4.1 control": soakRun(1795317919969278, "LL-4.1", controls, 20)}},
		{"1795317919993035", map[string]func(*testing.T){"LL-F control": soakRun(1795317919993035, "LL-F", controls, 10), "LL-4.5": soakRun(1795317919993035, "LL-4.5", claims, 8)}},
		{"1795336477017030", map[string]func(*testing.T){"XY-P2": soakRun(1795336477017030, "XY-P2", claims, 3)}},
		{"1795336113000100", map[string]func(*testing.T){"XY-P2 control": soakRun(1795336113000100, "XY-P2", controls, 3)}},
		{"1795336113008019", map[string]func(*testing.T){"ZD-T8": soakRun(1795336113008019, "ZD-T8", claims, 5)}},
		{"1795337506210173", map[string]func(*testing.T){"ZD-T4/L5 control": soakRun(1795337506210173, "ZD-T4/L5", controls, 1)}},
		{"1795337506059712", map[string]func(*testing.T){"LL-lin": soakRun(1795337506059712, "LL-lin", claims, 8), "LL-lin control": soakRun(1795337506059712, "LL-lin", controls, 8)}},
		{"1795337506020117", map[string]func(*testing.T){"ZD-T7": soakRun(1795337506020117, "ZD-T7", claims, 5)}},
		{"1795337506336877", map[string]func(*testing.T){"XY-P2": soakRun(1795337506336877, "XY-P2", claims, 3)}},
		{"1795342569154091", map[string]func(*testing.T){"ZD-T7": soakRun(1795342569154091, "ZD-T7", claims, 5)}},
		{"1795345548068000", map[string]func(*testing.T){"XY-P1 control": soakRun(1795345548068000, "XY-P1", controls, 5)}},
		{"1795347598097907", map[string]func(*testing.T){"XY-P2 control": soakRun(1795347598097907, "XY-P2", controls, 3)}},
		{"1795347598058312", map[string]func(*testing.T){"LL-4.4": soakRun(1795347598058312, "LL-4.4", claims, 8)}},
		{"1795347598050393", map[string]func(*testing.T){"LL-A9": soakRun(1795347598050393, "LL-A9", claims, 8)}},
		{"1795352410104424", map[string]func(*testing.T){"XY-P2 control": soakRun(1795352410104424, "XY-P2", controls, 3)}},
		{"1795354210101905", map[string]func(*testing.T){"ENG-grad control": soakRun(1795354210101905, "ENG-grad", controls, 50), "ZD-L3 control": soakRun(1795354210101905, "ZD-L3", controls, 1)}},
		// The soaks of the fault registry (2026-11-25, docs/trust.md).
		{"1795647940959338", map[string]func(*testing.T){"ZD-T8": soakRun(1795647940959338, "ZD-T8", claims, 5)}},
		{"1795647940951419", map[string]func(*testing.T){"loss-underflow/LL-K1": faultPair(1795647940951419, "loss-underflow", "LL-K1"), "flow-error/LL-F": faultPair(1795647940951419, "flow-error-underreported", "LL-F")}},
		{"1795647940943500", map[string]func(*testing.T){"preconditioner/LL-4.4": faultPair(1795647940943500, "preconditioner", "LL-4.4"), "weights-ignored/XY-P2": faultPair(1795647940943500, "weights-ignored", "XY-P2")}},
		{"1795648796969825", map[string]func(*testing.T){"fprime-branch/ENG-grad": faultPair(1795648796969825, "fprime-branch", "ENG-grad")}},
		{"1795648797183638", map[string]func(*testing.T){"LL-4.5": soakRun(1795648797183638, "LL-4.5", claims, 8)}},
	} {
		t.Run(tc.seed, func(t *testing.T) {
			for name, f := range tc.tests {
				t.Run(name, f)
			}
		})
	}
}

// TestSoakCases keeps cases that soak runs found failing as literal values
// (as gonum's lp/simplex_test.go keeps "cases collected from failures
// during randomized testing"), not as seeds, whose draws change when a
// generator does: each is judged by the property it failed, which must now
// give the wanted verdict. (TestSoakFindings still reruns the seeds of the
// other findings; moving them here is issue 22's item 5.)
func TestSoakCases(t *testing.T) {
	r := testRunner(t)
	for _, tc := range []struct {
		seed     string // the soak seed that found it (docs/trust.md)
		id, name string // the entry and its property
		c        any
		want     theorems.Status
	}{
		// A degree-7 CNN, cnn:relu2:6c1,5c3-max1:8/2, where ‖∇Φ‖ = 4e-8: the
		// second-order differences' truncation error was 6e-6.
		{"1795335282021364", "ENG-grad", "model gradients ∇Φ",
			ArchCase{Family: 3, Depth: 4, Width: 38, Act: 3, In: 3, Outputs: 2, Samples: 3, Conv: 2, Seed: 0x54e853ecf3a32217}, theorems.Holds},
		// Squared losses on one sample near its fit (mlp:lrelu0.1:3x55,
		// cnn:relu2:4c2,2c1:8): log F is singular 3.7e-5 away.
		{"1795342569138253", "ENG-grad", "objective gradients ∇ log 𝓛",
			LossCase{Arch: ArchCase{Family: 2, Depth: 3, Width: 55, Act: 1, In: 2, Outputs: 4, Samples: 1, Conv: 2, Seed: 0xf5d263b72a30e096}, Loss: 4}, theorems.Holds},
		{"1795342569154091", "ENG-grad", "objective gradients ∇ log 𝓛",
			LossCase{Arch: ArchCase{Family: 3, Depth: 3, Width: 43, Act: 3, In: 5, Outputs: 4, Samples: 1, Conv: 2, Seed: 0xcc47b97287dc0bb}, Loss: 4}, theorems.Holds},
		// The too-large-step controls on linear nets in 2-D (mlp:id:2x5 in=2
		// N=14; deeplinear:2x9 in=2), on which the margin grew at every
		// overshooting step: no violation to see, so undecided (the
		// independent recomputation from the records finds no drop), not a
		// miss.
		{"1795327227060551", "LL-G", "GD with η = max(100/κ, ρ₀/‖∇𝓛‖)",
			FlowCase{Data: DataCase{Teacher: ArchCase{Family: 2, Depth: 2, Width: 5, Act: 6, In: 2, Samples: 1, Seed: 0xbb6ef8a975e7cf71}, N: 14, Classes: 2, Separable: true, MarginFrac: 0.26699454493397917},
				Loss: 2, Losses: []string{"exp", "logistic", "ce"}, Noise: 0.122373859793186, Seed: 0xdd65f7e782bc92f3}, theorems.Inconclusive},
		{"1795337506035955", "LL-4.2", "too-large η: GD with η = max(100/κ, ρ₀/‖∇𝓛‖) at every step",
			FlowCase{Data: DataCase{Teacher: ArchCase{Family: 1, Depth: 2, Width: 9, Act: 5, In: 2, Samples: 1, Seed: 0x166f9df161f42bc8}, N: 9, Classes: 2, Separable: true, MarginFrac: 0.25486110020090447},
				Losses: []string{"exp"}, Noise: 0.2565780521321184, Seed: 0x4dee95f381b02c54}, theorems.Inconclusive},
		// LL-K1's loss-based schedule stalled: before separating (mlp:relu:3x5,
		// mlp:relu3:2x4), which LL App. K.1 does not cover (it starts from a
		// separated point), and after separating on a kinked net
		// (mlp:lrelu0.1:3x6), which LL's GD analysis (C²) does not cover:
		// undecided, not violated.
		{"1795337506107226", "LL-K1", "loss-based schedule, every homogeneous activation, exp and logistic",
			FlowCase{Data: DataCase{Teacher: ArchCase{Family: 2, Depth: 3, Width: 5, In: 5, Samples: 1, Seed: 0xe894ba65169e3858}, N: 13, Classes: 2, Separable: true, MarginFrac: 0.35864995394650523},
				Losses: []string{"exp", "logistic"}, Noise: 0.2059246716497557, Seed: 0x2af47ff1d5cae79c}, theorems.Inconclusive},
		{"1795337506233930", "LL-K1", "loss-based schedule, every homogeneous activation, exp and logistic",
			FlowCase{Data: DataCase{Teacher: ArchCase{Family: 2, Depth: 2, Width: 4, Act: 4, In: 3, Samples: 1, Seed: 0x8e9b5e1ac502c6d6}, N: 12, Classes: 2, Separable: true, MarginFrac: 0.10590232092545786},
				Losses: []string{"exp", "logistic"}, Noise: 0.2914702566861793, Seed: 0xb251adf9729d4f8b}, theorems.Inconclusive},
		{"1795345548060081", "LL-K1", "loss-based schedule, every homogeneous activation, exp and logistic",
			FlowCase{Data: DataCase{Teacher: ArchCase{Family: 2, Depth: 3, Width: 6, Act: 1, In: 2, Samples: 1, Seed: 0x7deca4107b33035}, N: 15, Classes: 2, Separable: true, MarginFrac: 0.42092098235300335},
				Losses: []string{"exp", "logistic"}, Noise: 0.17532852410738403, Seed: 0x4618198dfe31ba79}, theorems.Inconclusive},
		// GELU sweeps whose slopes (−0.876, −0.870) the delta-method fit
		// rejected: its standard errors understated the slope's error; the
		// jackknife's interval holds them.
		{"1795352410080667", "ZD-L3", "two hidden layers of width d̃ (tanh, GELU), ZD eq. (9) init",
			KernelSweepCase{Act: 1, Data: 0x48a85882125f713c, Init: 0xee7b02b598a716b}, theorems.Holds},
		{"1795352410120262", "ZD-L3", "two hidden layers of width d̃ (tanh, GELU), ZD eq. (9) init",
			KernelSweepCase{Act: 1, Data: 0xb8cee5680f0cea1c, Init: 0xed0c2d86c56bfd68}, theorems.Holds},
	} {
		t.Run(tc.seed+"/"+tc.id, func(t *testing.T) {
			var p Prop
			e := entry(t, tc.id)
			for _, q := range append(append([]Prop(nil), e.Claims...), e.Controls...) {
				if q.Meta().Name == tc.name {
					p = q
				}
			}
			if p == nil {
				t.Fatalf("%s has no property %q", tc.id, tc.name)
			}
			if v := p.Verdict(r, tc.c); v.Status != tc.want {
				t.Errorf("%v: %v, want %v", tc.c, v, tc.want)
			}
		})
	}
}

// TestSoakCasesOutsideBackwardControl: the cases on which ENG-grad's
// "wrong backward pass" control was not caught (soak seeds
// 1795317677944795, 1795317677952714: cnn:relu3:1c1-max1,4c3-avg1 and
// cnn:relu:1c1-avg2:1/3) have a one-entry first block, whose reversal is
// no fault at all; the control's generator leaves them out.
func TestSoakCasesOutsideBackwardControl(t *testing.T) {
	for _, c := range []ArchCase{
		{Family: 3, Depth: 2, Width: 27, Act: 4, In: 10, Outputs: 1, Samples: 1, Conv: 2, Seed: 0x6dcb378177552085},
		{Family: 3, Depth: 4, Width: 1, Act: 0, In: 2, Outputs: 3, Samples: 2, Conv: 1, Seed: 0xfde0cb087d9cfbef},
	} {
		if firstBlockReversible(c) {
			t.Errorf("%v: the backward control would draw it", c)
		}
	}
}

// TestSoakDeadTeacher: the dead 3-class CNN teacher on which
// TestGenDataSeparable failed (soak seed 1795317677944795,
// cnn:relu2:6c1-max2,1c2:8/3) is reported degenerate, which every check
// counts as undecided.
func TestSoakDeadTeacher(t *testing.T) {
	c := DataCase{Teacher: ArchCase{Family: 3, Depth: 3, Width: 28, Act: 3, In: 4, Samples: 1, Conv: 2, Seed: 0x1a3b6a5ee6d6f0ad}, N: 34, Classes: 3, Separable: true, MarginFrac: 0.09930859695980102}
	if _, _, _, err := c.Build(); !errors.Is(err, errDegenerate) {
		t.Fatalf("%v: Build: %v, want errDegenerate", c, err)
	}
}

// TestFlowCaseNoBinaryLoss: a flow case with two classes and only
// cross-entropy in its loss list (gopter shrinks LL-F's 3-class cases to
// it) is degenerate, not a panic.
func TestFlowCaseNoBinaryLoss(t *testing.T) {
	c := FlowCase{Data: DataCase{Teacher: ArchCase{}, N: 4, Classes: 2, Separable: true, MarginFrac: 0.2}, Losses: []string{"ce"}, Noise: 0.1}
	_, _, err := c.Build()
	if !errors.Is(err, errDegenerate) {
		t.Fatalf("Build: got %v, want errDegenerate", err)
	}
	_ = c.String()
}

// TestPickNegative: gopter's integer shrinker tries negative indices; every
// case's choice of loss, activation or model stays in range (soak seed
// 1795342569138253 panicked on LossCase.Loss = −2).
func TestPickNegative(t *testing.T) {
	for _, c := range []struct{ i, n, want int }{{-2, 5, 3}, {-5, 5, 0}, {7, 5, 2}, {0, 3, 0}, {-1, 2, 1}} {
		if got := pick(c.i, c.n); got != c.want {
			t.Errorf("pick(%d, %d) = %d, want %d", c.i, c.n, got, c.want)
		}
	}
	lc := LossCase{Arch: ArchCase{Family: 1, Depth: 2, Width: 3, In: 2, Act: -3}, Loss: -2}
	_ = lc.String()
	kc := KKTCase{Loss: -1}
	if kc.loss() != "logistic" {
		t.Errorf("KKTCase{Loss: -1}.loss() = %q", kc.loss())
	}
}

// faultPair runs one declared (fault, claim) pair of TestFaultPower at
// seed.
func faultPair(seed int64, fault, claim string) func(*testing.T) {
	return func(t *testing.T) {
		row, err := MeasurePower(context.Background(), NewRunner(seed, testRunner(t).Budget), entry(t, claim), fault)
		if err != nil {
			t.Fatal(err)
		}
		if !row.OK() {
			t.Errorf("%s against %s: %d of %d violated; first miss: %s", fault, claim, row.Violated, row.Cases, row.Missed)
		}
	}
}

// Which properties of an entry soakRun runs.
const (
	claims   = false
	controls = true
)

// soakRun runs the claims or the hypothesis-breaking controls of entry id
// as the harness under which the soak seeds above were found did: every
// property on n cases drawn from seed itself (n the test's count then),
// so that the case the soak found is drawn again (where its generator has
// not changed since).
func soakRun(seed int64, id string, ofControls bool, n int) func(*testing.T) {
	return func(t *testing.T) {
		r := NewRunner(seed, testRunner(t).Budget)
		e := entry(t, id)
		ps, want := e.Claims, ClaimWanted
		if ofControls {
			ps = e.Controls
		}
		for _, p := range ps {
			if p.Meta().Fault != "" {
				continue
			}
			if ofControls {
				want = p.Meta().CaughtBy
			}
			t.Run(p.Meta().Name, func(t *testing.T) { runProperty(t, r, e.ID, p, seed, n, want, true) })
		}
	}
}

// TestSoakLimitShiftMovingWeights: the cases of TestLinearFaultLimitShift that
// failed at soak seeds 1795648797033177 (CVaR) and 1795648797207395 (χ²),
// both with d = n (nothing leaves span{z_n}), on which a preconditioner
// moving the limit by 0.05 rad was reported holds ("shown, not decided": the weights move
// between records). The recorded integral of the weights between records
// (train.WeightSum) decides the steps' coefficients now: violated, and the
// correct engine holds.
func TestSoakLimitShiftMovingWeights(t *testing.T) {
	for _, c := range []ClassCase{
		{N: 5, Indep: true, Loss: LossExp, Scheme: SchemeCVaR, Param: 0.46598852141872393, LogM: 0.7188943024594044, Seed: 0xd6091665d836e4ad},
		{N: 5, Indep: true, Loss: LossLogistic, Scheme: SchemeChiSquare, Param: 0.9809595514568809, LogM: 0.9420931517149435, Seed: 0xe9a45abe8b7fe48b},
	} {
		data := c.Data()
		k, angle, ok := strengthFor(data)
		if !ok {
			t.Fatalf("%v: no preconditioner moves the limit by %g rad", c, minShift)
		}
		gd, err := train.NewGD(classLR)
		if err != nil {
			t.Fatal(err)
		}
		for _, run := range []struct {
			name string
			opt  train.Optimizer
			want theorems.Status
		}{
			{"correct", gd, theorems.Holds},
			{fmt.Sprintf("preconditioner k = %.3g (limit %.3g rad away)", k, angle), &precondGD{GD: train.GD{LR: classLR}, k: k}, theorems.Violated},
		} {
			data, tr, err := classFaultRun(c, run.opt, nil)
			if err != nil {
				t.Fatal(err)
			}
			if v := theorems.GRWDirection(data, tr); v.Status != run.want {
				t.Errorf("%v, %s: %v, want %s", c, run.name, v, run.want)
			}
		}
	}
}

// TestSoakPreconditionerBeforeTheWindow: the LL-lin case that the
// preconditioner pair missed at soak seed 1795648796969825. The faulty
// first steps drove the margins so far (𝓛 ≈ e^{−50}) that θ froze from
// T = 4 on: the limit part had no contraction (μ ≈ 1e-25) and the flow
// comparison saw θ not move, as GD's flow does not there. GD's map replayed
// over the records a few steps apart (theorems/gdstep.go), from step 0 on,
// sees the faulty steps: violated, and the correct engine holds.
func TestSoakPreconditionerBeforeTheWindow(t *testing.T) {
	c := KKTCase{Family: KKTLinear, In: 3, N: 4, Loss: 0, Seed: 7682329877960309226}
	for fault, want := range map[string]theorems.Status{"": theorems.Holds, "preconditioner": theorems.Violated} {
		c.Fault = fault
		b, tr, err := trained(testRunner(t), c)
		if err != nil {
			t.Fatal(err)
		}
		if v := theorems.SVMDirection(b.Data, tr); v.Status != want {
			t.Errorf("%v: %v, want %s", c, v, want)
		}
	}
}
