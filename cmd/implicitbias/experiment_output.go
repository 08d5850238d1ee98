package main

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/implicitbias/implicitbias/experiment"
	"github.com/implicitbias/implicitbias/report"
	"github.com/implicitbias/implicitbias/theorems"
)

// experimentResults is the output of an experiment command (--json, and
// results.json of --report).
type experimentResults struct {
	Experiment string                             `json:"experiment"`
	Model      string                             `json:"model"`
	NTrain     int                                `json:"n_train"`
	NTest      int                                `json:"n_test"`
	Seed       uint64                             `json:"seed"`
	Rows       []experiment.Row                   `json:"rows"`
	Curve      []experiment.Point                 `json:"curve"`
	Runs       []experimentRunSummary             `json:"runs"`
	Monotone   map[string]experiment.Monotonicity `json:"monotonicity"`
	LLRows     []llRowJSON                        `json:"ll_rows"`
	// Interrupted: the rows and curve are those of the epochs run so far.
	Interrupted bool `json:"interrupted,omitempty"`
}

type experimentRunSummary struct {
	Schedule string `json:"schedule"`
	Epochs   int    `json:"epochs"`
	Done     bool   `json:"done"`
	Reason   string `json:"reason,omitempty"`
}

type llRowJSON struct {
	Model            string  `json:"model"`
	Epoch            int     `json:"epoch"`
	Log10Loss        float64 `json:"log10_loss"`
	NormalizedMargin float64 `json:"normalized_margin"`
	TrainAcc         float64 `json:"train_acc"`
	TestAcc          float64 `json:"test_acc"`
}

func (x *experimentRun) results(interrupted bool) experimentResults {
	res := experimentResults{
		Experiment: x.flags.name, Model: x.flags.model, NTrain: x.flags.nTrain, NTest: x.flags.nTest, Seed: x.flags.seed,
		Rows: []experiment.Row{}, Curve: []experiment.Point{}, Runs: []experimentRunSummary{},
		Monotone: map[string]experiment.Monotonicity{}, Interrupted: interrupted,
	}
	for _, r := range x.runs {
		rows := experiment.Rows(r.Curve)
		for i := range rows {
			rows[i].Schedule = r.Config.Schedule
		}
		res.Rows = append(res.Rows, rows...)
		res.Curve = append(res.Curve, r.Curve...)
		res.Runs = append(res.Runs, experimentRunSummary{r.Config.Schedule, r.Epochs(), r.Done, r.Reason})
		res.Monotone[r.Config.Schedule] = experiment.Monotone(rows, r.Curve)
	}
	for _, l := range experiment.LLTable1() {
		res.LLRows = append(res.LLRows, llRowJSON(l))
	}
	return res
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeExperimentTable prints the rows of each run beside LL's, the
// monotonicity, and (ll-fig1) the final margins of both schedules.
func writeExperimentTable(w io.Writer, res experimentResults) {
	fmt.Fprintf(w, "%s: %s on Fashion-MNIST (%d train / %d test images, 10 classes, seed %d), SGD batch 100\n",
		res.Experiment, res.Model, res.NTrain, res.NTest, res.Seed)
	if res.Interrupted {
		fmt.Fprintln(w, "INTERRUPTED: the rows are those of the epochs run so far")
	}
	for _, run := range res.Runs {
		fmt.Fprintf(w, "\n%s schedule: %d epochs (%s)\n", run.Schedule, run.Epochs, orDash(run.Reason))
		tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "model\tepoch\tlog₁₀ loss\tnormalized margin\ttrain acc\ttest acc\t\tLL: epoch\tlog₁₀ loss\tnormalized margin\ttrain acc\ttest acc\t")
		i := 0
		for _, r := range res.Rows {
			if r.Schedule != run.Schedule {
				continue
			}
			ll := experiment.LLTable1()[i]
			i++
			ours := "not reached\t\t\t\t\t"
			if !r.Missing {
				ours = fmt.Sprintf("%d\t%.2f\t%.3g\t%.1f%%\t%.1f%%\t", r.Epoch, r.Log10Loss, r.NormalizedMargin, 100*r.TrainAcc, 100*r.TestAcc)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%.3g\t%.1f%%\t%.1f%%\t\n", r.Model, ours, ll.Epoch, ll.Log10Loss, ll.NormalizedMargin, 100*ll.TrainAcc, 100*ll.TestAcc)
		}
		tw.Flush()
		m := res.Monotone[run.Schedule]
		fmt.Fprintf(w, "normalized margin non-decreasing across the rows found: %s\n", yesNo(m.RowsNonDecreasing))
		if m.FittedFrom < 0 {
			fmt.Fprintln(w, "the training set was never fitted (train accuracy < 100% at every evaluation)")
		} else {
			fmt.Fprintf(w, "along the curve from epoch %d (train accuracy 100%%): %d decreases", m.FittedFrom, m.CurveDecreases)
			if m.CurveDecreases > 0 {
				fmt.Fprintf(w, ", the first at epoch %d, largest relative drop %.3g", m.FirstDecrease, m.LargestDrop)
			}
			fmt.Fprintln(w)
		}
	}
	if len(res.Runs) == 2 {
		lb, c := finalPoint(res.Curve, experiment.LossBased), finalPoint(res.Curve, experiment.Constant)
		fmt.Fprintf(w, "\nfinal normalized margin: loss-based %.3g at epoch %d, constant %.3g at epoch %d (ratio %.3g; LL Fig. 1 on MNIST after 10 000 epochs: 1.2e-3 against 1.8e-4, ratio ≈ 6.7)\n",
			lb.NormalizedMargin, lb.Epoch, c.NormalizedMargin, c.Epoch, lb.NormalizedMargin/c.NormalizedMargin)
	}
	fmt.Fprintln(w, "\nLL's rows: MNIST, full width, 60 000 images, float32 TensorFlow (LL App. J, Table 1).")
}

func finalPoint(curve []experiment.Point, schedule string) experiment.Point {
	var last experiment.Point
	for _, p := range curve {
		if p.Schedule == schedule {
			last = p
		}
	}
	return last
}

func orDash(s string) string {
	if s == "" {
		return "not ended"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// writeExperimentReport writes dir/index.html (the table and the two
// figures), dir/results.json and the figures under dir/figures.
func writeExperimentReport(dir string, res experimentResults) error {
	figs := []theorems.Figure{
		{Name: "loss", Title: res.Experiment + ": training loss", XLabel: "epoch", YLabel: "log₁₀ loss"},
		{Name: "margin", Title: res.Experiment + ": normalized margin q_min/Π‖w_i‖", XLabel: "epoch", YLabel: "normalized margin"},
	}
	for _, run := range res.Runs {
		var ep, loss, gamma []float64
		for _, p := range res.Curve {
			if p.Schedule == run.Schedule {
				ep, loss, gamma = append(ep, float64(p.Epoch)), append(loss, p.Log10Loss), append(gamma, p.NormalizedMargin)
			}
		}
		figs[0].Series = append(figs[0].Series, theorems.Series{Name: run.Schedule, X: ep, Y: loss})
		figs[1].Series = append(figs[1].Series, theorems.Series{Name: run.Schedule, X: ep, Y: gamma})
	}
	var imgs []string
	for _, f := range figs {
		files, err := report.SaveFigure(filepath.Join(dir, "figures"), report.FileStem(res.Experiment, f.Name), f)
		if err != nil {
			return err
		}
		imgs = append(imgs, "figures/"+files[0])
	}
	jf, err := os.Create(filepath.Join(dir, "results.json"))
	if err != nil {
		return err
	}
	if err := writeJSON(jf, res); err != nil {
		jf.Close()
		return err
	}
	if err := jf.Close(); err != nil {
		return err
	}
	var table strings.Builder
	writeExperimentTable(&table, res)
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>implicitbias %s</title></head><body>\n", html.EscapeString(res.Experiment))
	fmt.Fprintf(&b, "<h1>implicitbias experiment %s</h1>\n<pre>%s</pre>\n", html.EscapeString(res.Experiment), html.EscapeString(table.String()))
	for _, img := range imgs {
		fmt.Fprintf(&b, "<p><img src=\"%s\" alt=\"%s\" style=\"max-width:100%%\"></p>\n", html.EscapeString(img), html.EscapeString(img))
	}
	fmt.Fprint(&b, "<p><a href=\"results.json\">results.json</a></p>\n</body></html>\n")
	return os.WriteFile(filepath.Join(dir, "index.html"), []byte(b.String()), 0o644)
}
