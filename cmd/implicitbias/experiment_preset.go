package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// experimentPreset is a named set of experiment flags.
type experimentPreset struct {
	name  string
	flags [][2]string // flag, value, in the order printed
}

// experimentPresets: "small" is the largest LL-style configuration found to
// reach every threshold of LL's Table 1 (1e-800 included) within 60 CPU
// minutes on two cores (docs/cnn.md, "A Table 1 two cores finish").
func experimentPresets() []experimentPreset {
	return []experimentPreset{{
		name: "small",
		flags: [][2]string{
			{"image", "14"}, {"n-train", "50"}, {"n-test", "1000"}, {"batch", "5"},
			{"width-scale", "0.125"}, {"max-epochs", "1000000"}, {"eval-every", "1000"},
		},
	}}
}

// applyPreset sets the preset's flags that the command line did not set
// itself, and prints what it set on stderr.
func applyPreset(fs *flag.FlagSet, f *experimentFlags, stderr io.Writer) error {
	if f.preset == "" {
		return nil
	}
	var p *experimentPreset
	var names []string
	for _, q := range experimentPresets() {
		names = append(names, q.name)
		if q.name == f.preset {
			p = &q
		}
	}
	if p == nil {
		return fmt.Errorf("--preset %q: want one of %s", f.preset, strings.Join(names, ", "))
	}
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	var set []string
	for _, kv := range p.flags {
		if given[kv[0]] {
			continue
		}
		if err := fs.Set(kv[0], kv[1]); err != nil {
			return fmt.Errorf("--preset %s: --%s %s: %v", p.name, kv[0], kv[1], err)
		}
		set = append(set, "--"+kv[0]+" "+kv[1])
	}
	fmt.Fprintf(stderr, "implicitbias experiment: --preset %s sets %s\n", p.name, strings.Join(set, " "))
	return nil
}
