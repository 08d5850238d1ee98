package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/implicitbias/implicitbias/report"
)

// provenance says where a report comes from: the command line as typed,
// the commit (the binary's VCS stamp, else git in the working directory,
// else "unknown"), the date, the wall time of the run and the machine.
func provenance(args []string, start time.Time) *report.Provenance {
	quoted := []string{"implicitbias"}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"$*?|&;<>()") {
			a = shellQuote(a)
		}
		quoted = append(quoted, a)
	}
	return &report.Provenance{
		Command: strings.Join(quoted, " "),
		Commit:  commit(),
		Date:    start.UTC().Format(time.RFC3339),
		Runtime: time.Since(start).Round(100 * time.Millisecond).String(),
		Machine: machine(),
	}
}

func commit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if dirty {
				rev += " (with uncommitted changes)"
			}
			return rev
		}
	}
	// go run does not stamp the binary: ask git, briefly.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	rev := strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		rev += " (with uncommitted changes)"
	}
	return rev
}

func machine() string {
	m := fmt.Sprintf("%s/%s, %d CPUs (GOMAXPROCS %d), %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version())
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v) + ", " + m
			}
		}
	}
	return m
}
