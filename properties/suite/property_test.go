package suite

import (
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/cases"
	"github.com/implicitbias/implicitbias/theorems"
)

// TestStructOfUnknownField: a generator key that names no field of the
// case is refused when the generator is built (gopter's gen.Struct would
// skip it and leave the field zero).
func TestStructOfUnknownField(t *testing.T) {
	assert.Panics(t, func() { properties.StructOf[cases.ScaledCase](map[string]gopter.Gen{"LogScal": gen.Const(1.0)}) })
	assert.NotPanics(t, func() { properties.StructOf[cases.ScaledCase](map[string]gopter.Gen{"LogScale": gen.Const(1.0)}) })
}

// TestPropertyTypes: every property of every entry draws cases of its own
// type (the conversions Gen[C](…) at the few generators built by gopter's
// Map are checked here), and a case of another type is refused, not
// checked.
func TestPropertyTypes(t *testing.T) {
	r := properties.NewRunner(1, properties.Quick)
	for _, e := range Entries() {
		for _, p := range append(append([]properties.Prop(nil), e.Claims...), e.Controls...) {
			cs := properties.SampleAny(p.Generator(r), 1, 1)
			require.NotEmpty(t, cs, "%s %s", e.ID, p.Meta().Name)
			assert.True(t, p.Accepts(cs[0]), "%s %s: drew a %T", e.ID, p.Meta().Name, cs[0])
			v := p.Verdict(r, struct{}{})
			assert.Equal(t, theorems.AssumptionFailed, v.Status, "%s %s: %v", e.ID, p.Meta().Name, v)
			assert.Contains(t, v.Detail, "a case of type", "%s %s", e.ID, p.Meta().Name)
		}
	}
}
