package bench

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// CheckPlotPath checks the extension of a -plot path, before any
// measurement: .svg or .png.
func CheckPlotPath(path string) error {
	_, err := plotFormat(path)
	return err
}

// plotFormat returns a -plot path's extension, .svg or .png.
func plotFormat(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".svg", ".png":
		return ext, nil
	default:
		return "", fmt.Errorf("-plot %s: want a .svg or .png file", path)
	}
}

// ReadCSV reads rows in the CUB anchor's columns
// (impl,op,n,keep_ratio,ms_median,gelem_per_s); a header and lines
// starting with # are skipped.
func ReadCSV(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	r.FieldsPerRecord = 6
	var rows []Row
	for line := 1; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if rec[0] == "impl" {
			continue
		}
		n, err1 := strconv.ParseUint(rec[2], 10, 64)
		keep, err2 := strconv.ParseFloat(rec[3], 64)
		ms, err3 := strconv.ParseFloat(rec[4], 64)
		g, err4 := strconv.ParseFloat(rec[5], 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || n == 0 || !(g > 0) || math.IsInf(g, 0) {
			return nil, fmt.Errorf("%s: row %q: want impl,op,n,keep_ratio,ms_median,gelem_per_s with n and throughput above 0", path, strings.Join(rec, ","))
		}
		rows = append(rows, Row{Impl: rec[0], Op: rec[1], N: n, KeepRatio: keep, MsMedian: ms, GelemPerS: g})
	}
	return rows, nil
}

// WritePlot draws throughput against n: one panel per operation of ops
// that has rows, one line per implementation and keep ratio (the colour
// tells the keep ratio, a dashed line the other implementations), two
// panels a row.
func WritePlot(path string, rows []Row, ops []string) error {
	ext, err := plotFormat(path)
	if err != nil {
		return err
	}
	var plots []*plot.Plot
	for _, op := range ops {
		p, err := plotPanel(op, rows)
		if err != nil {
			return err
		}
		if p != nil {
			plots = append(plots, p)
		}
	}
	if len(plots) == 0 {
		return fmt.Errorf("-plot: no rows of %s to draw", strings.Join(ops, ", "))
	}
	return drawPanels(path, ext, plots)
}

// plotLine is one line of a panel: an implementation at a keep ratio.
type plotLine struct {
	impl string
	keep float64
	xy   plotter.XYs
}

// plotPanel returns the panel of op's rows, or nil where there are none.
func plotPanel(op string, rows []Row) (*plot.Plot, error) {
	var lines []*plotLine
	var keepsSeen []float64
	for _, r := range rows {
		if r.Op != op {
			continue
		}
		i := slices.IndexFunc(lines, func(l *plotLine) bool { return l.impl == r.Impl && l.keep == r.KeepRatio })
		if i < 0 {
			lines = append(lines, &plotLine{impl: r.Impl, keep: r.KeepRatio})
			i = len(lines) - 1
		}
		lines[i].xy = append(lines[i].xy, plotter.XY{X: math.Log2(float64(r.N)), Y: r.GelemPerS})
		if !slices.Contains(keepsSeen, r.KeepRatio) {
			keepsSeen = append(keepsSeen, r.KeepRatio)
		}
	}
	if len(lines) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.Title.Text = op
	p.X.Label.Text = "n (log2 of elements)"
	p.Y.Label.Text = "G elements/s"
	p.Y.Min = 0
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	for _, l := range lines {
		slices.SortFunc(l.xy, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
		lp, pts, err := plotter.NewLinePoints(l.xy)
		if err != nil {
			return nil, err
		}
		c := plotutil.Color(slices.Index(keepsSeen, l.keep))
		lp.Color, pts.Color = c, c
		if l.impl != "vkcompact" {
			lp.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			pts.Shape = draw.BoxGlyph{}
		}
		name := l.impl
		if keeps(op) {
			name += fmt.Sprintf(" keep %.1f", l.keep)
		}
		p.Add(lp, pts)
		p.Legend.Add(name, lp, pts)
	}
	return p, nil
}

// drawPanels draws the panels two a row into the file path, as SVG or PNG
// (ext).
func drawPanels(path, ext string, plots []*plot.Plot) error {
	cols := min(len(plots), 2)
	nrows := (len(plots) + cols - 1) / cols
	w, h := vg.Length(cols)*5*vg.Inch, vg.Length(nrows)*3.8*vg.Inch
	grid := make([][]*plot.Plot, nrows)
	for j := range grid {
		grid[j] = make([]*plot.Plot, cols)
		for i := range cols {
			if k := j*cols + i; k < len(plots) {
				grid[j][i] = plots[k]
			}
		}
	}
	var canvas interface {
		vg.CanvasSizer
		io.WriterTo
	}
	if ext == ".svg" {
		canvas = vgsvg.New(w, h)
	} else {
		canvas = vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
	}
	dc := draw.New(canvas)
	tiles := draw.Tiles{Rows: nrows, Cols: cols, PadTop: vg.Millimeter * 3, PadBottom: vg.Millimeter * 3, PadLeft: vg.Millimeter * 3, PadRight: vg.Millimeter * 3, PadX: vg.Millimeter * 6, PadY: vg.Millimeter * 6}
	canvases := plot.Align(grid, tiles, dc)
	for j := range grid {
		for i := range grid[j] {
			if grid[j][i] != nil {
				grid[j][i].Draw(canvases[j][i])
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := canvas.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
