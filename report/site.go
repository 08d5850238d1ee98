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
	figDir := filepath.Join(dir, "figures")
	if err := os.MkdirAll(figDir, 0o755); err != nil {
		return Document{}, err
	}
	doc := NewDocument(seed, budget, rs, checks...)
	entries := make([]siteEntry, len(rs))
	for i, r := range rs {
		shown, _ := r.Claims.Shown()
		e := siteEntry{Result: r, Status: r.Status().String(), Cases: CasesOf(r), Stat: Stat(shown), Controls: Controls(r), Anchor: anchor(r.ID)}
		figs := r.Figures
		if f, ok := StatisticsFigure(r); ok {
			figs = append([]theorems.Figure{f}, figs...)
		}
		for _, f := range figs {
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
	data := struct {
		Seed    int64
		Budget  string
		Summary string
		Entries []siteEntry
	}{seed, budget, summary, entries}
	if err := writeTemplate(filepath.Join(dir, "index.html"), htmlPage, data); err != nil {
		return doc, err
	}
	if err := writeMarkdown(filepath.Join(dir, "report.md"), data.Summary, seed, budget, entries); err != nil {
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

func writeMarkdown(path, summary string, seed int64, budget string, es []siteEntry) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# implicitbias verify\n\nSeed %d, budget %s. %s\n\n", seed, budget, summary)
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
.holds { color: #060; font-weight: bold; }
.violated { color: #b00; font-weight: bold; }
.inconclusive, .assumption-failed { color: #a60; font-weight: bold; }
img { max-width: 48em; display: block; margin: 0.5em 0; }
code { background: #f6f6f6; }
</style>
</head>
<body>
<h1>implicitbias verify</h1>
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
{{end}}{{end}}
</body>
</html>
`))
