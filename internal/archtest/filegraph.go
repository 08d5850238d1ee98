package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Package is the parsed non-test files of one package directory.
type Package struct {
	Dir   string
	Files map[string]*ast.File // by base name
	Lines int                  // the non-test files' lines
}

// ParseDir parses the non-test Go files of dir.
func ParseDir(dir string) (*Package, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	p := &Package{Dir: dir, Files: map[string]*ast.File{}}
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			return nil, err
		}
		p.Files[name] = f
		p.Lines += fset.File(f.Pos()).LineCount()
	}
	return p, nil
}

// Graph returns the file-to-file references of p: Graph()[a] lists the
// files (other than a) whose package-level declarations a uses, sorted.
func (p *Package) Graph() map[string][]string {
	out := map[string][]string{}
	for a, to := range p.Refs() {
		list := []string{}
		for b := range to {
			list = append(list, b)
		}
		sort.Strings(list)
		out[a] = list
	}
	return out
}

// Refs returns the names behind each arrow of Graph: Refs()[a][b] lists
// the declarations of b that a uses, sorted.
func (p *Package) Refs() map[string]map[string][]string {
	decl := map[string]string{}      // package-level name → file
	methods := map[string][]string{} // method name → files declaring one
	fields := map[string]bool{}      // field names of the package's structs
	for name, f := range p.Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					decl[d.Name.Name] = name
				} else {
					methods[d.Name.Name] = append(methods[d.Name.Name], name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						decl[s.Name.Name] = name
					case *ast.ValueSpec:
						for _, n := range s.Names {
							decl[n.Name] = name
						}
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if st, ok := n.(*ast.StructType); ok {
				for _, fl := range st.Fields.List {
					for _, nm := range fl.Names {
						fields[nm.Name] = true
					}
					if len(fl.Names) == 0 { // embedded: named by its type
						fields[embeddedName(fl.Type)] = true
					}
				}
			}
			return true
		})
	}
	out := map[string]map[string][]string{}
	for name, f := range p.Files {
		to := map[string]map[string]bool{}
		add := func(b, what string) {
			if b != "" && b != name {
				if to[b] == nil {
					to[b] = map[string]bool{}
				}
				to[b][what] = true
			}
		}
		// Keys of composite literals name fields, not declarations, unless
		// the package declares a constant or variable of that name.
		// So do a method's name, a struct's or an interface's field names
		// and labels: go/parser leaves them unresolved too.
		keys := map[*ast.Ident]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				keys[n.Name] = true
			case *ast.Field:
				for _, nm := range n.Names {
					keys[nm] = true
				}
			case *ast.LabeledStmt:
				keys[n.Label] = true
			case *ast.BranchStmt:
				if n.Label != nil {
					keys[n.Label] = true
				}
			}
			return true
		})
		var walk func(n ast.Node) bool
		walk = func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				for _, e := range n.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						if id, ok := kv.Key.(*ast.Ident); ok {
							keys[id] = true
						}
					}
				}
			case *ast.SelectorExpr:
				// x.M: a method of the package, when its name is unambiguous.
				// An unresolved x that the package does not declare is an
				// imported package: pkg.M is not a method.
				x, isIdent := n.X.(*ast.Ident)
				imported := isIdent && x.Obj == nil && decl[x.Name] == ""
				if fs := methods[n.Sel.Name]; len(fs) == 1 && !fields[n.Sel.Name] && !imported {
					add(fs[0], "."+n.Sel.Name)
				}
				ast.Inspect(n.X, walk) // not n.Sel: a field or a method
				return false
			}
			return visitIdent(n, keys, decl, add)
		}
		ast.Inspect(f, walk)
		out[name] = map[string][]string{}
		for b, whats := range to {
			var list []string
			for w := range whats {
				list = append(list, w)
			}
			sort.Strings(list)
			out[name][b] = list
		}
	}
	return out
}

func visitIdent(n ast.Node, keys map[*ast.Ident]bool, decl map[string]string, add func(b, what string)) bool {
	id, ok := n.(*ast.Ident)
	if !ok || id.Obj != nil || keys[id] {
		return true
	}
	add(decl[id.Name], id.Name)
	return true
}

// Cycle returns one cycle of g (its files in order, the first repeated
// at the end), or nil when g has none.
func Cycle(g map[string][]string) []string {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []string
	var found []string
	var visit func(a string) bool
	visit = func(a string) bool {
		color[a] = grey
		stack = append(stack, a)
		for _, b := range g[a] {
			switch color[b] {
			case grey:
				i := len(stack) - 1
				for stack[i] != b {
					i--
				}
				found = append(append([]string(nil), stack[i:]...), b)
				return true
			case white:
				if visit(b) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[a] = black
		return false
	}
	var names []string
	for a := range g {
		names = append(names, a)
	}
	sort.Strings(names)
	for _, a := range names {
		if color[a] == white && visit(a) {
			return found
		}
	}
	return nil
}

// formatCycle writes a cycle as a → b → a, each arrow with the
// declarations behind it.
func formatCycle(c []string, refs map[string]map[string][]string) string {
	var b strings.Builder
	b.WriteString(c[0])
	for i := 1; i < len(c); i++ {
		fmt.Fprintf(&b, " →(%s) %s", strings.Join(refs[c[i-1]][c[i]], ", "), c[i])
	}
	return b.String()
}

// Tangles returns the strongly connected components of g with more than
// one file (each a set of files that reach one another), sorted: every
// cycle of g lies in one of them.
func Tangles(g map[string][]string) [][]string {
	index, low := map[string]int{}, map[string]int{}
	on := map[string]bool{}
	var stack []string
	var out [][]string
	next := 0
	var strong func(a string)
	strong = func(a string) {
		index[a], low[a] = next, next
		next++
		stack = append(stack, a)
		on[a] = true
		for _, b := range g[a] {
			if _, seen := index[b]; !seen {
				strong(b)
				low[a] = min(low[a], low[b])
			} else if on[b] {
				low[a] = min(low[a], index[b])
			}
		}
		if low[a] == index[a] {
			var comp []string
			for {
				b := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[b] = false
				comp = append(comp, b)
				if b == a {
					break
				}
			}
			if len(comp) > 1 {
				sort.Strings(comp)
				out = append(out, comp)
			}
		}
	}
	var names []string
	for a := range g {
		names = append(names, a)
	}
	sort.Strings(names)
	for _, a := range names {
		if _, seen := index[a]; !seen {
			strong(a)
		}
	}
	return out
}

// formatTangle writes the arrows inside a tangle with the declarations
// behind each.
func formatTangle(comp []string, refs map[string]map[string][]string) string {
	in := map[string]bool{}
	for _, a := range comp {
		in[a] = true
	}
	var b strings.Builder
	for _, a := range comp {
		for _, c := range comp {
			if ws, ok := refs[a][c]; ok && in[c] {
				fmt.Fprintf(&b, "\n\t\t%s → %s (%s)", a, c, strings.Join(ws, ", "))
			}
		}
	}
	return b.String()
}

// embeddedName returns the field name of an embedded type: T, *T, pkg.T,
// T[P] are all named T.
func embeddedName(t ast.Expr) string {
	switch t := t.(type) {
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.IndexExpr:
		return embeddedName(t.X)
	case *ast.IndexListExpr:
		return embeddedName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return ""
}
