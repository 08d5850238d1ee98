package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGRWClassTable(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"grwclass", "--steps", "300"}, &out, &errb)
	assert.Equal(t, exitOK, code, errb.String())
	s := out.String()
	assert.Contains(t, s, "| scheme | logistic: ∠(θ_T, θ̂_MM) |")
	for _, scheme := range []string{"erm", "iw", "static", "gdro", "chi2", "cvar", "schedule-A1", "schedule-A3", "iw[1/M,M]"} {
		assert.Contains(t, s, "| "+scheme, scheme)
	}
	assert.Equal(t, 9+2, strings.Count(s, "\n|"), s) // header, rule and 9 schemes, each after a newline
}

func TestGRWClassBadInput(t *testing.T) {
	for _, args := range [][]string{{"grwclass", "--steps", "5"}, {"grwclass", "--seed", "x"}, {"grwclass", "extra"}} {
		var out, errb bytes.Buffer
		assert.Equal(t, exitUsage, run(args, &out, &errb), args)
		assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "one-line error: %q", errb.String())
	}
}
