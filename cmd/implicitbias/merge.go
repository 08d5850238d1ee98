package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/implicitbias/implicitbias/report"
)

const mergeUsage = `implicitbias merge FILE.json…

Joins the --json outputs of 'verify --shard I/N' runs (same seed and budget,
disjoint entries) into the document of the whole run and prints it.

Exit status: 0 on success, 2 for bad input (an unreadable file, documents of
different seeds or budgets, or an entry in two of them).
`

func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return fail(stderr, "merge", err)
	}
	if fs.NArg() == 0 {
		return fail(stderr, "merge", fmt.Errorf("give the JSON files to merge"))
	}
	var docs []report.Document
	for _, p := range fs.Args() {
		f, err := os.Open(p)
		if err != nil {
			return fail(stderr, "merge", err)
		}
		d, err := report.ReadJSON(f)
		f.Close()
		if err != nil {
			return fail(stderr, "merge", fmt.Errorf("%s: %v", p, err))
		}
		docs = append(docs, d)
	}
	m, err := report.Merge(docs...)
	if err != nil {
		return fail(stderr, "merge", err)
	}
	if err := report.WriteJSON(stdout, m); err != nil {
		return fail(stderr, "merge", err)
	}
	return exitOK
}
