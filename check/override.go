package check

import (
	"fmt"
	"slices"

	"github.com/implicitbias/implicitbias/models"
)

// MapSpec is MapModel for a spec the user gives (implicitbias check
// --model): the spec decides the model, and a PyTorch-layout CNN file (a
// Conv2d network with its modules) still gets the permutation of its θ and
// X into the engine's layout (doc.go, "Conv2d"), the one MapModel finds
// from the modules. The permutation depends only on the input shape and the
// layers' shapes, so the spec may differ from the modules' in what does
// not move a parameter (the activation, max or average pooling: it then
// overrides them, as --model does for an MLP), but its parameter blocks
// must be the modules' one for one (names and sizes): otherwise the spec
// and the modules disagree and the file is refused, naming both. A CNN
// file without its modules cannot be permuted (its Flatten order needs
// them) and is refused too; any other file is taken in the engine's layout
// as it is, with in its input dimension.
func MapSpec(t *Trajectory, spec string, in int) (Mapping, error) {
	if !hasConv2d(t) && !hasConv1d(t) {
		return Mapping{Spec: spec, In: in}, nil
	}
	if t.Modules == nil {
		return Mapping{}, fmt.Errorf("--model %s: the file holds a PyTorch CNN (3-D or 4-D weights) without its modules array, which its permutation into the engine's layout needs; save modules=[str(m) for m in net]", spec)
	}
	m, err := MapModel(t)
	if err != nil {
		return Mapping{}, fmt.Errorf("--model %s: the file's PyTorch CNN does not map (%v), so its θ and X cannot be permuted into the engine's layout", spec, err)
	}
	given, err := models.Parse(spec, m.In)
	if err != nil {
		return Mapping{}, err
	}
	mapped, err := models.Parse(m.Spec, m.In)
	if err != nil {
		return Mapping{}, err
	}
	if gb, mb := given.Blocks(), mapped.Blocks(); !slices.Equal(gb, mb) {
		return Mapping{}, fmt.Errorf("--model %s disagrees with the file's modules, which map to %s: %s", given, mapped, firstDifference(gb, mb))
	}
	m.Spec = given.String()
	if given.String() != mapped.String() {
		m.Note = fmt.Sprintf("--model %s overrides the modules' %s (same parameters, permuted from PyTorch's layout as the modules say)", given, mapped)
	}
	return m, nil
}

// firstDifference names the first parameter block where a spec's blocks
// (given) and the modules' differ.
func firstDifference(given, mapped []models.Block) string {
	for i := range min(len(given), len(mapped)) {
		if given[i] != mapped[i] {
			return fmt.Sprintf("block %d is %s (%d parameters) in the spec, %s (%d parameters) in the modules", i+1, given[i].Name, given[i].Len, mapped[i].Name, mapped[i].Len)
		}
	}
	return fmt.Sprintf("the spec has %d parameter blocks, the modules %d", len(given), len(mapped))
}
