package dataset

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadCSVInputs: gzip by content, standard input, a byte order mark;
// corrupt gzip and a .gz that is not gzip are clear errors, never "no
// samples" or a dataset of garbage.
func TestLoadCSVInputs(t *testing.T) {
	const text = "1,0.5,2\n-1,3,-4\n"
	good := gz([]byte(text))
	truncated := good[:len(good)-6] // the checksum and size trailer cut
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 0xff
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		content []byte
		stdin   bool
		want    string // "" for success
	}{
		{"plain.csv", []byte(text), false, ""},
		{"data.csv.gz", good, false, ""},
		{"gzip-without-suffix.csv", good, false, ""},
		{"bom.csv", append([]byte("\ufeff"), text...), false, ""},
		{"bom-header.csv", []byte("\ufefflabel,a,b\n" + text), false, ""},
		{"-", []byte(text), true, ""},
		{"-", good, true, ""},
		{"truncated.csv.gz", truncated, false, "corrupt gzip data"},
		{"flipped.csv.gz", flipped, false, "corrupt gzip data"},
		{"text.csv.gz", []byte(text), false, "the name ends in .gz, but the content is not gzip"},
		{"header.csv.gz", good[:5], false, "corrupt gzip header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, stdin := tc.name, bytes.NewReader(tc.content)
			if !tc.stdin {
				path = filepath.Join(dir, tc.name)
				require.NoError(t, os.WriteFile(path, tc.content, 0o644))
			}
			d, err := LoadCSVFrom(path, stdin)
			if tc.want != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.want)
				if !tc.stdin {
					assert.True(t, strings.HasPrefix(err.Error(), path+": "), err.Error())
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, []float64{0.5, 2, 3, -4}, d.X)
			assert.Equal(t, []float64{1, -1}, d.Y)
		})
	}
}

// TestStandardize: mean 0 and standard deviation 1 per feature; a constant
// feature is centred, not divided by 0.
func TestStandardize(t *testing.T) {
	d := &Dataset{N: 4, D: 3, Y: []float64{1, -1, 1, -1}, X: []float64{
		0, 7, 255,
		2, 7, 0,
		4, 7, 255,
		6, 7, 0,
	}}
	mean, scale := d.Standardize()
	assert.Equal(t, []float64{3, 7, 127.5}, mean)
	assert.InDelta(t, math.Sqrt(5), scale[0], 1e-15)
	assert.Equal(t, 1.0, scale[1])
	assert.Equal(t, 127.5, scale[2])
	for j := 0; j < d.D; j++ {
		var s, ss float64
		for i := 0; i < d.N; i++ {
			v := d.X[i*d.D+j]
			require.False(t, math.IsNaN(v))
			s += v
			ss += v * v
		}
		assert.InDelta(t, 0, s/4, 1e-15, "feature %d", j)
		want := 1.0
		if j == 1 {
			want = 0
		}
		assert.InDelta(t, want, ss/4, 1e-15, "feature %d", j)
	}
}
