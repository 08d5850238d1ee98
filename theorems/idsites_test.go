package theorems_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/implicitbias/implicitbias/theorems"
)

// TestIDSites enforces issue 22's rule, one place per claim: outside the
// catalog (catalog.go, which declares each ID's constant) and the tests,
// the string of a catalog ID appears as a literal at most once in the
// module's Go code — in the claim's entry literal (properties) — and
// everything else that names a claim uses the constant or the entry. A
// second literal is a second place to edit when a claim moves: the fault
// lists, the loss requirements and check's recorded-run claims each held
// one before (they now sit on the entry, the catalog row and the
// constants). The scan is exact (go/parser's string literals equal to an
// ID), so prose that mentions an ID ("as LL-lin, …") is not a site.
func TestIDSites(t *testing.T) {
	ids := map[string]bool{}
	for _, info := range theorems.Catalog() {
		ids[info.ID] = true
	}
	sites := map[string][]string{}
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.ToSlash(path) == "../theorems/catalog.go" {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && ids[s] {
				sites[s] = append(sites[s], path)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for id, at := range sites {
		if len(at) > 1 {
			t.Errorf("catalog ID %q is written at %d sites outside catalog.go (%s): name it by theorems' constant or through its entry", id, len(at), strings.Join(at, ", "))
		}
	}
	if len(sites) == 0 {
		t.Error("no catalog ID found outside catalog.go: the scan does not see the entries' literals")
	}
}
