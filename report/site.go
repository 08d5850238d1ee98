package report

import (
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"github.com/implicitbias/implicitbias/theorems"
)

// PlotFile is a figure drawn for an entry.
type PlotFile struct {
	Title    string
	Caption  string
	PNG, SVG string // paths relative to the report directory
}

// siteEntry is one row and one section of the report.
type siteEntry struct {
	theorems.Result
	Status, Cases, Stat, Controls, Anchor string
	Plots                                 []PlotFile
	ControlRows                           []controlRow
}

// controlRow is one negative control's verdict, as the report lists it.
type controlRow struct {
	Name, Breaks, Verdict, Cases, Worst string
	Caught                              bool
}

func controlRows(r theorems.Result) []controlRow {
	var rows []controlRow
	for _, c := range r.ControlRuns {
		s := c.Summary
		breaks := c.Drops
		if c.Fault != "" {
			breaks = "engine fault " + c.Fault
		}
		verdict := "caught"
		if !c.Caught {
			verdict = "NOT caught"
		}
		rows = append(rows, controlRow{Name: c.Name, Breaks: breaks, Verdict: verdict, Caught: c.Caught,
			Cases: fmt.Sprintf("%d: %d violated, %d assumption-failed, %d holds, %d inconclusive", s.Cases, s.Violated, s.AssumptionFailed, s.Holds, s.Inconclusive),
			Worst: Stat(s.Worst)})
	}
	return rows
}

// Provenance says where a report comes from; the CLI fills it.
type Provenance struct {
	Command string `json:"command"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`    // UTC, RFC 3339
	Runtime string `json:"runtime"` // wall time of the run
	Machine string `json:"machine"` // OS/arch, CPU, cores, Go version
}

// CheckDir creates dir (and its figures/ directory) and checks that files
// can be written there, so that a run told to write its report finds out
// before its work, not after (issue 21: an unwritable --report lost the
// table and hid a violation behind exit status 2).
func CheckDir(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "figures"), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// WriteSite writes the report into dir: index.html (static, no network),
// report.md with the same table, report.json (the Document), and every
// figure as PNG and SVG under figures/. It returns the document, whose
// entries list their figure files.
func WriteSite(dir string, seed int64, budget string, rs []theorems.Result, checks ...string) (Document, error) {
	return WriteReport(dir, seed, budget, rs, nil, checks)
}

// WriteReport is WriteSite with the run's provenance in the page's header
// and in report.json (prov may be nil). Each entry's first figure is its
// RatioPlot: claims and negative controls against the bound (the controls
// when the results carry ControlRuns); the controls' verdicts are listed
// under it.
func WriteReport(dir string, seed int64, budget string, rs []theorems.Result, prov *Provenance, checks []string) (Document, error) {
	figDir := filepath.Join(dir, "figures")
	if err := os.MkdirAll(figDir, 0o755); err != nil {
		return Document{}, err
	}
	doc := NewDocument(seed, budget, rs, checks...)
	entries := make([]siteEntry, len(rs))
	for i, r := range rs {
		shown, _ := r.Claims.Shown()
		e := siteEntry{Result: r, Status: r.Status().String(), Cases: CasesOf(r), Stat: Stat(shown), Controls: Controls(r), Anchor: anchor(r.ID), ControlRows: controlRows(r)}
		files, ok, err := RatioPlot(figDir, FileStem(r.ID, "cases"), r)
		if err != nil {
			return doc, fmt.Errorf("%s: %v", r.ID, err)
		}
		if ok {
			caption := "Every case's log₁₀(statistic/bound), sorted: the claim's cases (blue) must lie at or below the bound (0)"
			if len(r.ControlRuns) > 0 {
				caption += "; the negative controls' cases (orange) break one hypothesis each, and a check with power puts them above it or refuses them (assumption-failed, no statistic)"
			}
			pf := PlotFile{Title: r.ID + ": claims and controls against the bound", Caption: caption + ".", PNG: "figures/" + files[0], SVG: "figures/" + files[1]}
			e.Plots = append(e.Plots, pf)
			doc.Entries[i].Figures = append(doc.Entries[i].Figures, pf.PNG, pf.SVG)
		}
		for _, f := range r.Figures {
			files, err := SaveFigure(figDir, FileStem(r.ID, f.Name), f)
			if err != nil {
				return doc, fmt.Errorf("%s: %v", r.ID, err)
			}
			pf := PlotFile{Title: f.Title, Caption: f.Caption, PNG: "figures/" + files[0], SVG: "figures/" + files[1]}
			e.Plots = append(e.Plots, pf)
			doc.Entries[i].Figures = append(doc.Entries[i].Figures, pf.PNG, pf.SVG)
		}
		entries[i] = e
	}
	summary := doc.Totals.Summary()
	doc.Provenance = prov
	data := struct {
		Seed       int64
		Budget     string
		Summary    string
		Entries    []siteEntry
		Provenance *Provenance
	}{seed, budget, summary, entries, prov}
	if err := writeTemplate(filepath.Join(dir, "index.html"), htmlPage, data); err != nil {
		return doc, err
	}
	if err := writeMarkdown(filepath.Join(dir, "report.md"), data.Summary, seed, budget, entries, prov); err != nil {
		return doc, err
	}
	f, err := os.Create(filepath.Join(dir, "report.json"))
	if err != nil {
		return doc, err
	}
	if err := WriteJSON(f, doc); err != nil {
		f.Close()
		return doc, err
	}
	return doc, f.Close()
}

func anchor(id string) string { return strings.NewReplacer("/", "_", ".", "_").Replace(id) }

func writeTemplate(path string, t *template.Template, data any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := t.Execute(f, data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeMarkdown(path, summary string, seed int64, budget string, es []siteEntry, prov *Provenance) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# implicitbias verify\n\n")
	if prov != nil {
		fmt.Fprintf(&b, "`%s` at commit %s, %s, %s on %s.\n\n", prov.Command, prov.Commit, prov.Date, prov.Runtime, prov.Machine)
	}
	fmt.Fprintf(&b, "Seed %d, budget %s. %s\n\n", seed, budget, summary)
	b.WriteString("| ID | source | claim | cases | status | worst (stat vs bound) | controls | plots |\n|---|---|---|---|---|---|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, e := range es {
		var links []string
		for _, p := range e.Plots {
			links = append(links, fmt.Sprintf("[%s](%s) ([svg](%s))", cell(p.Title), p.PNG, p.SVG))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", cell(e.ID), cell(e.Source), cell(e.Info.Claim), e.Cases, e.Status, e.Stat, e.Controls, strings.Join(links, "<br>"))
	}
	for _, e := range es {
		if e.Result.Status() == theorems.Holds {
			continue
		}
		fmt.Fprintf(&b, "\n## %s: %s\n\n%s\n\nWorst case: `%s`\n", e.ID, e.Status, e.Claims.Worst.Detail, e.Claims.WorstCase)
		if e.ControlMissed != "" {
			fmt.Fprintf(&b, "\nNegative control not caught: %s\n", e.ControlMissed)
		}
	}
	for _, e := range es {
		if len(e.ControlRows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s: negative controls\n\n| control | breaks | verdict | cases | worst |\n|---|---|---|---|---|\n", e.ID)
		for _, c := range e.ControlRows {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cell(c.Name), cell(c.Breaks), c.Verdict, c.Cases, cell(c.Worst))
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

var htmlPage = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>implicitbias verify</title>
<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
.provenance { color: #555; font-size: 0.9em; }
.provenance td, .provenance th { border: none; padding: 0.1em 0.8em 0.1em 0; }
.caught { color: #060; }
.missed { color: #b00; font-weight: bold; }
.holds { color: #060; font-weight: bold; }
.violated { color: #b00; font-weight: bold; }
.inconclusive, .assumption-failed { color: #a60; font-weight: bold; }
img { max-width: 100%; width: 60em; display: block; margin: 0.5em 0; }
code { background: #f6f6f6; }
</style>
</head>
<body>
<h1>implicitbias verify</h1>
{{with .Provenance}}<table class="provenance">
<tr><th>command</th><td><code>{{.Command}}</code></td></tr>
<tr><th>commit</th><td><code>{{.Commit}}</code></td></tr>
<tr><th>date</th><td>{{.Date}}</td></tr>
<tr><th>runtime</th><td>{{.Runtime}}</td></tr>
<tr><th>machine</th><td>{{.Machine}}</td></tr>
</table>{{end}}
<p>Seed {{.Seed}}, budget {{.Budget}}. {{.Summary}}</p>
<table>
<tr><th>ID</th><th>Source</th><th>Claim</th><th>Cases</th><th>Status</th><th>Worst (stat vs bound)</th><th>Controls</th></tr>
{{range .Entries}}<tr><td><a href="#{{.Anchor}}">{{.ID}}</a></td><td>{{.Source}}</td><td>{{.Info.Claim}}</td><td>{{.Cases}}</td><td class="{{.Status}}">{{.Status}}</td><td>{{.Stat}}</td><td>{{.Controls}}</td></tr>
{{end}}</table>
{{range .Entries}}<h2 id="{{.Anchor}}">{{.ID}} — {{.Info.Claim}}</h2>
<p>{{.Source}}. Status <span class="{{.Status}}">{{.Status}}</span> over {{.Cases}} cases; worst {{.Stat}}.</p>
<p>{{.Claims.Worst.Detail}}</p>
<p>Worst case: <code>{{.Claims.WorstCase}}</code></p>
{{if .ControlMissed}}<p>Negative control not caught: {{.ControlMissed}}</p>{{end}}
{{range .Plots}}<figure><img src="{{.PNG}}" alt="{{.Title}}" onerror="this.setAttribute('data-broken', 'true')"><figcaption>{{.Title}}. {{.Caption}} (<a href="{{.SVG}}">SVG</a>)</figcaption></figure>
{{end}}{{if .ControlRows}}<table class="controls">
<tr><th>Negative control</th><th>Breaks</th><th>Verdict</th><th>Cases</th><th>Worst (stat vs bound)</th></tr>
{{range .ControlRows}}<tr><td>{{.Name}}</td><td>{{.Breaks}}</td><td class="{{if .Caught}}caught{{else}}missed{{end}}">{{.Verdict}}</td><td>{{.Cases}}</td><td>{{.Worst}}</td></tr>
{{end}}</table>{{end}}{{end}}
</body>
</html>
`))
