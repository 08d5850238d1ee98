package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/report"
)

// TestReportInChromium: the report of 'verify --only LL-4.1,ZD-T1,LL-C7
// --report DIR' opened in headless Chromium (Debian's chromium; .ci/run
// installs it): no console message, every image loaded, every entry's plot
// of claims and controls drawn with its controls, and the controls' verdicts
// listed. Skipped without Chromium. One entry of each of sections B, D and
// C, each with engine-fault controls among its hypothesis-breaking ones:
// the report's code paths (figures of the entry, ratio plot of claims and
// controls, claims' bounds drawn again, controls drawn again) are the same
// for every entry, so section C's is LL-C7 (0.1 s of CPU at the quick
// budget) rather than LL-lin (4 s, and 4 s more to draw its controls
// again: issue 28).
func TestReportInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed (apt-get install chromium)")
	}
	t.Parallel() // Chromium's start and page load wait beside other tests
	dir := t.TempDir()
	code, out, errOut := runCLI("verify", "--only", "LL-4.1,ZD-T1,LL-C7", "--report", dir, "--failures", "off")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "3 entries checked: 3 holds")
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--user-data-dir="+t.TempDir(),
		"--enable-logging=stderr", "--v=0", "--dump-dom", "file://"+filepath.Join(dir, "index.html"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	domb, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	dom := string(domb)
	assert.NotContains(t, stderr.String(), ":CONSOLE", "console messages")
	assert.NotContains(t, dom, `data-broken="true"`)
	imgs := regexp.MustCompile(`<img src="([^"]+)"`).FindAllStringSubmatch(dom, -1)
	assert.GreaterOrEqual(t, len(imgs), 3)
	for _, id := range []string{"LL-4_1", "ZD-T1", "LL-C7"} {
		png := filepath.Join(dir, "figures", id+"-cases.png")
		assert.Contains(t, dom, `src="figures/`+id+`-cases.png"`)
		n, err := report.ControlPixels(png)
		require.NoError(t, err)
		assert.Positive(t, n, "%s: no control drawn", id)
	}
	// 3 + 8 + 4 controls (LL-4.1: a too-large step, flow-error-underreported, tableau-b1-misplaced; ZD-T1: missing-zero-grad among its; LL-C7: bias in two ways, backward-first-block, degree-plus-one), each listed as caught.
	assert.Equal(t, 15, strings.Count(dom, `<td class="caught">caught</td>`))
	for _, h := range []string{"command", "commit", "date", "runtime", "machine"} {
		assert.Contains(t, dom, "<th>"+h+"</th>")
	}
	_, err = os.Stat(filepath.Join(dir, "report.md"))
	assert.NoError(t, err)
}
