// Command ntkreport runs the width sweeps of catalog section F (wide
// networks in the NTK regime) and prints the Markdown tables of
// docs/ntk.md, writing the figures as PNG into a directory:
//
//	IMPLICITBIAS_BUDGET=long go run ./cmd/ntkreport -out docs > ntk-tables.md
//	go run ./cmd/ntkreport -only T4 -out /tmp        # one part, quick budget
//	go run ./cmd/ntkreport -sweep-store DIR …        # keep finished jobs; resume
//
// Parts (-only, comma-separated): L3, T4, T4-gauss, T4-zero, T4-ntk-scale,
// T6, T9. Each part runs the sweep that `implicitbias verify --seed N`
// checks first for that entry (same seed, same budget, same numbers; T4-zero
// is ZD-T4/L5's control, T4-ntk-scale the claim's sweep with the fault
// ntk-scale, T4-gauss the Gaussian last layer of docs/ntk.md), so the parts
// can also run on different machines. The figures are named
// <out>/ntk-<name>.png (ntk-variance, ntk-gap, ntk-gap-gauss,
// ntk-gap-zero-weight, ntk-gap-meanfield).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/report"
)

func main() {
	only := flag.String("only", strings.Join(parts(), ","), "parts to run: "+strings.Join(parts(), ", "))
	out := flag.String("out", "", "directory for the PNG figures (none without)")
	seed := flag.Int64("seed", 1, "seed of the generated cases (as verify --seed)")
	sweepStore := flag.String("sweep-store", "", "directory keeping every finished job of the sweeps (as verify --sweep-store): a rerun reads them instead of recomputing, so an interrupted run resumes")
	flag.Parse()
	budget, err := properties.BudgetFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ntkreport:", err)
		os.Exit(2)
	}
	r := properties.NewRunner(*seed, budget)
	if r.Store, err = properties.NewSweepStore(*sweepStore, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "ntkreport:", err)
		os.Exit(2)
	}
	fmt.Printf("Run budget: %s (IMPLICITBIAS_BUDGET).\n", budget)
	for _, part := range strings.Split(*only, ",") {
		fmt.Printf("\n### %s\n\n", part)
		figs, err := writeNTKReport(strings.TrimSpace(part), r, os.Stdout)
		if err != nil {
			fmt.Fprintln(os.Stderr, "ntkreport:", err)
			os.Exit(1)
		}
		if *out == "" {
			continue
		}
		for _, f := range figs {
			files, err := report.SaveFigure(*out, "ntk-"+f.Name, f)
			if err != nil {
				fmt.Fprintln(os.Stderr, "ntkreport:", err)
				os.Exit(1)
			}
			for _, name := range files {
				if strings.HasSuffix(name, ".svg") {
					// The documents embed the PNG; the SVG is not kept.
					os.Remove(filepath.Join(*out, name))
				}
			}
		}
	}
}
