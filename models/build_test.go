package models_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/implicitbias/implicitbias/models"
)

// TestBuildMatchesParse checks that the Go constructors and the spec
// strings build the same networks.
func TestBuildMatchesParse(t *testing.T) {
	lin, err := models.NewLinear(4, 3)
	require.NoError(t, err)
	assert.Equal(t, "linear/3", lin.String())
	assert.Equal(t, 12, lin.NumParams())

	for _, tc := range []struct {
		build func() (*models.Network, error)
		spec  string
		in    int
	}{
		{func() (*models.Network, error) {
			return models.NewMLP(models.MLPConfig{In: 3, Hidden: []int{8, 8}, Out: 1, Act: models.ActReLUPow(2)})
		}, "mlp:relu2:3x8", 3},
		{func() (*models.Network, error) {
			return models.NewMLP(models.MLPConfig{In: 3, Hidden: []int{5, 4}, Out: 2, Act: models.ActLeaky(0.3), BiasLayers: []int{2}})
		}, "mlp:lrelu0.3:5-4/2+bias@2", 3},
		{func() (*models.Network, error) {
			return models.NewMLP(models.MLPConfig{In: 3, Hidden: []int{3}, Out: 1, Act: models.ActIdentity, Bias: true})
		}, "deeplinear:2+bias", 3},
		{func() (*models.Network, error) {
			return models.NewCNN(models.CNNConfig{In: 8, InChannels: 2, Out: 3, Act: models.ActReLU, Dense: []int{5},
				Convs: []models.ConvSpec{{Channels: 4, Kernel: 3, Stride: 2, Pool: models.MaxPool, PoolSize: 2}, {Channels: 2, Kernel: 1}}})
		}, "cnn:relu:4c3s2-max2,2c1:5@2/3", 16},
		{func() (*models.Network, error) {
			return models.NewCNN(models.CNNConfig{In: 9, Out: 1, Act: models.ActQuadratic,
				Convs: []models.ConvSpec{{Channels: 2, Kernel: 3, Pool: models.AvgPool, PoolSize: 3}}})
		}, "cnn:quad:2c3-avg3", 9},
	} {
		m, err := tc.build()
		require.NoError(t, err, tc.spec)
		assert.Equal(t, tc.spec, m.String())
		p, err := models.Parse(tc.spec, tc.in)
		require.NoError(t, err, tc.spec)
		assert.Equal(t, p.Describe(), m.Describe(), tc.spec)
		assert.Equal(t, p.NumParams(), m.NumParams(), tc.spec)
		assert.Equal(t, p.Degree(), m.Degree(), tc.spec)
	}
}

func TestBuildErrors(t *testing.T) {
	conv := []models.ConvSpec{{Channels: 2, Kernel: 2}}
	for _, tc := range []struct {
		name  string
		build func() (*models.Network, error)
		msg   string
	}{
		{"MLP In 0", func() (*models.Network, error) { return models.NewMLP(models.MLPConfig{In: 0, Out: 1}) }, "In ≥ 1"},
		{"MLP Out 0", func() (*models.Network, error) { return models.NewMLP(models.MLPConfig{In: 2, Out: 0}) }, "Out ≥ 1"},
		{"linear Out 0", func() (*models.Network, error) { return models.NewLinear(2, 0) }, "Out ≥ 1"},
		{"MLP width", func() (*models.Network, error) {
			return models.NewMLP(models.MLPConfig{In: 2, Hidden: []int{3, -1}, Out: 1})
		}, "hidden width -1"},
		{"MLP bias layer", func() (*models.Network, error) {
			return models.NewMLP(models.MLPConfig{In: 2, Hidden: []int{3}, Out: 1, BiasLayers: []int{3}})
		}, "bias layer 3 outside 1..2"},
		{"MLP leaky slope", func() (*models.Network, error) {
			return models.NewMLP(models.MLPConfig{In: 2, Hidden: []int{3}, Out: 1, Act: models.ActLeaky(1.5)})
		}, "leaky slope"},
		{"MLP ReLU power", func() (*models.Network, error) {
			return models.NewMLP(models.MLPConfig{In: 2, Hidden: []int{3}, Out: 1, Act: models.ActReLUPow(0)})
		}, "ReLU power"},
		{"MLP unknown activation", func() (*models.Network, error) {
			return models.NewMLP(models.MLPConfig{In: 2, Hidden: []int{3}, Out: 1, Act: models.Activation{Kind: 42}})
		}, "unknown activation kind 42"},
		{"CNN no conv", func() (*models.Network, error) { return models.NewCNN(models.CNNConfig{In: 8, Out: 1}) }, "a conv stage"},
		{"CNN channels", func() (*models.Network, error) {
			return models.NewCNN(models.CNNConfig{In: 8, InChannels: -2, Out: 1, Convs: conv})
		}, "InChannels ≥ 0"},
		{"CNN pool size", func() (*models.Network, error) {
			return models.NewCNN(models.CNNConfig{In: 8, Out: 1, Convs: []models.ConvSpec{{Channels: 2, Kernel: 2, Pool: models.MaxPool}}})
		}, "pool size must be in 1..7"},
		{"CNN dense width", func() (*models.Network, error) {
			return models.NewCNN(models.CNNConfig{In: 8, Out: 1, Convs: conv, Dense: []int{0}})
		}, "dense width 0"},
		{"CNN bias layer", func() (*models.Network, error) {
			return models.NewCNN(models.CNNConfig{In: 8, Out: 1, Convs: conv, BiasLayers: []int{0}})
		}, "bias layer 0 outside 1..2"},
		{"CNN activation", func() (*models.Network, error) {
			return models.NewCNN(models.CNNConfig{In: 8, Out: 1, Convs: conv, Act: models.ActReLUPow(9)})
		}, "ReLU power"},
	} {
		var (
			m   *models.Network
			err error
		)
		require.NotPanics(t, func() { m, err = tc.build() }, tc.name)
		if assert.Error(t, err, tc.name) {
			assert.Contains(t, err.Error(), tc.msg, tc.name)
		}
		assert.Nil(t, m, tc.name)
	}
}

func TestDescribe(t *testing.T) {
	m := mustParse(t, "cnn:relu:4c3s2-max2:5+bias@1", 16)
	assert.Equal(t, "conv(16x1→4, k=3, s=2, bias) → relu → maxpool(2) → dense(12→5) → relu → dense(5→1)", m.Describe())
	var names []string
	for _, b := range m.Blocks() {
		names = append(names, b.Name)
	}
	assert.Equal(t, []string{"layer1 conv(16x1→4, k=3, s=2, bias)", "layer2 dense(12→5)", "layer3 dense(5→1)"}, names)
}
