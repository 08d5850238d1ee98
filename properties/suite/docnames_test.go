package suite

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestDocsNameTests: every test name the docs give (docs/*.md, README.md)
// names a test function of the module, or is the prefix of one (a `go
// test -run` pattern such as TestLL_ or 'TestZD_(L3|T6)' starts with one).
// A renamed or folded test leaves the docs pointing at nothing: `go test
// -run` then runs no test and passes (the docs named TestSectionFFaultPower
// for a stop after it was folded into TestFaultPower).
func TestDocsNameTests(t *testing.T) {
	root := "../.."
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz|Example)[A-Za-z0-9_]*)\(`)
	var funcs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllSubmatch(b, -1) {
			funcs = append(funcs, string(m[1]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs found under %s/docs: %v", root, err)
	}
	docs = append(docs, filepath.Join(root, "README.md"))
	named := regexp.MustCompile(`\bTest[A-Z][A-Za-z0-9_]*`)
	var stale []string
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range named.FindAllString(string(b), -1) {
			if !prefixOfAny(name, funcs) {
				stale = append(stale, filepath.Base(doc)+": "+name)
			}
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("the docs name tests that do not exist:\n\t%s", strings.Join(stale, "\n\t"))
	}
}

func prefixOfAny(name string, funcs []string) bool {
	for _, f := range funcs {
		if strings.HasPrefix(f, name) {
			return true
		}
	}
	return false
}
