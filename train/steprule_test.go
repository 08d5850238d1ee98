package train

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRules: every optimizer declares its kind and parameters, and the
// kinds read as the CLI spells them.
func TestRules(t *testing.T) {
	gd, err := NewGD(0.5)
	require.NoError(t, err)
	lb, err := NewLossBased(0)
	require.NoError(t, err)
	fl, err := NewFlow(1e-9)
	require.NoError(t, err)
	hb, err := NewMomentum(0.1, 0.9)
	require.NoError(t, err)
	adam, err := NewAdam(0.01, 0, 0, 0)
	require.NoError(t, err)
	pgd, err := NewProjectedGD(0.2, 3)
	require.NoError(t, err)
	for _, tc := range []struct {
		opt  Optimizer
		want StepRule
		text string
	}{
		{gd, StepRule{Kind: GDStep, LR: 0.5}, "gd η = 0.5"},
		{lb, StepRule{Kind: LossBasedStep, LR: LossBasedAlpha0}, "lossbased α(0) = 0.1"},
		{fl, StepRule{Kind: FlowStep, Tol: 1e-9}, "flow (tolerance 1e-09)"},
		{hb, StepRule{Kind: HeavyBallStep, LR: 0.1, Momentum: 0.9}, "momentum η = 0.1, β = 0.9"},
		{adam, StepRule{Kind: AdamStep, LR: 0.01}, "adam η = 0.01"},
		{pgd, StepRule{Kind: ProjectedGDStep, LR: 0.2}, "pgd η = 0.2"},
	} {
		assert.Equal(t, tc.want, tc.opt.Rule())
		assert.Equal(t, tc.text, tc.opt.Rule().String())
	}
	assert.Equal(t, "gd (the recorded η)", StepRule{Kind: GDStep, LR: math.NaN()}.String())
	assert.Equal(t, "unknown step rule", StepRule{}.String())
	assert.Equal(t, "sgd η = 0.1, batch 100", StepRule{Kind: SGDStep, LR: 0.1, Batch: 100}.String())
	assert.Equal(t, "StepKind(99)", StepKind(99).String())
}

// TestSchemes: the schemes' kinds, which of them are fixed, and their
// names.
func TestSchemes(t *testing.T) {
	gdro, err := NewGroupDRO(0.3, nil)
	require.NoError(t, err)
	for _, tc := range []struct {
		w     Weighting
		want  Scheme
		fixed bool
		name  string
	}{
		{&ERM{}, Scheme{Kind: ERMScheme}, true, "erm"},
		{&Static{}, Scheme{Kind: StaticScheme}, true, "static"},
		{&ImportanceWeighting{}, Scheme{Kind: ImportanceScheme}, true, "iw"},
		{gdro, Scheme{Kind: GroupDROScheme, Param: 0.3}, false, "gdro"},
		{&Schedule{Kind: ScheduleA1}, Scheme{Kind: ScheduleA1}, false, "schedule-A1"},
		{&Schedule{}, Scheme{Kind: ScheduleScheme}, false, "schedule"},
	} {
		assert.Equal(t, tc.want, tc.w.Scheme())
		assert.Equal(t, tc.fixed, tc.w.Scheme().Fixed(), tc.name)
		assert.Equal(t, tc.name, tc.w.Scheme().String())
	}
	assert.True(t, Scheme{}.Fixed(), "no scheme: the objective's own weights")
	assert.False(t, Scheme{Kind: RecordedScheme}.Fixed(), "recorded weights of an unknown rule")
	assert.Equal(t, "SchemeKind(-1)", SchemeKind(-1).String())
}
