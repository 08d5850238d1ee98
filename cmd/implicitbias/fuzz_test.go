package main

// Fuzz targets of the CLI: the argument vector of every command with
// generated flag values (a file flag's value becomes the content of a file),
// the one-number-per-line files (weights, groups, θ₀) and the kernel matrix
// file, and verify's JSON documents as merge reads them. Each asserts: no
// panic, and either a clean error (exit 2, or 3 for non-separable data: one
// line on stderr naming the command, nothing on stdout) or a result that
// passes validation (exit 0 or 1 with parseable JSON on stdout). Seed
// corpora: testdata/fuzz/FuzzXxx. Run one with
//
//	go test ./cmd/implicitbias -run '^$' -fuzz '^FuzzCLI$' -fuzztime 2m

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/report"
)

// fuzzCommand is a command with the flags the fuzzer may set. base comes
// first (the fuzzed flags follow and override it: the flag package keeps
// the last value); tail last (loss's formula).
type fuzzCommand struct {
	name       string
	base, tail []string
	flags      []string
}

// File flags take the fuzzed value as the content of a file. Flags that write
// files (--trace, --export, --report) and the slow modes (verify --hunt, loss
// --run) are left out.
var fileFlags = map[string]bool{"--data": true, "--groups": true, "--kernel": true, "--theta0": true, "--init": true, "--weights-file": true}

var fuzzCommands = []fuzzCommand{
	{"train", []string{"--data", "testdata/sep2d.csv", "--steps", "20"}, nil,
		[]string{"--data", "--model", "--loss", "--opt", "--lr", "--tol", "--steps", "--stop-log-loss", "--seed", "--record", "--weights", "--weights-file", "--groups", "--l2"}},
	{"kkt", []string{"--data", "testdata/sep2d.csv", "--steps", "20", "--model", "mlp:relu:2x4", "--json"}, nil,
		[]string{"--data", "--model", "--loss", "--lr", "--steps", "--seed", "--window", "--growth"}},
	{"maxmargin", []string{"--data", "testdata/sep2d.csv"}, nil, []string{"--data", "--kernel"}},
	{"interpolate", []string{"--data", "testdata/sep2d.csv", "--mu", "1"}, nil, []string{"--data", "--theta0", "--mu", "--weights"}},
	{"bench", []string{"--workload", "W1", "--steps", "2", "--json"}, nil, []string{"--workload", "--steps", "--threads", "--seed", "--init"}},
	{"loss", []string{"--json"}, []string{"exp(-q)"}, []string{"--certify", "--evidence", "--seed"}},
	{"verify", []string{"--only", "LL-B3", "--json"}, nil, []string{"--seed", "--shard", "--budget"}},
}

// tooSlow reports whether a flag value would make one fuzz execution take
// seconds (long runs, large models): such inputs are skipped, not failed.
func tooSlow(flagName, v string) bool {
	switch flagName {
	case "--steps", "--window", "--threads":
		n, err := strconv.ParseInt(v, 0, 64)
		return err == nil && (n > 200 || (flagName == "--steps" && n == 0))
	case "--budget":
		return v == "standard" || v == "long"
	case "--model":
		m, err := models.Parse(v, 2)
		return err == nil && m.NumParams() > 5000
	case "--certify", "--evidence":
		x, err := strconv.ParseFloat(v, 64)
		return err == nil && x > 1e6
	case "--tol":
		x, err := strconv.ParseFloat(v, 64)
		return err == nil && x < 1e-12
	}
	return false
}

// cliArgs builds the argument vector; it returns nil for a skipped input.
func cliArgs(t *testing.T, cmd uint8, flags []uint8, values []string) []string {
	c := fuzzCommands[int(cmd)%len(fuzzCommands)]
	args := append([]string{c.name}, c.base...)
	dir := ""
	for i, fi := range flags {
		name := c.flags[int(fi)%len(c.flags)]
		v := values[i]
		if tooSlow(name, v) {
			return nil
		}
		if fileFlags[name] || (name == "--weights" && c.name == "interpolate") {
			if dir == "" {
				dir = t.TempDir()
			}
			p := filepath.Join(dir, strconv.Itoa(i))
			if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
				t.Fatal(err)
			}
			if name == "--weights-file" {
				name, p = "--weights", "file:"+p
			}
			v = p
		}
		args = append(args, name, v)
	}
	if c.name == "train" || c.name == "kkt" {
		// The data file may have been replaced: keep the run short anyway
		// (a fuzzed --steps was checked by tooSlow).
		if m, err := models.Parse(specOf(args), 1); err == nil && m.NumParams() > 5000 {
			return nil
		}
	}
	return append(args, c.tail...)
}

// specOf returns the last --model value of args ("" if none).
func specOf(args []string) string {
	spec := ""
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--model" {
			spec = args[i+1]
		}
	}
	return spec
}

// checkCLI asserts the contract of every command's exit.
func checkCLI(t *testing.T, args []string, code int, out, errOut string) {
	t.Helper()
	switch code {
	case exitOK, exitViolated:
		if strings.TrimSpace(out) == "" {
			t.Fatalf("%q: exit %d with no output (stderr %q)", args, code, errOut)
		}
		var doc any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%q: exit %d but stdout is not JSON: %v\n%s", args, code, err, out)
		}
	case exitUsage, exitNotSeparable, exitDiverged:
		if out != "" {
			t.Fatalf("%q: exit %d with stdout %q", args, code, out)
		}
		if strings.Count(errOut, "\n") != 1 || !strings.HasSuffix(errOut, "\n") {
			t.Fatalf("%q: exit %d: not a one-line error: %q", args, code, errOut)
		}
		if !strings.HasPrefix(errOut, "implicitbias "+args[0]) {
			t.Fatalf("%q: error does not name the command: %q", args, errOut)
		}
	case exitInterrupted:
	default:
		t.Fatalf("%q: exit status %d not in {0, 1, 2, 3, 4, 130} (stderr %q)", args, code, errOut)
	}
}

// FuzzCLI runs a command with up to three fuzzed flags.
func FuzzCLI(f *testing.F) {
	seeds := []struct {
		cmd        uint8
		f1, f2, f3 uint8
		v1, v2, v3 string
	}{
		{0, 1, 2, 4, "mlp:relu:2x4", "logistic", "0.05"},
		{0, 3, 4, 11, "momentum", "-1", "gdro:0.5"},
		{0, 0, 12, 10, "1,1,0\n-1,0,1\n1,2,2\n", "0\n1\n0\n", "iw"},
		{0, 10, 0, 2, "0.5\n1\n", "1,1\n-1,2\n", "exp"},
		{0, 2, 1, 3, "ce", "linear/2", "flow"},
		{1, 0, 4, 6, "1,1,2\n-1,0,1\n-1,1,2\n", "5", "8"},
		{1, 2, 3, 7, "logistic", "1e300", "1.5"},
		{2, 0, 1, 1, "1,1,0\n-1,0,1\n", "2,1\n1,2\n", "1,0\n0,1\n"},
		{2, 0, 0, 0, "1,1\n1,-1\n", "", "y,x\n"},
		{3, 0, 1, 2, "1,1,0,0\n-1,0,1,0\n", "0\n0\n0\n", "1e-3"},
		{3, 3, 3, 2, "1\n2\n", "0\n1\n", "0"},
		{4, 0, 1, 2, "W2", "3", "2"},
		{4, 4, 4, 4, `{"workload":"W1"}`, "", "[]"},
		{5, 0, 1, 2, "10", "1e3", "7"},
		{6, 0, 1, 2, "42", "1/3", "quick"},
		{6, 1, 1, 1, "3/2", "x", "-1/2"},
	}
	for _, s := range seeds {
		f.Add(s.cmd, s.f1, s.v1, s.f2, s.v2, s.f3, s.v3)
	}
	f.Fuzz(func(t *testing.T, cmd, f1 uint8, v1 string, f2 uint8, v2 string, f3 uint8, v3 string) {
		args := cliArgs(t, cmd, []uint8{f1, f2, f3}, []string{v1, v2, v3})
		if args == nil {
			t.Skip("too slow for a fuzz execution")
		}
		code, out, errOut := runCLI(args...)
		checkCLI(t, args, code, out, errOut)
	})
}

// FuzzVectorFile: the one-number-per-line files of --weights, --groups and
// --theta0. Accepted weights are n positive finite numbers summing to 1 (to
// the rounding of n additions); groups are n integers ≥ 0; any accepted
// vector is finite.
func FuzzVectorFile(f *testing.F) {
	for _, s := range []string{"1\n2\n3\n", "0.5\n\n0.5\n", "-1\n2\n", "0\n1\n", "NaN\n", "1e308\n1e308\n", "4.9e-324\n1\n", "", " 7 \n", "1,2\n", "0x1p-3\n3\n"} {
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, content string, n8 uint8) {
		n := 1 + int(n8)%8
		p := filepath.Join(t.TempDir(), "v.txt")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		oneLine := func(err error) {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
		}
		if v, err := readVector(p, "test"); err != nil {
			oneLine(err)
		} else {
			for i, x := range v {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("entry %d accepted as %v", i, x)
				}
			}
		}
		if w, err := readWeights(p, n); err != nil {
			oneLine(err)
		} else {
			if len(w) != n {
				t.Fatalf("%d weights for %d samples", len(w), n)
			}
			var sum float64
			for i, x := range w {
				if !(x > 0) || math.IsInf(x, 0) {
					t.Fatalf("weight %d accepted as %v", i, x)
				}
				sum += x
			}
			// n roundings of the normalization and n of the sum.
			if math.Abs(sum-1) > 4*float64(n)*0x1p-52 {
				t.Fatalf("weights sum to %v", sum)
			}
		}
		if g, err := readGroups(p, n); err != nil {
			oneLine(err)
		} else if len(g) != n {
			t.Fatalf("%d groups for %d samples", len(g), n)
		} else {
			for i, x := range g {
				if x < 0 {
					t.Fatalf("group %d accepted as %d", i, x)
				}
			}
		}
	})
}

// FuzzKernelFile: an accepted kernel file is an n×n symmetric finite matrix.
func FuzzKernelFile(f *testing.F) {
	for _, s := range []string{"1,0\n0,1\n", "a,b\n1,0.5\n0.5,1\n", "1,2\n3,4\n", "1\n", "1,NaN\n0,1\n", "", "1,0,\n0,1\n", "\n\n1 , 0\n0, 1\n"} {
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, content string, n8 uint8) {
		n := 1 + int(n8)%5
		p := filepath.Join(t.TempDir(), "k.csv")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		k, err := loadKernel(p, n)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if r, c := k.Dims(); r != n || c != n {
			t.Fatalf("kernel %d×%d for %d samples", r, c, n)
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				v := k.At(i, j)
				if math.IsNaN(v) || math.IsInf(v, 0) || v != k.At(j, i) {
					t.Fatalf("K[%d][%d] = %v, K[%d][%d] = %v", i, j, v, j, i, k.At(j, i))
				}
			}
		}
	})
}

// FuzzMergeDocument: verify's JSON documents as merge reads them. An
// accepted document merges with itself into a document that reads back.
func FuzzMergeDocument(f *testing.F) {
	_, doc, _ := runCLI("verify", "--only", "LL-B3", "--json", "--shard", "0/2")
	f.Add(doc)
	for _, s := range []string{`{"schema_version":1}`, `{"schema_version":2,"entries":[]}`, `{"schema_version":1,"seed":1,"budget":"quick","entries":[{"id":"LL-B3","status":"holds"}]}`, `[]`, `{`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		d, err := report.ReadJSON(strings.NewReader(content))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		p := filepath.Join(t.TempDir(), "a.json")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"merge", p}
		code, out, errOut := runCLI(args...)
		checkCLI(t, args, code, out, errOut)
		if code == exitOK {
			if _, err := report.ReadJSON(strings.NewReader(out)); err != nil {
				t.Fatalf("merge of %q wrote a document it cannot read: %v", content, err)
			}
		}
		_ = d
	})
}
