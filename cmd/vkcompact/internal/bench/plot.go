package bench

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The plots are drawn by hand, in SVG or PNG (svg.go, png.go), so that
// the module needs no plotting library: panels of throughput against n,
// each with its title, axes, ticks, grid, lines and legend, laid out in
// pixels.

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

// WritePlot draws throughput against n: one panel per operation of ops
// that has rows, one line per implementation and keep ratio (the colour
// tells the keep ratio, a dashed line with square marks the other
// implementations), two panels a row, into the file path as SVG or PNG
// (by its extension).
func WritePlot(path string, rows []Row, ops []string) error {
	ext, err := plotFormat(path)
	if err != nil {
		return err
	}
	var panels []*panel
	for _, op := range ops {
		p, err := newPanel(op, rows)
		if err != nil {
			return err
		}
		if p != nil {
			panels = append(panels, p)
		}
	}
	if len(panels) == 0 {
		return fmt.Errorf("-plot: no rows of %s to draw", strings.Join(ops, ", "))
	}
	cols := min(len(panels), 2)
	nrows := (len(panels) + cols - 1) / cols
	var cv canvas
	if ext == ".svg" {
		cv = newSVG(cols*panelWidth, nrows*panelHeight)
	} else {
		cv = newPNG(cols*panelWidth, nrows*panelHeight)
	}
	for i, p := range panels {
		p.draw(cv, point{float64(i%cols) * panelWidth, float64(i/cols) * panelHeight})
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := cv.encode(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// A panel's size and the margins of its plotting area, in pixels.
const (
	panelWidth, panelHeight = 480, 365
	marginLeft, marginRight = 64, 20
	marginTop, marginBottom = 44, 44
	charWidth               = 7 // a character's advance, in either format
)

// Colours: the keep ratios' (a soft palette, one colour a ratio),
// the grid's, the axes' and the text's.
var (
	palette = []color.RGBA{{241, 90, 96, 255}, {122, 195, 106, 255}, {90, 155, 212, 255}, {250, 167, 91, 255},
		{158, 103, 171, 255}, {206, 112, 88, 255}, {215, 127, 180, 255}}
	gridColor = color.RGBA{220, 220, 220, 255}
	black     = color.RGBA{0, 0, 0, 255}
	white     = color.RGBA{255, 255, 255, 255}
)

// point is a position in pixels, or a point of data.
type point struct{ X, Y float64 }

// series is one line of a panel: an implementation at a keep ratio.
type series struct {
	impl  string
	keep  float64
	color color.RGBA
	pts   []point // log2 n, G elements/s, by n
}

// label is the series' legend entry.
func (s *series) label(op string) string {
	if keeps(op) {
		return fmt.Sprintf("%s keep %.1f", s.impl, s.keep)
	}
	return s.impl
}

// other reports whether the series is another implementation's: dashed,
// with square marks.
func (s *series) other() bool { return s.impl != "vkcompact" }

// panel is one operation's plot.
type panel struct {
	op         string
	lines      []*series
	xmin, xmax float64 // the x axis: log2 n
	ymax, step float64 // the y axis, from 0, and its ticks' step
}

// newPanel returns the panel of op's rows, or nil where there are none.
// A throughput that is not a finite number is an error: it cannot be
// drawn.
func newPanel(op string, rows []Row) (*panel, error) {
	p := &panel{op: op, xmin: math.Inf(1), xmax: math.Inf(-1)}
	var keepsSeen []float64
	ymax := 0.0
	for _, r := range rows {
		if r.Op != op {
			continue
		}
		x := math.Log2(float64(r.N))
		if math.IsInf(x, 0) || math.IsNaN(r.GelemPerS) || math.IsInf(r.GelemPerS, 0) {
			return nil, fmt.Errorf("-plot: the %s row of %s at n=%d: throughput %v cannot be drawn", r.Impl, op, r.N, r.GelemPerS)
		}
		if !slices.Contains(keepsSeen, r.KeepRatio) {
			keepsSeen = append(keepsSeen, r.KeepRatio)
		}
		i := slices.IndexFunc(p.lines, func(s *series) bool { return s.impl == r.Impl && s.keep == r.KeepRatio })
		if i < 0 {
			c := palette[slices.Index(keepsSeen, r.KeepRatio)%len(palette)]
			p.lines = append(p.lines, &series{impl: r.Impl, keep: r.KeepRatio, color: c})
			i = len(p.lines) - 1
		}
		p.lines[i].pts = append(p.lines[i].pts, point{x, r.GelemPerS})
		p.xmin, p.xmax, ymax = min(p.xmin, x), max(p.xmax, x), max(ymax, r.GelemPerS)
	}
	if len(p.lines) == 0 {
		return nil, nil
	}
	for _, s := range p.lines {
		slices.SortFunc(s.pts, func(a, b point) int { return cmp.Compare(a.X, b.X) })
	}
	if p.xmin == p.xmax {
		p.xmin, p.xmax = p.xmin-1, p.xmax+1
	}
	p.step = niceStep(max(ymax, 1e-9) / 5)
	p.ymax = math.Ceil(max(ymax, 1e-9)/p.step) * p.step
	return p, nil
}

// niceStep returns the tick step of 1, 2 or 5 times a power of ten
// nearest above d.
func niceStep(d float64) float64 {
	pow := math.Pow(10, math.Floor(math.Log10(d)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*pow >= d {
			return m * pow
		}
	}
	return 10 * pow
}

// draw draws the panel with its top left corner at at.
func (p *panel) draw(cv canvas, at point) {
	left, right := at.X+marginLeft, at.X+panelWidth-marginRight
	top, bottom := at.Y+marginTop, at.Y+panelHeight-marginBottom
	toPixel := func(d point) point {
		return point{left + (d.X-p.xmin)/(p.xmax-p.xmin)*(right-left), bottom - d.Y/p.ymax*(bottom-top)}
	}
	cv.text(point{(left + right) / 2, at.Y + 18}, p.op, anchorMiddle, black)
	cv.text(point{at.X + 8, top - 10}, "G elements/s", anchorStart, black)
	cv.text(point{(left + right) / 2, bottom + 36}, "n (log2 of elements)", anchorMiddle, black)
	for k := 0; float64(k)*p.step <= p.ymax*(1+1e-9); k++ {
		v := float64(k) * p.step
		y := toPixel(point{p.xmin, v}).Y
		cv.polyline([]point{{left, y}, {right, y}}, gridColor, 1, false)
		cv.polyline([]point{{left - 4, y}, {left, y}}, black, 1, false)
		cv.text(point{left - 7, y + 4}, strconv.FormatFloat(v, 'f', -1, 64), anchorEnd, black)
	}
	xstep := math.Max(1, niceStep((p.xmax-p.xmin)/10))
	for v := math.Ceil(p.xmin/xstep) * xstep; v <= p.xmax; v += xstep {
		x := toPixel(point{v, 0}).X
		cv.polyline([]point{{x, top}, {x, bottom}}, gridColor, 1, false)
		cv.polyline([]point{{x, bottom}, {x, bottom + 4}}, black, 1, false)
		cv.text(point{x, bottom + 17}, strconv.FormatFloat(v, 'f', -1, 64), anchorMiddle, black)
	}
	cv.polyline([]point{{left, top}, {left, bottom}, {right, bottom}}, black, 1, false)
	for _, s := range p.lines {
		pts := make([]point, len(s.pts))
		for i, d := range s.pts {
			pts[i] = toPixel(d)
		}
		cv.polyline(pts, s.color, 1.5, s.other())
		for _, q := range pts {
			mark(cv, q, s)
		}
	}
	p.legend(cv, point{left + 8, top + 6})
}

// mark draws a series' mark at q: a ring for vkcompact, a square for the
// other implementations.
func mark(cv canvas, q point, s *series) {
	if s.other() {
		cv.rect(point{q.X - 3, q.Y - 3}, point{q.X + 3, q.Y + 3}, s.color, true)
		return
	}
	cv.circle(q, 3.5, s.color, false)
	cv.circle(q, 2.5, white, true)
}

// legend draws the series' names, each beside its line and mark, on a
// white box at the top left corner at.
func (p *panel) legend(cv canvas, at point) {
	width := 0
	for _, s := range p.lines {
		width = max(width, len(s.label(p.op)))
	}
	const row = 16
	cv.rect(at, point{at.X + 36 + float64(width*charWidth) + 6, at.Y + float64(len(p.lines)*row) + 6}, white, true)
	for i, s := range p.lines {
		y := at.Y + float64(i*row) + 3 + row/2
		cv.polyline([]point{{at.X + 4, y}, {at.X + 28, y}}, s.color, 1.5, s.other())
		mark(cv, point{at.X + 16, y}, s)
		cv.text(point{at.X + 36, y + 4}, s.label(p.op), anchorStart, black)
	}
}
