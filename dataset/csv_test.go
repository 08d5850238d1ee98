package dataset

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadCSV(t *testing.T) {
	d, err := ReadCSV(strings.NewReader("label,x1,x2\n1, 0.5,2\n\n-1,3e-1,-4\n"))
	require.NoError(t, err)
	assert.Equal(t, 2, d.N)
	assert.Equal(t, 2, d.D)
	assert.Equal(t, []float64{0.5, 2, 0.3, -4}, d.X)
	assert.Equal(t, []float64{1, -1}, d.Y)
	assert.NoError(t, d.ValidateBinary())

	// Without a header.
	d, err = ReadCSV(strings.NewReader("0,1\n2,3\n"))
	require.NoError(t, err)
	assert.Equal(t, 2, d.N)
	assert.Equal(t, 1, d.D)
}

// TestReadCSVErrors is the loader's bad-input table: each input gives an
// error naming the problem, never a panic or a dataset with NaN.
func TestReadCSVErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", "no samples"},
		{"blank lines", "\n\n  \n", "no samples"},
		{"header only", "label,x\n", "no samples"},
		{"NaN", "1,2\n1,NaN\n", "line 2 column 2: NaN is not finite"},
		{"Inf", "1,2\n1,-Inf\n", "not finite"},
		{"NaN on first line", "1,nan\n", "not finite"},
		{"overflow", "1,1e400\n", "1e400 is out of the float64 range"},
		{"mixed header", "label,1\n", `"label" is not a number`},
		{"ragged", "1,2,3\n1,2\n", "line 2: 2 columns, but earlier rows have 3"},
		{"ragged longer", "1,2\n1,2,3\n", "3 columns"},
		{"text in data", "1,2\n1,abc\n", `line 2 column 2: "abc" is not a number`},
		{"second header", "a,b\nc,d\n", `"c" is not a number`},
		{"label only", "1\n", "need a target and at least one feature"},
		{"empty field", "1,,2\n", `"" is not a number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ReadCSV(strings.NewReader(tc.in))
			require.Error(t, err)
			assert.Nil(t, d)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

func TestLoadCSVNamesFile(t *testing.T) {
	_, err := LoadCSV("testdata/does-not-exist.csv")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does-not-exist.csv")
}

func TestValidate(t *testing.T) {
	good := func() *Dataset {
		return &Dataset{N: 2, D: 2, X: []float64{1, 2, 3, 4}, Y: []float64{1, -1}}
	}
	require.NoError(t, good().Validate())
	for _, tc := range []struct {
		name string
		mod  func(*Dataset)
		want string
	}{
		{"empty", func(d *Dataset) { d.N = 0 }, "no samples"},
		{"no features", func(d *Dataset) { d.D = 0; d.X = nil }, "no features"},
		{"shape", func(d *Dataset) { d.X = d.X[:3] }, "shape mismatch"},
		{"targets", func(d *Dataset) { d.Y = d.Y[:1] }, "shape mismatch"},
		{"groups", func(d *Dataset) { d.Groups = []int{0} }, "group labels"},
		{"negative group", func(d *Dataset) { d.Groups = []int{0, -1} }, "negative group"},
		{"NaN feature", func(d *Dataset) { d.X[3] = nan() }, "sample 2 feature 2 is NaN"},
		{"Inf target", func(d *Dataset) { d.Y[0] = inf() }, "sample 1 target is +Inf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := good()
			tc.mod(d)
			err := d.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	var nilData *Dataset
	assert.ErrorIs(t, nilData.Validate(), ErrEmpty)
}

func TestValidateLabels(t *testing.T) {
	d := &Dataset{N: 3, D: 1, X: []float64{1, 2, 3}, Y: []float64{1, -1, 0}}
	err := d.ValidateBinary()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sample 3 has label 0")
	assert.ErrorContains(t, d.ValidateClasses(2), "sample 2 has label -1")
	d.Y[1] = 1
	require.NoError(t, d.ValidateClasses(2))
	d.Y[2] = 2
	assert.ErrorContains(t, d.ValidateClasses(2), "labels 0…1")
	d.Y[2] = 0.5
	assert.ErrorContains(t, d.ValidateClasses(3), "label 0.5")
	assert.Equal(t, 2, d.Classes())
}

func TestSubset(t *testing.T) {
	d := &Dataset{N: 3, D: 2, X: []float64{1, 2, 3, 4, 5, 6}, Y: []float64{1, -1, 1}, Groups: []int{0, 1, 1}}
	s := d.Subset([]int{2, 0})
	assert.Equal(t, []float64{5, 6, 1, 2}, s.X)
	assert.Equal(t, []float64{1, 1}, s.Y)
	assert.Equal(t, []int{1, 0}, s.Groups)
	assert.Equal(t, []float64{3, 4}, d.Row(1))
}

func nan() float64 { z := 0.0; return z / z }
func inf() float64 { z := 0.0; return 1 / z }
