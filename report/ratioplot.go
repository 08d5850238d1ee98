package report

import (
	"fmt"
	"image/color"
	"image/png"
	"math"
	"os"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/implicitbias/implicitbias/theorems"
)

// The entry's evidence in one picture: every case's statistic against its
// bound, as y = log₁₀(statistic/bound), for the claim's cases and the
// negative controls' together. Every check decides "statistic ≤ bound", so
// y ≤ 0 is the holding side and the bound is the line y = 0 for every case
// and every check, whatever its units. A negative bound (LL-K1: log 𝓛 ≤
// −2000) holds when the statistic is more negative, so there y =
// log₁₀(bound/statistic), again ≤ 0 exactly when the case holds. A ratio
// with no logarithm — a statistic of 0 or of the other sign than the bound,
// which is far on one side — is drawn on the floor (holding side) or the
// ceiling (violating side) with its own marker, never silently clipped.
// Each series is sorted, and x is the share of its cases (rank + ½)/n, so
// claims and controls of different case counts share the axis.

// ratioKind says where a case's ratio goes.
type ratioKind int

const (
	ratioLog     ratioKind = iota // a finite log₁₀ ratio
	ratioFloor                    // on the holding side, no finite log
	ratioCeiling                  // on the violating side, no finite log
	ratioNone                     // no statistic or no finite bound
)

// logRatio returns y = log₁₀(statistic/bound) (bound/statistic for a
// negative bound) and its kind.
func logRatio(stat, bound float64) (float64, ratioKind) {
	switch {
	case math.IsNaN(stat) || math.IsInf(stat, 0) || math.IsNaN(bound) || math.IsInf(bound, 0):
		return 0, ratioNone
	case stat == bound:
		return 0, ratioLog
	case bound > 0 && stat > 0:
		return math.Log10(stat / bound), ratioLog
	case bound < 0 && stat < 0:
		return math.Log10(bound / stat), ratioLog
	case stat < bound:
		return 0, ratioFloor
	}
	return 0, ratioCeiling
}

// ratioSeries is one set of cases: the claim's, or one control's.
type ratioSeries struct {
	name    string
	control bool
	ys      []float64
	kinds   []ratioKind
	missing int // cases without a statistic
	refused int // cases the check reported assumption-failed
}

func newRatioSeries(name string, control bool, s theorems.Summary, fallback float64) ratioSeries {
	rs := ratioSeries{name: name, control: control}
	for _, st := range s.Statuses {
		if st == theorems.AssumptionFailed {
			rs.refused++
		}
	}
	for i, v := range s.Values {
		b := fallback
		if len(s.Bounds) == len(s.Values) {
			b = s.Bounds[i]
		}
		y, k := logRatio(v, b)
		if k == ratioNone {
			rs.missing++
			continue
		}
		rs.ys, rs.kinds = append(rs.ys, y), append(rs.kinds, k)
	}
	return rs
}

// Colours: claims blue, every control orange (told apart by marker), the
// bound red.
var (
	claimColor   = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	controlColor = color.RGBA{R: 230, G: 115, B: 0, A: 255}
	boundColor   = color.RGBA{R: 200, A: 255}
)

// controlGlyphs tell the controls apart; triangles are kept for the
// floor and the ceiling.
var controlGlyphs = []draw.GlyphDrawer{draw.BoxGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.SquareGlyph{}}

// RatioPlot draws the entry's claim cases and control cases against the
// bound into dir as stem.png and stem.svg, with the legend in a column of
// its own right of the data. It reports false when no case has a
// statistic.
func RatioPlot(dir, stem string, r theorems.Result) ([]string, bool, error) {
	shown, _ := r.Claims.Shown()
	series := []ratioSeries{newRatioSeries(fmt.Sprintf("claim (%d cases)", r.Claims.Cases), false, r.Claims, shown.Bound)}
	for _, c := range r.ControlRuns {
		cs, _ := c.Summary.Shown()
		name := c.Name
		if c.Drops != "" {
			name = "no " + c.Drops
		}
		if c.Fault != "" {
			name = "fault " + c.Fault
		}
		series = append(series, newRatioSeries(fmt.Sprintf("control: %s", shorten(name, 22)), true, c.Summary, cs.Bound))
	}
	lo, hi := 0.0, 0.0
	any := false
	for _, s := range series {
		for i, y := range s.ys {
			any = true
			if s.kinds[i] == ratioLog {
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
		}
	}
	if !any {
		return nil, false, nil
	}
	floor, ceiling := lo-1, hi+1
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: every case against its bound", r.ID)
	p.X.Label.Text = "share of the series' cases (sorted)"
	p.Y.Label.Text = "log10(statistic / bound)   (≤ 0: holds)"
	p.X.Min, p.X.Max = 0, 1
	p.Y.Min, p.Y.Max = floor-0.3, ceiling+0.3
	p.Y.Tick.Marker = decadeTicks{}
	p.Add(plotter.NewGrid())
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.TextStyle.Font.Size = vg.Points(10)
	bound, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
	if err != nil {
		return nil, false, err
	}
	bound.Color, bound.Width, bound.Dashes = boundColor, vg.Points(1.5), []vg.Length{vg.Points(5), vg.Points(3)}
	p.Add(bound)
	leg.Add("bound (statistic = bound)", bound)
	floorUsed, ceilUsed := false, false
	for i, s := range series {
		c, g := claimColor, draw.GlyphDrawer(draw.CircleGlyph{})
		if s.control {
			c, g = controlColor, controlGlyphs[(i-1)%len(controlGlyphs)]
		}
		order := make([]int, len(s.ys))
		for k := range order {
			order[k] = k
		}
		key := func(k int) float64 {
			switch s.kinds[k] {
			case ratioFloor:
				return math.Inf(-1)
			case ratioCeiling:
				return math.Inf(1)
			}
			return s.ys[k]
		}
		sort.SliceStable(order, func(a, b int) bool { return key(order[a]) < key(order[b]) })
		var pts, low, high plotter.XYs
		n := float64(len(order))
		for rank, k := range order {
			x := (float64(rank) + 0.5) / n
			switch s.kinds[k] {
			case ratioFloor:
				low = append(low, plotter.XY{X: x, Y: floor})
			case ratioCeiling:
				high = append(high, plotter.XY{X: x, Y: ceiling})
			default:
				pts = append(pts, plotter.XY{X: x, Y: s.ys[k]})
			}
		}
		name := s.name
		if s.refused > 0 {
			// A refused case's statistic measured the broken hypothesis,
			// not the claim: drawn, and counted here.
			name += fmt.Sprintf(", %d assumption-failed", s.refused)
		}
		if s.missing > 0 {
			name += fmt.Sprintf(", %d without a statistic", s.missing)
		}
		var thumb plot.Thumbnailer
		for _, set := range []struct {
			xy    plotter.XYs
			glyph draw.GlyphDrawer
		}{{pts, g}, {low, draw.TriangleGlyph{}}, {high, draw.TriangleGlyph{}}} {
			if len(set.xy) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(set.xy)
			if err != nil {
				return nil, false, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: c, Shape: set.glyph, Radius: vg.Points(2.5)}
			p.Add(sc)
			if thumb == nil {
				thumb = sc
			}
		}
		floorUsed = floorUsed || len(low) > 0
		ceilUsed = ceilUsed || len(high) > 0
		if thumb != nil {
			leg.Add(name, thumb)
		}
	}
	if floorUsed {
		leg.Add("triangles at the floor: 0 or below")
	}
	if ceilUsed {
		leg.Add("triangles at the top: the violating sign")
	}
	files, err := saveWithLegend(p, &leg, dir, stem)
	if err != nil {
		return nil, false, err
	}
	return files, true, nil
}

// ControlPixels counts the pixels of the controls' colour in a PNG figure:
// how a test (or a tool) sees that a RatioPlot drew controls.
func ControlPixels(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return 0, err
	}
	want := color.RGBAModel.Convert(controlColor).(color.RGBA)
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if color.RGBAModel.Convert(img.At(x, y)).(color.RGBA) == want {
				n++
			}
		}
	}
	return n, nil
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// decadeTicks labels the log₁₀ axis at whole decades, about eight of them
// (every k-th decade for a wide range), with 0 — the bound — always among
// them.
type decadeTicks struct{}

func (decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	step := math.Max(1, math.Ceil((hi-lo)/8))
	var ts []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		label := fmt.Sprintf("%g", v)
		if v == 0 {
			label = "0 (bound)"
		}
		ts = append(ts, plot.Tick{Value: v, Label: label})
	}
	return ts
}
