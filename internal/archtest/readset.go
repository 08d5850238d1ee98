package archtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// ReadingSet returns the files a reader of a claim opens: the transitive
// closure of the package-level declarations (functions, types, methods,
// constants, variables) that the start functions reach, by file, among
// the packages matched by patterns (relative to the module's root), less
// the files skip says a reader knows already (the core, the harness).
// A start is "importpath.Func". Each file is given relative to root, with
// how many of its declarations the closure reached.
//
// Unlike the file graph, it resolves identifiers with go/types: a method
// is the one its receiver's type declares, across packages. The packages
// matched are type-checked from source; what they import comes from the
// export data `go list -export` writes (the build cache).
func ReadingSet(root string, patterns, starts []string, skip func(rel string) bool) (map[string]int, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	pkgs, err := listExport(root, patterns)
	if err != nil {
		return nil, err
	}
	export := map[string]string{}
	for _, p := range pkgs {
		export[p.ImportPath] = p.Export
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := export[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	decls := map[string]ast.Node{}
	infoOf := map[string]*types.Info{}
	fileOf := map[string]string{}
	for _, p := range pkgs {
		if !p.Matched {
			continue
		}
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: imp, Error: func(error) {}}
		if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
			return nil, fmt.Errorf("type-checking %s: %v", p.ImportPath, err)
		}
		for _, f := range files {
			rel, err := filepath.Rel(root, fset.Position(f.Pos()).Filename)
			if err != nil {
				return nil, err
			}
			for _, d := range f.Decls {
				for _, k := range declKeys(p.ImportPath, d) {
					decls[k], infoOf[k], fileOf[k] = d, info, rel
				}
			}
		}
	}
	seen := map[string]bool{}
	var queue []string
	for _, s := range starts {
		if _, ok := decls[s]; !ok {
			return nil, fmt.Errorf("reading set: no declaration %s", s)
		}
		seen[s] = true
		queue = append(queue, s)
	}
	out := map[string]int{}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		if !skip(fileOf[k]) {
			out[fileOf[k]]++
		}
		info := infoOf[k]
		ast.Inspect(decls[k], func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			u := info.Uses[id]
			if u == nil || u.Pkg() == nil {
				return true
			}
			uk := objectKey(u)
			if _, ok := decls[uk]; ok && !seen[uk] {
				seen[uk] = true
				queue = append(queue, uk)
			}
			return true
		})
	}
	return out, nil
}

// listedPackage is what ReadingSet reads of `go list -json`.
type listedPackage struct {
	ImportPath, Dir, Export string
	GoFiles                 []string
	DepOnly                 bool
	Matched                 bool `json:"-"` // matched by the patterns (not DepOnly)
}

// listExport runs `go list -export -deps -json patterns` in root.
func listExport(root string, patterns []string) ([]listedPackage, error) {
	cmd := exec.Command("go", append([]string{"list", "-export", "-deps", "-json"}, patterns...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, stderr.String())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(b))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		p.Matched = !p.DepOnly
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// declKeys returns the keys of the objects a top-level declaration
// declares: "path.Name", and "path.Recv.Name" for a method.
func declKeys(path string, d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil && len(d.Recv.List) > 0 {
			return []string{path + "." + embeddedName(d.Recv.List[0].Type) + "." + d.Name.Name}
		}
		return []string{path + "." + d.Name.Name}
	case *ast.GenDecl:
		var ks []string
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				ks = append(ks, path+"."+s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					ks = append(ks, path+"."+n.Name)
				}
			}
		}
		return ks
	}
	return nil
}

// objectKey is declKeys' key of a used object (a generic function's or
// method's origin).
func objectKey(o types.Object) string {
	if f, ok := o.(*types.Func); ok {
		f = f.Origin()
		if r := f.Type().(*types.Signature).Recv(); r != nil {
			t := r.Type()
			if p, ok := t.(*types.Pointer); ok {
				t = p.Elem()
			}
			if n, ok := t.(*types.Named); ok {
				return f.Pkg().Path() + "." + n.Obj().Name() + "." + f.Name()
			}
			return "" // an interface's method: no declaration of its own
		}
		return f.Pkg().Path() + "." + f.Name()
	}
	if v, ok := o.(*types.Var); ok && v.IsField() {
		return "" // fields come with their type
	}
	return o.Pkg().Path() + "." + o.Name()
}

// SortedReadingSet lists a reading set's files, sorted, each with the
// number of its declarations reached.
func SortedReadingSet(rs map[string]int) []string {
	var out []string
	for f, n := range rs {
		out = append(out, fmt.Sprintf("%s (%d)", f, n))
	}
	sort.Strings(out)
	return out
}

// inDir reports whether rel (slash or OS separators) is a file directly in
// dir.
func inDir(rel, dir string) bool {
	return filepath.ToSlash(filepath.Dir(rel)) == dir && strings.HasSuffix(rel, ".go")
}
