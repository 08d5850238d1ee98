package report

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/theorems"
)

func siteResults() []theorems.Result {
	rs := results()
	rs[0].Figures = []theorems.Figure{{
		Name: "curve", Title: "a curve", XLabel: "x", YLabel: "y",
		Series: []theorems.Series{{Name: "s", X: []float64{1, 2, 3}, Y: []float64{1, 4, 9}}, {Name: "nan", X: []float64{1}, Y: []float64{nan()}}},
		Lines:  []theorems.Line{{Name: "bound", Y: 5}},
	}}
	var caught, refused theorems.Summary
	for i := 0; i < 10; i++ {
		caught.Add(theorems.Verdict{Status: theorems.Violated, Statistic: float64(i+1) * 1e-6, Bound: 1e-10}, "case")
		refused.Add(theorems.Verdict{Status: theorems.AssumptionFailed, Statistic: nan(), Bound: 1e-10}, "case")
	}
	rs[0].ControlRuns = []theorems.ControlRun{{Name: "with a bias", Drops: "bias", Caught: true, Summary: caught}, {Name: "refused", Drops: "degree", Caught: true, Summary: refused}}
	return rs
}

func nan() float64 { z := 0.0; return z / z }

// TestWriteSite: every link and image of the HTML page and the Markdown
// file exists and is not empty.
func TestWriteSite(t *testing.T) {
	dir := t.TempDir()
	doc, err := WriteSite(dir, 1, "quick", siteResults())
	require.NoError(t, err)
	html, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	require.NoError(t, err)
	links := regexp.MustCompile(`(?:src|href)="([^"#][^"]*)"`).FindAllStringSubmatch(string(html), -1)
	links = append(links, regexp.MustCompile(`\]\(([^)]+)\)`).FindAllStringSubmatch(string(md), -1)...)
	require.NotEmpty(t, links)
	for _, l := range links {
		st, err := os.Stat(filepath.Join(dir, l[1]))
		require.NoError(t, err, l[1])
		assert.Positive(t, st.Size(), l[1])
	}
	assert.Contains(t, string(html), "LL-B3")
	assert.Contains(t, string(md), "| LL-B3 |")
	// The statistics figure of each entry with values, plus LL-B3's own curve.
	assert.Len(t, doc.Entries[0].Figures, 4)
	_, err = os.Stat(filepath.Join(dir, "report.json"))
	assert.NoError(t, err)
}

// TestSiteInChromium opens the report in headless Chromium (Debian's
// chromium; .ci/run installs it when it can) and asserts that the page
// renders and that no image failed to load: every <img> marks itself
// data-broken when it does.
func TestSiteInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed (apt-get install chromium)")
	}
	dir := t.TempDir()
	_, err = WriteSite(dir, 1, "quick", siteResults())
	require.NoError(t, err)
	page := "file://" + filepath.Join(dir, "index.html")
	// One start of Chromium (about 0.7 CPU s) dumps the DOM and takes the
	// screenshot.
	shot := filepath.Join(dir, "shot.png")
	flags := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--screenshot=" + shot, "--window-size=1200,1600"}
	dom, console := chromiumDOM(t, bin, flags, page)
	assert.Empty(t, console, "console messages")
	assert.Contains(t, string(dom), "<table>")
	assert.Equal(t, 2, strings.Count(string(dom), "<img "))
	assert.NotContains(t, string(dom), `data-broken="true"`)
	// The controls are listed with their verdicts, and drawn.
	assert.Contains(t, dom, "Negative control")
	assert.Contains(t, dom, `<td class="caught">caught</td>`)
	assert.Positive(t, controlPixels(t, filepath.Join(dir, "figures", "LL-B3-cases.png")))
	st, err := os.Stat(shot)
	require.NoError(t, err)
	assert.Greater(t, st.Size(), int64(10000))
}

// TestSiteInChromiumSeesBrokenImage is the browser test's negative
// control: a missing figure must be seen.
func TestSiteInChromiumSeesBrokenImage(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed")
	}
	dir := t.TempDir()
	doc, err := WriteSite(dir, 1, "quick", siteResults())
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(dir, doc.Entries[0].Figures[0])))
	// And a script error, which the console check must see.
	index := filepath.Join(dir, "index.html")
	html, err := os.ReadFile(index)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(index, []byte(strings.Replace(string(html), "</body>", "<script>notAFunction()</script></body>", 1)), 0o644))
	dom, console := chromiumDOM(t, bin, []string{"--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + t.TempDir()}, "file://"+index)
	assert.Contains(t, dom, `data-broken="true"`)
	assert.Contains(t, strings.Join(console, "\n"), "notAFunction is not defined")
	// A plot without controls has no control colour: the pixel count sees
	// what it counts.
	plain := siteResults()[0]
	plain.ControlRuns = nil
	files, ok, err := RatioPlot(dir, "plain", plain)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Zero(t, controlPixels(t, filepath.Join(dir, files[0])))
}

func TestMerge(t *testing.T) {
	rs := results()
	all := NewDocument(1, "quick", rs)
	a := NewDocument(1, "quick", rs[1:])
	b := NewDocument(1, "quick", rs[:1])
	m, err := Merge(a, b)
	require.NoError(t, err)
	assert.Equal(t, all, m)
	_, err = Merge(a, a)
	assert.ErrorContains(t, err, "appears in two documents")
	_, err = Merge(a, NewDocument(2, "quick", rs[:1]))
	assert.ErrorContains(t, err, "not shards of one run")
	_, err = Merge()
	assert.Error(t, err)
}

func TestReadJSON(t *testing.T) {
	var b strings.Builder
	require.NoError(t, WriteJSON(&b, NewDocument(1, "quick", results())))
	d, err := ReadJSON(strings.NewReader(b.String()))
	require.NoError(t, err)
	assert.Equal(t, NewDocument(1, "quick", results()).Totals, d.Totals)
	_, err = ReadJSON(strings.NewReader(`{"schema_version": 9}`))
	assert.ErrorContains(t, err, "schema version 9")
	_, err = ReadJSON(strings.NewReader(`[1,2]`))
	assert.ErrorContains(t, err, "not a verify JSON document")
}

// TestSelectionTotals: a selection counts the checks it left out apart
// from the catalog entries without a check (issue 21: 'verify --only X'
// said "44 catalog entries have no check yet"), and shards merge to the
// totals of the whole run.
func TestSelectionTotals(t *testing.T) {
	rs := results()
	var checks []string
	for _, c := range theorems.Catalog() {
		checks = append(checks, c.ID)
	}
	checks = checks[:len(checks)-1] // one entry without a check
	one := Count(rs[:1], checks...)
	assert.Equal(t, 1, one.Unchecked)
	assert.Equal(t, len(checks)-1, one.NotSelected)
	assert.Contains(t, one.Summary(), fmt.Sprintf("; %d other checks not selected; 1 catalog entries have no check yet.", len(checks)-1))
	m, err := Merge(NewDocument(1, "quick", rs[1:], checks...), NewDocument(1, "quick", rs[:1], checks...))
	require.NoError(t, err)
	assert.Equal(t, NewDocument(1, "quick", rs, checks...), m)
	assert.Equal(t, len(checks)-len(rs), m.Totals.NotSelected)
}

// chromiumDOM loads page in headless Chromium and returns the DOM after
// load and the page's console messages (Chromium logs them on stderr as
// ":CONSOLE" lines with --enable-logging=stderr).
func chromiumDOM(t *testing.T, bin string, flags []string, page string) (string, []string) {
	t.Helper()
	cmd := exec.Command(bin, append(flags, "--enable-logging=stderr", "--v=0", "--dump-dom", page)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	var console []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, ":CONSOLE") {
			console = append(console, l)
		}
	}
	return string(dom), console
}

// controlPixels counts the pixels of the controls' colour in a PNG.
func controlPixels(t *testing.T, path string) int {
	t.Helper()
	n, err := ControlPixels(path)
	require.NoError(t, err)
	return n
}
