package properties

import (
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/theorems"
)

// seedCase is a faultable case for TestControlSeedFaultFromClaim; the
// fault acts on even draws only.
type seedCase struct {
	Draw  int
	Fault string
}

func (c seedCase) WithFault(name string) any       { c.Fault = name; return c }
func (c seedCase) FaultActs(string) bool           { return c.Draw%2 == 0 }
func (c seedCase) String() string                  { return "" }
func seedCheck(*Runner, seedCase) theorems.Verdict { return theorems.Verdict{Status: theorems.Holds} }

// TestControlSeedFaultFromClaim: a fault control draws from its claim's
// seed, so its cases are the claim's own (those the fault acts on), in
// order; another control keeps seed + 1000 + i.
func TestControlSeedFaultFromClaim(t *testing.T) {
	g := StructOf[seedCase](map[string]gopter.Gen{"Draw": gen.IntRange(0, 1<<30), "Fault": gen.Const("")})
	claim := Property[seedCase]{Name: "claim", Gen: g, Check: seedCheck}
	other := Property[seedCase]{Name: "claim 2", Gen: g, Check: seedCheck}
	e := Entry{Info: theorems.Info{ID: "X"}, Claims: []Prop{other, claim},
		Controls: []Prop{Drops("x", claim)}, Faults: []FaultControl{{Fault: "preconditioner", On: "claim"}}}
	e.Controls = append(e.Controls, FaultControls(e)...)
	require.Len(t, e.Controls, 2)
	const seed = 7
	assert.Equal(t, int64(seed+1000), ControlSeed(seed, e, 0))
	assert.Equal(t, int64(seed+0), ControlSeed(seed, e, 1), "the first claim whose name contains On is claim 0")
	var want []any
	for _, v := range SampleAny(gopter.Gen(other.Gen), seed, 20) {
		if c := v.(seedCase); c.FaultActs("") {
			want = append(want, c.WithFault("preconditioner"))
		}
	}
	got := SampleAny(e.Controls[1].Generator(nil), ControlSeed(seed, e, 1), len(want))
	assert.Equal(t, want, got)
}
