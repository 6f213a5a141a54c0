package bench

import (
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
)

// pngCanvas draws into an image, without anti-aliasing: lines as round
// pens stamped along them, text in the 6x13 bitmap font (font.go).
type pngCanvas struct {
	img *image.RGBA
}

// newPNG returns a white PNG canvas of width x height pixels.
func newPNG(width, height int) *pngCanvas {
	c := &pngCanvas{img: image.NewRGBA(image.Rect(0, 0, width, height))}
	c.rect(point{0, 0}, point{float64(width), float64(height)}, white, true)
	return c
}

// set paints the pixel at x, y, if it is in the image.
func (c *pngCanvas) set(x, y int, col color.RGBA) {
	if image.Pt(x, y).In(c.img.Rect) {
		c.img.SetRGBA(x, y, col)
	}
}

// pen paints a disc of the given width around p.
func (c *pngCanvas) pen(p point, width float64, col color.RGBA) {
	if width <= 1 {
		c.set(int(math.Floor(p.X)), int(math.Floor(p.Y)), col)
		return
	}
	r := width / 2
	for y := int(math.Floor(p.Y - r)); y <= int(math.Ceil(p.Y+r)); y++ {
		for x := int(math.Floor(p.X - r)); x <= int(math.Ceil(p.X+r)); x++ {
			if dx, dy := float64(x)+0.5-p.X, float64(y)+0.5-p.Y; dx*dx+dy*dy <= r*r {
				c.set(x, y, col)
			}
		}
	}
}

func (c *pngCanvas) polyline(pts []point, col color.RGBA, width float64, dashed bool) {
	along := 0.0 // the distance drawn so far, for the dashes
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		length := math.Hypot(b.X-a.X, b.Y-a.Y)
		steps := max(1, int(math.Ceil(length*2)))
		for k := 0; k <= steps; k++ {
			t := float64(k) / float64(steps)
			if dashed && math.Mod(along+t*length, dash[0]+dash[1]) >= dash[0] {
				continue
			}
			c.pen(point{a.X + t*(b.X-a.X), a.Y + t*(b.Y-a.Y)}, width, col)
		}
		along += length
	}
}

func (c *pngCanvas) rect(min, max point, col color.RGBA, fill bool) {
	x0, y0, x1, y1 := int(math.Round(min.X)), int(math.Round(min.Y)), int(math.Round(max.X)), int(math.Round(max.Y))
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			if fill || x == x0 || x == x1-1 || y == y0 || y == y1-1 {
				c.set(x, y, col)
			}
		}
	}
}

func (c *pngCanvas) circle(at point, r float64, col color.RGBA, fill bool) {
	for y := int(math.Floor(at.Y - r - 1)); y <= int(math.Ceil(at.Y+r+1)); y++ {
		for x := int(math.Floor(at.X - r - 1)); x <= int(math.Ceil(at.X+r+1)); x++ {
			d := math.Hypot(float64(x)+0.5-at.X, float64(y)+0.5-at.Y)
			if d <= r && (fill || d > r-1) {
				c.set(x, y, col)
			}
		}
	}
}

func (c *pngCanvas) text(at point, s string, a anchor, col color.RGBA) {
	x := int(math.Round(at.X)) - [...]int{0, len(s) * charWidth / 2, len(s) * charWidth}[a]
	top := int(math.Round(at.Y)) - 11 // the font's ascent
	for _, r := range s {
		g := int(r) - ' '
		if g < 0 || g >= len(glyphs)/13 {
			g = '?' - ' '
		}
		for row := range 13 {
			bits := glyphs[13*g+row]
			for col6 := range 6 {
				if bits&(1<<(5-col6)) != 0 {
					c.set(x+col6, top+row, col)
				}
			}
		}
		x += charWidth
	}
}

func (c *pngCanvas) encode(w io.Writer) error { return png.Encode(w, c.img) }
