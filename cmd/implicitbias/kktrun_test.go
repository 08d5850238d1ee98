package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/train"
)

// TestKKTInterrupt: kkt ended by its context (SIGINT, SIGTERM in main)
// prints the checkpoints it reached as valid JSON and exits 130.
func TestKKTInterrupt(t *testing.T) {
	data := filepath.Join(t.TempDir(), "d.csv")
	require.NoError(t, os.WriteFile(data, []byte("1,1,0\n-1,0,1\n1,2,1\n"), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var o, e bytes.Buffer
	start := time.Now()
	code := runKKTContext(ctx, []string{"--data", data, "--steps", "2000000000", "--json"}, &o, &e)
	assert.Less(t, time.Since(start), 20*time.Second)
	assert.Equal(t, exitInterrupted, code, e.String())
	assert.Contains(t, e.String(), "interrupted")
	var rows []map[string]any
	require.NoError(t, json.Unmarshal(o.Bytes(), &rows), o.String())
	assert.NotEmpty(t, rows)
}

// TestAbsoluteStep: "step A: step B: …" of a run inside a run reads "step
// A+B: …" and still unwraps to the engine's error; an error that only reads
// like one is left alone.
func TestAbsoluteStep(t *testing.T) {
	inner := &train.StepError{Step: 3, Err: fmt.Errorf("%w: θ[0] became NaN (diverged)", train.ErrNonFinite)}
	nested := &train.StepError{Step: 64, Err: inner}
	assert.Equal(t, "step 64: step 3: train: non-finite value: θ[0] became NaN (diverged)", nested.Error())
	err := absoluteStep(nested)
	assert.Equal(t, "step 67: train: non-finite value: θ[0] became NaN (diverged)", err.Error())
	assert.True(t, errors.Is(err, train.ErrNonFinite))
	plain := errors.New("step 2: step 5: bad")
	assert.Equal(t, plain, absoluteStep(plain))
	one := &train.StepError{Step: 2, Err: errors.New("bad")}
	assert.Equal(t, error(one), absoluteStep(one))
	assert.Nil(t, absoluteStep(nil))
}
