package main

import (
	"flag"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/implicitbias/implicitbias/check"
	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/report"
	"github.com/implicitbias/implicitbias/theorems"
)

const checkUsage = `implicitbias check --run FILE.npz [--model SPEC] [--data FILE] [--loss exp|logistic|ce|squared] [--only ID,…] [--json] [--report DIR]

Checks a recorded training run — PyTorch's, NumPy's, or this engine's (train
--export-npz) — against every catalog claim it can speak to, and prints the
same table as verify (one case per record for the pointwise identities, one
for the run for the trajectory claims), then the curves the engine measured
at every record. The file format, the mapping of a PyTorch nn.Sequential to
the engine's models and what each claim needs are in docs/check.md.

  --run FILE     the trajectory, an NPZ file (numpy.savez) (required)
  --model SPEC   the engine's model spec (see implicitbias help train); default:
                 read from the modules array and the tensor shapes (a PyTorch
                 Conv2d file is still permuted as its modules say, and refused
                 if SPEC's parameters are not theirs)
  --data FILE    CSV dataset (label first); default: the file's X and y
  --loss L       logistic (default for one output), exp, ce (default for
                 several outputs), or squared (ZD's regression, linear model)
  --only IDS     run only these claims (catalog IDs, comma-separated, e.g.
                 LL-B3,LL-4.1); the premise is checked all the same
  --json         print the results as JSON (schema: package report, Document)
  --report DIR   also write DIR/index.html, DIR/report.md, DIR/report.json and
                 the figures of the measured curves

Claims whose hypotheses the run does not meet (Adam, weight decay, momentum,
mini-batches: the recorded steps are not −η∇𝓛; biases: not homogeneous;
data not separated) are assumption-failed, with the reason and the statistic
measured anyway.
While it runs, a progress line (the claim, the records done) is written to
standard error when that is a terminal.
Exit status: 0 if nothing is violated, 1 if a claim is violated, 2 for bad
input, 5 if no claim is violated but the gradient-descent premise is (the
recorded steps are not −η∇𝓛: Adam, momentum, weight decay, mini-batches, a
wrong lr or reduction), so that CI can fail a run that is not what it claims.
`

// exitNotGD is check's status for a run whose recorded steps are not
// gradient steps of the loss read (the premise of every GD claim fails)
// while no claim is violated.
const exitNotGD = 5

func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	runPath := fs.String("run", "", "")
	spec := fs.String("model", "", "")
	dataPath := fs.String("data", "", "")
	lossName := fs.String("loss", "", "")
	only := fs.String("only", "", "")
	asJSON := fs.Bool("json", false, "")
	reportDir := fs.String("report", "", "")
	if !parseFlags(fs, args, stderr) {
		return exitUsage
	}
	if *runPath == "" {
		return fail(stderr, "check", fmt.Errorf("--run FILE.npz is required"))
	}
	ids, err := onlyIDs(*only)
	if err != nil {
		return fail(stderr, "check", err)
	}
	t, err := check.ReadFile(*runPath)
	if err != nil {
		return fail(stderr, "check", err)
	}
	note := ""
	if *spec == "" {
		m, err := check.MapModel(t)
		if err != nil {
			return fail(stderr, "check", fmt.Errorf("%s: %w", *runPath, err))
		}
		*spec, note = m.Spec, m.Note
		t = m.Move(t) // a Conv2d run's θ and X in the engine's channels-last layout
	} else {
		// A PyTorch-layout CNN file is permuted as the mapped case is, or
		// refused when the spec and its modules disagree.
		m, err := check.MapSpec(t, *spec, t.D)
		if err != nil {
			return fail(stderr, "check", fmt.Errorf("%s: %w", *runPath, err))
		}
		note = m.Note
		t = m.Move(t)
	}
	var data *dataset.Dataset
	if *dataPath != "" {
		if data, err = dataset.LoadCSV(*dataPath); err != nil {
			return fail(stderr, "check", err)
		}
	}
	in := t.D
	if data != nil {
		in = data.D
	} else if in == 0 {
		return fail(stderr, "check", fmt.Errorf("%s has no X and y: give the data (--data FILE)", *runPath))
	}
	model, err := models.Parse(*spec, in)
	if err != nil {
		return fail(stderr, "check", err)
	}
	loss, err := check.LossFor(*lossName, model.Out())
	if err != nil {
		return fail(stderr, "check", err)
	}
	if data == nil {
		if data, err = check.Data(t, loss); err != nil {
			return fail(stderr, "check", fmt.Errorf("%s: %w", *runPath, err))
		}
	}
	opts := check.Options{Loss: *lossName, Name: filepath.Base(*runPath), Figures: *reportDir != "", Rows: !*asJSON, Only: ids}
	if f, ok := stderr.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			opts.Progress = stderr
		}
	}
	rep, err := check.Check(t, model, data, opts)
	if err != nil {
		return fail(stderr, "check", fmt.Errorf("%s: %w", *runPath, err))
	}
	if *reportDir != "" {
		name := filepath.Base(*runPath)
		if _, err := report.WriteSite(*reportDir, 0, "run "+name, rep.Results); err != nil {
			return fail(stderr, "check", err)
		}
		if err := retitle(*reportDir, name, model.String(), rep.Premise); err != nil {
			return fail(stderr, "check", err)
		}
	}
	if *asJSON {
		if err := report.WriteJSON(stdout, report.NewDocument(0, "run "+filepath.Base(*runPath), rep.Results)); err != nil {
			return fail(stderr, "check", err)
		}
	} else {
		fmt.Fprintf(stdout, "run %s: model %s, loss %s, step rule %s, %d records (steps %d…%d), %d samples\n", *runPath, model, loss.Name(), t.Rule(), len(t.Steps), t.Steps[0], t.Steps[len(t.Steps)-1], data.N)
		if note != "" {
			fmt.Fprintf(stdout, "note: %s\n", note)
		}
		if !math.IsNaN(rep.OutputsDiff) {
			fmt.Fprintf(stdout, "mapping: the engine's outputs at the last record agree with the run's to %.2g relative (bound %g)\n", rep.OutputsDiff, check.MappingTolerance)
		}
		fmt.Fprintf(stdout, "gradient-descent premise (every recorded step is −η∇𝓛): %s\n\n", rep.Premise)
		if err := report.WriteEntries(stdout, blankInconclusive(rep.Results)); err != nil {
			return fail(stderr, "check", err)
		}
		writeRows(stdout, rep.Rows)
	}
	for _, r := range rep.Results {
		if r.Status() == theorems.Violated {
			return exitViolated
		}
	}
	if rep.Premise.Status == theorems.Violated {
		return exitNotGD
	}
	return exitOK
}

// onlyIDs reads --only: catalog IDs, comma-separated; an unknown one is bad
// input.
func onlyIDs(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var ids []string
	for _, id := range strings.Split(s, ",") {
		id = strings.TrimSpace(id)
		if _, ok := theorems.Lookup(id); !ok {
			return nil, fmt.Errorf("--only: %q is not a catalog ID (docs/check.md lists the claims check runs)", id)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// writeRows prints the measured curves.
func writeRows(w io.Writer, rows []check.Row) {
	fmt.Fprintln(w, "\nMeasured at every record (γ̃, γ̄, 1 − β, ε/‖θ̃‖, δ after separation; step residual ‖Δθ + η∇𝓛‖/‖η∇𝓛‖ where the next step is recorded):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\tlog 𝓛\tρ\tγ̃\tγ̄\t1 − β\tε/‖θ̃‖\tδ\tstep residual\t")
	g := func(x float64) string {
		if math.IsNaN(x) {
			return "—"
		}
		return fmt.Sprintf("%.4g", x)
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Step, g(r.LogLoss), g(r.Rho), g(r.Gamma), g(r.GammaBar), g(r.OneMinusBeta), g(r.Eps), g(r.Delta), g(r.StepResidual))
	}
	tw.Flush()
}

// retitle makes the report package's pages (written for verify: "implicitbias
// verify", "Seed S, budget B.", the count of catalog entries without a
// check) speak of the run: the title, a line naming the run, model and
// premise instead of seed and budget, and no catalog count (a recorded run
// is not a run of the catalog).
func retitle(dir, run, model string, premise theorems.Verdict) error {
	head := fmt.Sprintf("Run %s, model %s; gradient-descent premise %s.", run, model, premise.Status)
	noCount := regexp.MustCompile(`; \d+ catalog entries have no check yet\.`)
	for _, name := range []string{"index.html", "report.md"} {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s := strings.ReplaceAll(string(b), "implicitbias verify", "implicitbias check")
		s = strings.Replace(s, "Seed 0, budget run "+run+".", html.EscapeString(head), 1)
		s = noCount.ReplaceAllString(s, ".")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// blankInconclusive returns the results with the statistic of every
// inconclusive entry hidden from the table's WORST column ("—"): a number
// beside "inconclusive" reads as a result. The detail below the table keeps
// what was measured, and --json keeps the statistic.
func blankInconclusive(rs []theorems.Result) []theorems.Result {
	out := append([]theorems.Result(nil), rs...)
	for i := range out {
		if out[i].Status() == theorems.Inconclusive {
			out[i].Claims.Worst.Statistic = math.NaN()
		}
	}
	return out
}
