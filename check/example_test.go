package check_test

import (
	"fmt"

	"github.com/implicitbias/implicitbias/check"
	"github.com/implicitbias/implicitbias/models"
)

// Checking a recorded run from Go: read it, map its tensors to a model,
// take the data it carries and run the claims. The run here is PyTorch's
// Adam on the digits net (examples/pytorch/train_digits.py): the pointwise
// identities hold, the gradient-descent claims are outside their
// hypotheses.
func ExampleRun() {
	t, err := check.ReadFile("testdata/pytorch/digits_adam.npz")
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := check.MapModel(t)
	if err != nil {
		fmt.Println(err)
		return
	}
	model, err := models.Parse(m.Spec, m.In)
	if err != nil {
		fmt.Println(err)
		return
	}
	loss, _ := check.LossFor("", model.Out())
	data, err := check.Data(t, loss)
	if err != nil {
		fmt.Println(err)
		return
	}
	results, err := check.Run(t, model, data, check.Options{Name: "digits_adam.npz"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Spec)
	for _, r := range results {
		fmt.Println(r.ID, r.Status())
	}
	// Output:
	// mlp:relu:2x8
	// LL-B3 holds
	// LL-B3m holds
	// LL-B4 holds
	// LL-A5 holds
	// LL-C7 holds
	// LL-5.1 holds
	// LL-4.1 assumption-failed
	// LL-4.2 assumption-failed
	// LL-4.3 inconclusive
	// LL-4.4 assumption-failed
	// LL-C8 holds
	// LL-A9 assumption-failed
	// LL-C10 assumption-failed
	// LL-4.5 assumption-failed
}
