package bench

import (
	"encoding/xml"
	"fmt"
	"image/color"
	"io"
	"strings"
)

// canvas is what a plot is drawn on, in pixels from the top left corner:
// an SVG document or a PNG image.
type canvas interface {
	// polyline strokes the line through pts, width pixels wide, dashed
	// or solid.
	polyline(pts []point, c color.RGBA, width float64, dashed bool)
	// rect fills, or strokes, the rectangle from min to max.
	rect(min, max point, c color.RGBA, fill bool)
	// circle fills, or strokes, the circle of radius r around at.
	circle(at point, r float64, c color.RGBA, fill bool)
	// text writes s with its baseline at at.Y, starting, centred or
	// ending at at.X.
	text(at point, s string, anchor anchor, c color.RGBA)
	// encode writes the picture.
	encode(w io.Writer) error
}

// anchor is where a text sits on its x: its start, middle or end.
type anchor int

const (
	anchorStart anchor = iota
	anchorMiddle
	anchorEnd
)

// dash is a dashed line's pattern, in pixels: drawn, then skipped.
var dash = [2]float64{5, 3}

// svgCanvas draws SVG elements into a document.
type svgCanvas struct {
	b             strings.Builder
	width, height int
}

// newSVG returns a white SVG canvas of width x height pixels.
func newSVG(width, height int) *svgCanvas {
	c := &svgCanvas{width: width, height: height}
	c.rect(point{0, 0}, point{float64(width), float64(height)}, white, true)
	return c
}

// hex writes a colour as #rrggbb.
func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

func (c *svgCanvas) polyline(pts []point, col color.RGBA, width float64, dashed bool) {
	fmt.Fprintf(&c.b, `<polyline fill="none" stroke="%s" stroke-width="%g"`, hex(col), width)
	if dashed {
		fmt.Fprintf(&c.b, ` stroke-dasharray="%g,%g"`, dash[0], dash[1])
	}
	c.b.WriteString(` points="`)
	for i, p := range pts {
		if i > 0 {
			c.b.WriteByte(' ')
		}
		fmt.Fprintf(&c.b, "%.2f,%.2f", p.X, p.Y)
	}
	c.b.WriteString("\"/>\n")
}

func (c *svgCanvas) rect(min, max point, col color.RGBA, fill bool) {
	fmt.Fprintf(&c.b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" %s/>`+"\n", min.X, min.Y, max.X-min.X, max.Y-min.Y, paint(col, fill))
}

func (c *svgCanvas) circle(at point, r float64, col color.RGBA, fill bool) {
	fmt.Fprintf(&c.b, `<circle cx="%.2f" cy="%.2f" r="%g" %s/>`+"\n", at.X, at.Y, r, paint(col, fill))
}

// paint is the attributes that fill a shape with c, or stroke it.
func paint(c color.RGBA, fill bool) string {
	if fill {
		return fmt.Sprintf(`fill="%s"`, hex(c))
	}
	return fmt.Sprintf(`fill="none" stroke="%s" stroke-width="1"`, hex(c))
}

func (c *svgCanvas) text(at point, s string, a anchor, col color.RGBA) {
	fmt.Fprintf(&c.b, `<text x="%.2f" y="%.2f" fill="%s" font-family="DejaVu Sans Mono, monospace" font-size="11.5" text-anchor="%s">`,
		at.X, at.Y, hex(col), [...]string{"start", "middle", "end"}[a])
	xml.EscapeText(&c.b, []byte(s))
	c.b.WriteString("</text>\n")
}

func (c *svgCanvas) encode(w io.Writer) error {
	_, err := fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">
%s</svg>
`, c.width, c.height, c.width, c.height, c.b.String())
	return err
}
