package report

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/implicitbias/implicitbias/theorems"
)

// FileStem turns an entry ID and a figure name into a file-name stem:
// "ZD-T4/L5", "gap" → "ZD-T4_L5-gap".
func FileStem(id, name string) string {
	r := strings.NewReplacer("/", "_", ".", "_", " ", "_")
	return r.Replace(id) + "-" + r.Replace(name)
}

// seriesColor cycles through gonum's soft palette starting with blue (red
// stays for bounds), then its dark palette, so that up to 12 series differ.
func seriesColor(i int) color.Color {
	order := []int{2, 3, 1, 4, 5, 6}
	if i%12 < len(order) {
		return plotutil.SoftColors[order[i%12]]
	}
	return plotutil.DarkColors[(i%12-len(order))%len(plotutil.DarkColors)]
}

// SaveFigure draws f into dir as stem.png and stem.svg and returns the two
// file names (relative to dir). Non-finite points are left out.
func SaveFigure(dir, stem string, f theorems.Figure) ([]string, error) {
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for i, s := range f.Series {
		var pts plotter.XYs
		for j := range s.X {
			if j < len(s.Y) && finite(s.X[j]) != nil && finite(s.Y[j]) != nil {
				pts = append(pts, plotter.XY{X: s.X[j], Y: s.Y[j]})
				xmin, xmax = math.Min(xmin, s.X[j]), math.Max(xmax, s.X[j])
			}
		}
		if len(pts) == 0 {
			continue
		}
		c := seriesColor(i)
		if s.Points {
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle.Color = c
			sc.GlyphStyle.Shape = draw.CircleGlyph{}
			sc.GlyphStyle.Radius = vg.Points(2)
			p.Add(sc)
			p.Legend.Add(s.Name, sc)
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color = c
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.Name, l)
	}
	if math.IsInf(xmin, 0) {
		xmin, xmax = 0, 1
	}
	// Headroom above the data and the lines, so the legend covers neither.
	ymax := p.Y.Max
	for _, ln := range f.Lines {
		if finite(ln.Y) != nil {
			ymax = math.Max(ymax, ln.Y)
		}
	}
	if ymin := math.Min(p.Y.Min, ymax); ymax > ymin {
		p.Y.Max = ymax + 0.15*(ymax-ymin)
	}
	for _, ln := range f.Lines {
		if finite(ln.Y) == nil {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: ln.Y}, {X: xmax, Y: ln.Y}})
		if err != nil {
			return nil, err
		}
		l.Color = color.RGBA{R: 200, A: 255}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
		p.Legend.Add(ln.Name, l)
	}
	var files []string
	for _, ext := range []string{".png", ".svg"} {
		name := stem + ext
		if err := p.Save(7*vg.Inch, 4*vg.Inch, filepath.Join(dir, name)); err != nil {
			return nil, fmt.Errorf("saving %s: %v", name, err)
		}
		files = append(files, name)
	}
	return files, nil
}
