package engines

import (
	"testing"

	"github.com/implicitbias/implicitbias/train"
)

// DirectRun runs c with train.Run directly (for the external tests).
func DirectRun(t testing.TB, c *Case) *train.Trajectory {
	obj, err := c.objective()
	if err != nil {
		t.Fatal(err)
	}
	gd, _ := train.NewGD(c.Rule.LR)
	tr, err := train.Run(obj, gd, append([]float64(nil), c.Theta0...), train.Config{Steps: c.Steps, Every: c.Record.Every, KeepTheta: true})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// CloseForkServer closes the adapters' fork server (TestMain, at the end:
// it waits for the adapters forked from it).
func CloseForkServer() { forkServer.Close() }
