package report

import (
	"fmt"
	"image/color"
	"math"
	"os"
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
	// The legend goes in a column right of the data (legendOutside), so it
	// covers no curve (issue 21: it covered ZD-T1's).
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.TextStyle.Font.Size = vg.Points(10)
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
			leg.Add(s.Name, sc)
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color = c
		l.Width = vg.Points(1.5)
		p.Add(l)
		leg.Add(s.Name, l)
	}
	if math.IsInf(xmin, 0) {
		xmin, xmax = 0, 1
	}
	// The lines inside the vertical range.
	for _, ln := range f.Lines {
		if finite(ln.Y) != nil {
			p.Y.Max, p.Y.Min = math.Max(p.Y.Max, ln.Y), math.Min(p.Y.Min, ln.Y)
		}
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
		leg.Add(ln.Name, l)
	}
	return saveWithLegend(p, &leg, dir, stem)
}

// saveWithLegend draws p with the legend in a column of its own right of
// the data, as stem.png and stem.svg in dir, and returns the file names.
func saveWithLegend(p *plot.Plot, leg *plot.Legend, dir, stem string) ([]string, error) {
	const w, h, legendW = 10 * vg.Inch, 4 * vg.Inch, 3.7 * vg.Inch
	var files []string
	for _, format := range []string{"png", "svg"} {
		c, err := draw.NewFormattedCanvas(w, h, format)
		if err != nil {
			return nil, err
		}
		dc := draw.New(c)
		p.Draw(draw.Crop(dc, 0, -legendW, 0, 0))
		leg.Draw(draw.Crop(dc, w-legendW+vg.Points(12), 0, 0, -vg.Points(20)))
		name := stem + "." + format
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		if _, err := c.WriteTo(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("saving %s: %v", name, err)
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
		files = append(files, name)
	}
	return files, nil
}
