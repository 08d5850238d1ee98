package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/properties/suite"
	"github.com/implicitbias/implicitbias/report"
)

// TestReportInChromium: the report of sectionsReport's run (ten entries of
// sections B, C and D, each with engine-fault controls among its
// hypothesis-breaking ones) opened in headless Chromium (Debian's chromium;
// .ci/run installs it): no console message, every image loaded, every
// entry's plot of claims and controls drawn with its controls, and every
// control's verdict listed as caught. Skipped without Chromium. The
// report's code paths (figures of the entry, ratio plot of claims and
// controls, the controls' cases kept by the run) are the same for every
// entry; section C's are LL-C7, LL-C8, LL-I1 (a fraction of a second of CPU
// at the quick budget) rather than LL-lin (4 s: issue 28).
func TestReportInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed (apt-get install chromium)")
	}
	t.Parallel() // Chromium's start and page load wait beside other tests
	dir, out := sectionsReport(t)
	var doc struct {
		Entries []struct {
			ID             string
			Status         string
			ControlsCaught int `json:"controls_caught"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	// The controls the catalog declares on the entries (fault controls
	// included), each of which the page must list as caught.
	entries, err := suite.Select(sectionsOnly)
	require.NoError(t, err)
	require.Len(t, doc.Entries, len(entries))
	controls := 0
	for i, e := range entries {
		controls += len(e.Controls)
		require.Equal(t, e.ID, doc.Entries[i].ID)
		assert.Equal(t, "holds", doc.Entries[i].Status, e.ID)
		assert.Equal(t, len(e.Controls), doc.Entries[i].ControlsCaught, "%s: every control caught", e.ID)
	}
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
	assert.GreaterOrEqual(t, len(imgs), len(entries))
	for _, stem := range []string{"LL-A5", "LL-5_1", "LL-4_1", "LL-C7", "LL-C8", "LL-I1", "ZD-P17", "ZD-T10", "ZD-span", "ZD-T1"} {
		png := filepath.Join(dir, "figures", stem+"-cases.png")
		assert.Contains(t, dom, `src="figures/`+stem+`-cases.png"`)
		n, err := report.ControlPixels(png)
		require.NoError(t, err)
		assert.Positive(t, n, "%s: no control drawn", stem)
	}
	assert.Equal(t, controls, strings.Count(dom, `<td class="caught">caught</td>`))
	for _, h := range []string{"command", "commit", "date", "runtime", "machine"} {
		assert.Contains(t, dom, "<th>"+h+"</th>")
	}
	_, err = os.Stat(filepath.Join(dir, "report.md"))
	assert.NoError(t, err)
}
