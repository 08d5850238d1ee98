// Package archtest holds the module's architecture tests: within each
// family and harness package (theorems/..., properties/...), the files
// refer to one another without a cycle, and no such package grows past
// MaxFiles non-test files or MaxLines lines (docs/architecture.md, "The
// file graph").
//
// A file A refers to a file B of the same package when A uses a
// package-level declaration of B: a function, type, constant or variable
// named by an identifier that A's own scope leaves unresolved (go/parser's
// object resolution), a method called through a selector when exactly one
// type of the package declares a method of that name and no struct of the
// package has a field of it, and the receiver type of a method declared in
// A. Only go/parser and go/ast are used: the check needs no type checker
// and no build of the module.
//
// The reading sets (ReadingSet, TestReadingSets) are the files a reader of
// LL-4.4 and ZD-T7 opens besides the core and the harness, at most
// MaxReadingSet each: the closure of the declarations their entry's
// property and check reach, resolved with go/types over the export data of
// `go list -export`.
package archtest
