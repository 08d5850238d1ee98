package archtest

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// MaxFiles and MaxLines bound a family or harness package (issue 27): a
// reader reads such a package as one unit.
const (
	MaxFiles = 25
	MaxLines = 4000
)

// root is the module's root, from this package's directory.
const root = "../.."

// familyDirs returns the directories of the family and harness packages:
// theorems and properties and every package below them, without testdata.
func familyDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	for _, top := range []string{"theorems", "properties"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(dirs)
	return dirs
}

func TestNoFileCycles(t *testing.T) {
	for _, dir := range familyDirs(t) {
		p, err := ParseDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Files) == 0 {
			continue
		}
		rel, _ := filepath.Rel(root, dir)
		g := p.Graph()
		c := Cycle(g)
		if c != nil {
			t.Errorf("%s: the files refer to each other in a cycle: %s (move the declaration to the file of its one idea)", rel, formatCycle(c, p.Refs()))
			for _, comp := range Tangles(g) {
				t.Logf("%s: the files of one tangle: %s", rel, formatTangle(comp, p.Refs()))
			}
		}
		if len(p.Files) > MaxFiles || p.Lines > MaxLines {
			t.Errorf("%s: %d non-test files, %d lines: above %d files or %d lines", rel, len(p.Files), p.Lines, MaxFiles, MaxLines)
		}
	}
}

// TestCycleFinds is the negative control of TestNoFileCycles: Cycle finds a
// cycle planted in a graph and none in a chain.
func TestCycleFinds(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    map[string][]string
		want bool
	}{
		{"chain", map[string][]string{"a.go": {"b.go"}, "b.go": {"c.go"}, "c.go": nil}, false},
		{"diamond", map[string][]string{"a.go": {"b.go", "c.go"}, "b.go": {"d.go"}, "c.go": {"d.go"}}, false},
		{"two", map[string][]string{"a.go": {"b.go"}, "b.go": {"a.go"}}, true},
		{"three", map[string][]string{"a.go": {"b.go"}, "b.go": {"c.go"}, "c.go": {"a.go"}}, true},
	} {
		if got := Cycle(tc.g) != nil; got != tc.want {
			t.Errorf("%s: cycle found %v, want %v", tc.name, got, tc.want)
		}
		if got := len(Tangles(tc.g)) > 0; got != tc.want {
			t.Errorf("%s: tangles %v, want a tangle %v", tc.name, Tangles(tc.g), tc.want)
		}
	}
}

// TestGraphSeesUses plants two files that use each other's declarations
// (a function, a type's method, a constant) and checks that the graph
// has both arrows.
func TestGraphSeesUses(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "package p\n\nimport \"math\"\n\nconst bound = 1\n\nfunc f(x float64) float64 { var t tally; return t.sum(math.Abs(x)) }\n")
	write("b.go", "package p\n\ntype tally struct{ n int }\n\nfunc (t tally) sum(x float64) float64 { return x * bound }\n")
	write("c.go", "package p\n\ntype r struct{ bound int }\n\nfunc (r) f() {}\n\nfunc g() float64 { var y r; _ = y; return 0 }\n\nfunc h(x interface{ f() r }) int { return x.f().bound }\n")
	p, err := ParseDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	g := p.Graph()
	if len(g["a.go"]) != 1 || g["a.go"][0] != "b.go" || len(g["b.go"]) != 1 || g["b.go"][0] != "a.go" {
		t.Errorf("graph %v: want a.go ⇄ b.go", g)
	}
	if len(g["c.go"]) != 0 {
		t.Errorf("c.go refers to %v: a field, a method's name and a local are not uses of a.go's declarations", g["c.go"])
	}
	if Cycle(g) == nil {
		t.Error("no cycle found in a.go ⇄ b.go")
	}
}
