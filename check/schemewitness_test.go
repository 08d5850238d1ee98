package check

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/dataset"
	"github.com/implicitbias/implicitbias/faults"
	"github.com/implicitbias/implicitbias/models"
	"github.com/implicitbias/implicitbias/theorems"
	"github.com/implicitbias/implicitbias/train"
)

// TestSchemeWitness: a GRW run of the linear model under importance
// weighting (4 negatives, 3 positives: q = 1/8 and 1/6), exported with
// `scheme` = "iw", gets ZD-T7's verdict of the run without the field (the
// recorded weights are the scheme's, also when recorded raw, 3.7 times
// larger); the same run under the fault weights-ignored-reported (uniform
// weights applied and recorded) is violated when the file states iw, and
// judged as an honest ERM run when it states nothing — the blind spot the
// field closes (issue 32).
func TestSchemeWitness(t *testing.T) {
	data := twoClasses(5, 8, 7, 3, 0.3, 0.2)
	run := func(fault string) *Trajectory { return grwRun(t, data, "iw", fault) }
	zdT7 := func(ft *Trajectory, scheme string) theorems.Verdict { return zdT7Stated(t, ft, scheme) }
	clean := run("")
	plain := zdT7(clean, "")
	witnessed := zdT7(clean, "iw")
	assert.Equal(t, plain, witnessed, "the weights are the scheme's: ZD-T7 as without the field")
	assert.NotEqual(t, theorems.Violated, witnessed.Status, witnessed.String())
	for i := range clean.Weights {
		row := append([]float64(nil), clean.Weights[i]...)
		for j := range row {
			row[j] *= 3.7
		}
		clean.Weights[i] = row
	}
	raw := zdT7(clean, "iw")
	assert.NotContains(t, raw.Detail, "not the scheme's", "raw weights are the scheme's up to their sum")

	honest := run("weights-ignored-reported")
	t.Logf("clean: %s; raw: %s", witnessed, raw)
	v := zdT7(honest, "iw")
	t.Logf("honest ERM stated iw: %s", v)
	assert.Equal(t, theorems.Violated, v.Status, v.String())
	assert.Contains(t, v.Detail, "not the scheme's")
	v = zdT7(honest, "")
	assert.NotEqual(t, theorems.Violated, v.Status, "without the field the run is an honest ERM run: %s", v)
	v = zdT7(honest, "erm")
	assert.NotContains(t, v.Detail, "not the scheme's", "the run is ERM, and says so")
}

// grwRun trains the linear model on data by GD under the scheme spec
// with the fault planted ("" none) and exports the run as a file would
// record it: θ and the weights every 20 steps.
func grwRun(t *testing.T, data *dataset.Dataset, spec, fault string) *Trajectory {
	t.Helper()
	model, obj := logisticRun(t, "linear", data)
	f, err := faults.Lookup(fault)
	require.NoError(t, err)
	f.Objective(obj)
	w, err := train.ParseWeighting(spec, nil)
	require.NoError(t, err)
	tr, err := train.Run(obj, optimizer(t, "gd", 0.2), make([]float64, model.NumParams()), train.Config{Steps: 400, Every: 20, KeepTheta: true, Weighting: w, KeepWeights: true})
	require.NoError(t, err)
	ft, err := FromTrain(tr, model, data)
	require.NoError(t, err)
	return ft
}

// zdT7Stated writes ft with the scheme it states, reads it back as check
// does and returns ZD-T7's verdict.
func zdT7Stated(t *testing.T, ft *Trajectory, scheme string) theorems.Verdict {
	t.Helper()
	ft.Scheme = scheme
	var buf bytes.Buffer
	require.NoError(t, WriteNPZ(&buf, ft))
	back, err := ReadNPZ(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	require.NoError(t, err)
	require.Equal(t, scheme, back.Scheme, "the field survives the round trip")
	m, err := MapModel(back)
	require.NoError(t, err)
	model, err := models.Parse(m.Spec, m.In)
	require.NoError(t, err)
	l, err := LossFor("logistic", 1)
	require.NoError(t, err)
	d, err := Data(back, l)
	require.NoError(t, err)
	rep, err := Check(back, model, d, Options{Loss: "logistic", Only: []string{theorems.ZD_T7}})
	require.NoError(t, err)
	return verdictOf(t, rep, theorems.ZD_T7)
}

// TestReadScheme: the field's bad input is one error naming it.
func TestReadScheme(t *testing.T) {
	weights := npyArray{name: "weights", descr: "<f8", shape: []int{2}, data: f64(1, 2)}
	for _, c := range []struct {
		name   string
		arrays []npyArray
		want   string
	}{
		{"without weights", []npyArray{{name: "scheme", descr: "<U2", data: u32str(2, "iw")}}, "without weights"},
		{"a scheme of the losses", []npyArray{weights, {name: "scheme", descr: "<U4", data: u32str(4, "gdro")}}, "not witnessed yet"},
		{"χ²'s radius", []npyArray{weights, {name: "scheme", descr: "<U4", data: u32str(4, "chi2")}}, "not witnessed yet"},
		{"unknown", []npyArray{weights, {name: "scheme", descr: "<U3", data: u32str(3, "foo")}}, `scheme "foo"`},
		{"not a string", []npyArray{weights, {name: "scheme", descr: "<f8", data: f64(1)}}, "want one string"},
		{"not one", []npyArray{weights, {name: "scheme", descr: "<U2", shape: []int{2}, data: u32str(2, "iw", "iw")}}, "want one string"},
	} {
		_, err := readBytes(buildNPZ(t, append(validArrays(), c.arrays...)))
		assert.ErrorContains(t, err, c.want, c.name)
	}
	tr, err := readBytes(buildNPZ(t, append(validArrays(), weights, npyArray{name: "scheme", descr: "<U2", data: u32str(2, "iw")})))
	require.NoError(t, err)
	assert.Equal(t, "iw", tr.Scheme)
}
