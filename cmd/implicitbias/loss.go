package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/implicitbias/implicitbias/properties"
	"github.com/implicitbias/implicitbias/properties/suite"
	"github.com/implicitbias/implicitbias/report"
	"github.com/implicitbias/implicitbias/symbolic"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/theorems/lossassumptions"
)

const lossUsage = `implicitbias loss 'FORMULA' [--json] [--certify C] [--evidence Q] [--run [--seed N]]

Checks a loss ℓ(q) of the margin q against the hypotheses of the theorems:
LL App. A.1 (B3.1) f = −log ℓ is C¹, (B3.2) f′ > 0, (B3.3) f′(q)q
non-decreasing beyond b_f ≥ 0 and → ∞ (the smallest b_f), (B3.4) the doubling
conditions (the smallest K found), (B4) the threshold ℓ(b_f); XY App. A.1.1's
tight exponential tail; ZD Thm 8's convex, L-smooth, strictly decreasing to 0.
Each is "certified on [a, b]" (interval arithmetic with outward rounding),
"numerical evidence up to |q| = Q" (a geometric grid beyond the certified
range), or "fails at q = …" with the witness. Then it lists which catalog
entries apply to the loss; train with it by 'implicitbias train --loss
expr:FORMULA'.

Formulas: numbers, q, e, pi, + - * / ^ (also − × ÷ ·), unary minus,
parentheses, exp log log1p expm1 sqrt abs, and 'if q < b then A else B'
(also <=, >, >=; b a constant). A formula that starts with '-' goes after
'--'. Examples: 'exp(-q)', 'log(1+exp(-q))', 'exp(-q^3)',
'if q < 0 then log(1+exp(-q)) - log(2) + 1 else 1/(q+1)'.

  --json         print the report as JSON
  --certify C    certify on [−C, C] (default 100)
  --evidence Q   sample up to |q| = Q (default 1e6)
  --run          then train with the loss: run the catalog entries that apply
                 to it and can be rebuilt with a user's loss (LL-A5, LL-5.1,
                 LL-4.1, LL-4.3, ZD-T7) on generated cases, with their negative
                 controls, and print their table (exit 1 if one is violated)
  --seed N       seed of those cases (default 1)

Exit status: 0 if (B3.1)–(B3.4) hold on all of ℝ and (B4)'s threshold exists,
1 if one of them fails or cannot be decided, 2 for a bad formula (one line,
with the position of the problem).
`

func runLoss(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loss", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "")
	runEntries := fs.Bool("run", false, "")
	seed := fs.Int64("seed", 1, "")
	certify := fs.Float64("certify", symbolic.DefaultSettings.CertifyTo, "")
	evidence := fs.Float64("evidence", symbolic.DefaultSettings.EvidenceTo, "")
	// Flags may come before and after the formula.
	var formula string
	rest := args
	for {
		fs.SetOutput(io.Discard)
		err := fs.Parse(rest)
		if errors.Is(err, flag.ErrHelp) {
			err = fmt.Errorf("see implicitbias help loss")
		}
		if err != nil {
			fmt.Fprintf(stderr, "implicitbias loss: %v\n", err)
			return exitUsage
		}
		if fs.NArg() == 0 {
			break
		}
		if formula != "" {
			return fail(stderr, "loss", fmt.Errorf("unexpected argument %q (quote the formula as one argument)", fs.Arg(0)))
		}
		formula = fs.Arg(0)
		rest = fs.Args()[1:]
	}
	if strings.TrimSpace(formula) == "" {
		return fail(stderr, "loss", fmt.Errorf("a formula is required, e.g. implicitbias loss 'log(1+exp(-q))'"))
	}
	if !(*certify > 0) || !(*evidence > *certify) || *evidence > 1e300 {
		return fail(stderr, "loss", fmt.Errorf("need 0 < --certify < --evidence ≤ 1e300, got %v and %v", *certify, *evidence))
	}
	fm, err := symbolic.NewFormula(formula)
	if err != nil {
		return fail(stderr, "loss", err)
	}
	s := symbolic.DefaultSettings
	s.CertifyTo, s.EvidenceTo = *certify, *evidence
	r := lossassumptions.ValidateLoss(fm, &s)
	code := exitOK
	if !r.Admissible() {
		code = exitViolated
	}
	if *asJSON {
		doc := struct {
			*lossassumptions.LossReport
			Admissible bool `json:"admissible"`
			Exit       int  `json:"exit_status"`
		}{r, r.Admissible(), code}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false) // "f′ > 0", not "f′ \u003e 0"
		if err := enc.Encode(doc); err != nil {
			return fail(stderr, "loss", err)
		}
		return code
	}
	writeLossReport(stdout, r)
	if *runEntries {
		return max(code, runLossEntries(formula, r, *seed, stdout, stderr))
	}
	return code
}

// runLossEntries trains with the loss: it runs the catalog entries that
// apply to it (and that can be rebuilt with a user's loss) on generated
// cases, with their negative controls, and prints their table.
func runLossEntries(formula string, r *lossassumptions.LossReport, seed int64, stdout, stderr io.Writer) int {
	var ids []string
	for _, a := range r.Applies {
		if a.Applies {
			ids = append(ids, a.ID)
		}
	}
	entries, err := suite.ForLoss("expr:"+formula, ids)
	if err != nil {
		return fail(stderr, "loss", err)
	}
	fmt.Fprintf(stdout, "\nTraining with the loss (seed %d): the entries that apply and can run with a user's loss (%s).\n", seed, strings.Join(suite.LossEntryIDs(), ", "))
	if len(entries) == 0 {
		fmt.Fprintln(stdout, "None of them applies to this loss.")
		return exitOK
	}
	fmt.Fprintln(stdout)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	results := runEntries(ctx, properties.NewRunner(seed, properties.Quick), entries, newProgress(stderr, len(entries)))
	if err := report.WriteEntries(stdout, results); err != nil {
		return fail(stderr, "loss", err)
	}
	for _, res := range results {
		if res.Status() == theorems.Violated {
			return exitViolated
		}
	}
	return exitOK
}

// writeLossReport prints the derived functions, the table of hypotheses,
// their notes, the applicable catalog entries and the verdict.
func writeLossReport(w io.Writer, r *lossassumptions.LossReport) {
	fmt.Fprintf(w, "loss ℓ(q) = %s\n", r.Formula)
	for _, p := range r.Pieces {
		fmt.Fprintf(w, "\n  %s:  ℓ = %s\n", p.Where, p.Loss)
		fmt.Fprintf(w, "    f  = −log ℓ = %s\n", p.F)
		fmt.Fprintf(w, "    f′ = %s\n", p.F1)
		fmt.Fprintf(w, "    ℓ′ = %s\n", p.L1)
		fmt.Fprintf(w, "    ℓ″ = %s\n", p.L2)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HYPOTHESIS\tSOURCE\tSTATUS\tDETAIL")
	for _, h := range r.Hypotheses {
		fmt.Fprintf(tw, "(%s)\t%s\t%s\t%s\n", h.ID, h.Source, h.StatusText(), h.Detail)
	}
	tw.Flush()
	first := true
	for _, h := range r.Hypotheses {
		for _, n := range h.Notes {
			if first {
				fmt.Fprintln(w, "\nNotes:")
				first = false
			}
			fmt.Fprintf(w, "  (%s) %s\n", h.ID, n)
		}
	}
	fmt.Fprintln(w, "\nCatalog entries and the hypotheses on the loss they need (train with --loss 'expr:FORMULA'):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, a := range r.Applies {
		status := "applies"
		if !a.Applies {
			status = "does not apply: needs " + strings.Join(a.Missing, ", ")
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", a.ID, status, a.Note)
	}
	tw.Flush()
	fmt.Fprintln(w)
	if r.Admissible() {
		fmt.Fprintln(w, "verdict: (B3.1)–(B3.4) hold and (B4)'s threshold exists: the loss is admissible for LL App. A.")
		return
	}
	var bad []string
	for _, id := range []string{theorems.HypB31, theorems.HypB32, theorems.HypB33, theorems.HypB34, theorems.HypB4} {
		if h, ok := r.Hypothesis(id); ok && h.Status != theorems.Holds {
			bad = append(bad, fmt.Sprintf("(%s) %s", id, h.StatusText()))
		}
	}
	fmt.Fprintf(w, "verdict: not admissible for LL App. A: %s.\n", strings.Join(bad, "; "))
}
