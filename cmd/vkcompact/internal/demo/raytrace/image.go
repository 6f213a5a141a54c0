package raytrace

import (
	"image"
	"image/color"
	"math"
)

// Image tone-maps a render's pixels for display: each linear RGB value,
// scaled by exposure, goes through Narkowicz's fit of the ACES filmic
// curve ("ACES Filmic Tone Mapping Curve", 2015), then the sRGB transfer
// function, rounded to 8 bits. A value that is not finite (which a
// verified render never holds) is drawn magenta.
func Image(r *Render, exposure float64) *image.RGBA {
	w, h := r.Params.Width, r.Params.Height
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range w * h {
		px := r.Pixels[3*i : 3*i+3]
		c := color.RGBA{A: 255}
		for k, dst := range []*uint8{&c.R, &c.G, &c.B} {
			v := float64(px[k])
			if math.IsNaN(v) || math.IsInf(v, 0) {
				c = color.RGBA{255, 0, 255, 255}
				break
			}
			*dst = uint8(math.Round(255 * srgb(aces(max(v, 0)*exposure))))
		}
		img.SetRGBA(i%w, i/w, c)
	}
	return img
}

// aces maps linear radiance to [0, 1].
func aces(x float64) float64 {
	return min(max(x*(2.51*x+0.03)/(x*(2.43*x+0.59)+0.14), 0), 1)
}

// srgb encodes a linear value in [0, 1] with the sRGB transfer function.
func srgb(x float64) float64 {
	if x <= 0.0031308 {
		return 12.92 * x
	}
	return 1.055*math.Pow(x, 1/2.4) - 0.055
}
