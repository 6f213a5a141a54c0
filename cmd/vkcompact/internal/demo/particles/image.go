package particles

import (
	"image"
	"image/color"
	"math"
)

// The view Draw shows: the box's width in x, and heights 0 to ViewTop.
const ViewTop = 2.5

// Draw renders particles seen from the front (x across, y up, z ignored)
// into a width × width*ViewTop/(2*Half) image: each particle one additive
// point, white-yellow when young, red near the end of its life, on a dark
// background with the box's floor and walls in grey.
func Draw(ps []Particle, width int) *image.RGBA {
	width = max(width, 16)
	height := max(int(math.Round(float64(width)*ViewTop/float64(2*Half))), 10)
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	acc := make([][3]float64, width*height)
	young := [3]float64{1, 0.95, 0.7}
	old := [3]float64{0.8, 0.12, 0.03}
	// Each particle adds this much light, less when there are many;
	// 1-exp(-light) saturates where they crowd.
	gain := 0.9 * min(1, math.Sqrt(30000/float64(max(len(ps), 1))))
	for i := range ps {
		p := &ps[i]
		if !(math.Abs(float64(p.Pos[0])) <= 2*float64(Half) && math.Abs(float64(p.Pos[1])) <= 2*ViewTop) {
			continue // off the view, or NaN
		}
		x := int(math.Floor((float64(p.Pos[0]) + float64(Half)) / float64(2*Half) * float64(width)))
		y := height - 1 - int(math.Floor(float64(p.Pos[1])/ViewTop*float64(height)))
		if x < 0 || x >= width || y < 0 || y >= height {
			continue
		}
		t := 0.0
		if p.Lifetime > 0 {
			t = min(max(float64(p.Age)/float64(p.Lifetime), 0), 1)
		}
		for c := range 3 {
			acc[y*width+x][c] += gain * (young[c]*(1-t) + old[c]*t)
		}
	}
	bg := color.RGBA{8, 10, 22, 255}
	for y := range height {
		for x := range width {
			a := acc[y*width+x]
			px := color.RGBA{A: 255}
			for c, v := range []*uint8{&px.R, &px.G, &px.B} {
				base := []uint8{bg.R, bg.G, bg.B}[c]
				*v = uint8(min(255, float64(base)+255*(1-math.Exp(-a[c]))))
			}
			img.SetRGBA(x, y, px)
		}
	}
	grey := color.RGBA{90, 90, 100, 255}
	for x := range width {
		img.SetRGBA(x, height-1, grey)
	}
	for y := range height {
		img.SetRGBA(0, y, grey)
		img.SetRGBA(width-1, y, grey)
	}
	return img
}
