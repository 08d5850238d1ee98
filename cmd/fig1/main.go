// Command fig1 prints the reproduction of ZD Fig. 1 (ERM, importance
// weighting and Group DRO on six digits reach the same interpolator) as the
// Markdown table shown in README.md:
//
//	go run ./cmd/fig1
package main

import (
	"fmt"
	"os"

	"github.com/implicitbias/implicitbias/properties"
)

func main() {
	if err := properties.WriteFig1Table(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fig1:", err)
		os.Exit(1)
	}
}
