package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHelpEverywhere: -h, -help and --help after any command, and 'help
// CMD', print the command's help on stdout with exit status 0, and every
// help lists the exit statuses (issue 21: -h exited 2 with "see implicitbias
// help X", merge -h printed "flag: help requested").
func TestHelpEverywhere(t *testing.T) {
	for _, c := range commands {
		for _, args := range [][]string{{c.name, "-h"}, {c.name, "--help"}, {c.name, "-help"}, {"help", c.name}, {c.name, "--seed", "3", "-h"}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, out, errOut := runCLI(args...)
				assert.Equal(t, exitOK, code, errOut)
				assert.Empty(t, errOut)
				assert.True(t, strings.HasPrefix(out, "implicitbias "+c.name), "help of %s starts with its usage line: %q", c.name, out[:min(len(out), 60)])
				assert.Contains(t, out, "Exit status")
			})
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		code, out, errOut := runCLI(args...)
		assert.Equal(t, exitOK, code, errOut)
		assert.Contains(t, out, "Commands:")
		assert.Contains(t, out, "Exit status")
	}
	// Flags without a command are verify's, so is their help.
	code, out, _ := runCLI("--only", "LL-B3", "-h")
	assert.Equal(t, exitOK, code)
	assert.True(t, strings.HasPrefix(out, "implicitbias verify"))
	// A "-h" after "--" is an argument (a formula), not a request for help.
	code, _, errOut := runCLI("loss", "--", "-h")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "implicitbias loss: ")
}

// TestBareCommand: implicitbias without arguments prints the usage on
// stderr and exits 2; it does not start the whole suite.
func TestBareCommand(t *testing.T) {
	code, out, errOut := runCLI()
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "Commands:")
}
