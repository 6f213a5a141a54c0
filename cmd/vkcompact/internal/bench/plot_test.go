package bench

import (
	"encoding/xml"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// plotRows are two operations' rows: vkcompact's and another
// implementation's (whose name needs escaping in SVG) at two keep ratios
// for select_if, and at one for copy.
func plotRows() []Row {
	var rows []Row
	for _, lg := range []uint64{20, 24, 26} {
		n := uint64(1) << lg
		for i, impl := range []string{"vkcompact", "c<u>b & co"} {
			g := float64(lg) * 10 * (1 - 0.3*float64(i))
			rows = append(rows, Row{Impl: impl, Op: "copy", N: n, KeepRatio: 1, GelemPerS: g})
			for _, keep := range []float64{0.1, 0.9} {
				rows = append(rows, Row{Impl: impl, Op: "select_if", N: n, KeepRatio: keep, GelemPerS: g * (1 - keep/2)})
			}
		}
	}
	return rows
}

// TestPlotSVG draws two panels as SVG and reads it back as XML: a title
// per panel, a legend entry per implementation and keep ratio, a line per
// series (the other implementation's dashed), a mark per row, and the
// names escaped.
func TestPlotSVG(t *testing.T) {
	path := filepath.Join(vktest.TempDir(t), "plot.svg")
	if err := WritePlot(path, plotRows(), []string{"copy", "select_if", "scan_exclusive_u32"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var texts []string
	elems := map[string]int{}
	dashed, width := 0, ""
	dec := xml.NewDecoder(f)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			elems[tok.Name.Local]++
			for _, a := range tok.Attr {
				switch {
				case tok.Name.Local == "polyline" && a.Name.Local == "stroke-dasharray":
					dashed++
				case tok.Name.Local == "svg" && a.Name.Local == "width":
					width = a.Value
				}
			}
			if tok.Name.Local == "text" {
				var s string
				if err := dec.DecodeElement(&s, &tok); err != nil {
					t.Fatal(err)
				}
				texts = append(texts, s)
			}
		}
	}
	for _, want := range []string{"copy", "select_if", "vkcompact", "c<u>b & co", "vkcompact keep 0.1", "vkcompact keep 0.9", "c<u>b & co keep 0.9",
		"n (log2 of elements)", "G elements/s", "20", "26"} {
		if !slices.Contains(texts, want) {
			t.Errorf("no text %q among %q", want, texts)
		}
	}
	if slices.Contains(texts, "scan_exclusive_u32") {
		t.Error("a panel for an operation without rows")
	}
	// Lines: 2 series of copy, 4 of select_if, each drawn and in the
	// legend; the other implementation's 3 series dashed, twice each.
	if dashed != 6 || width != "960" || elems["svg"] != 1 {
		t.Errorf("%d dashed lines (want 6), width %s (want 960), %d svg elements", dashed, width, elems["svg"])
	}
	// Marks: a ring for each of vkcompact's 9 rows and 3 legend entries
	// (two circles each), a square for each of the other's 9 and 3.
	if elems["circle"] != 2*12 || elems["rect"] != 1+2+12 {
		t.Errorf("%d circles, %d rects; want 24, 15 (the background and the legends' boxes too)", elems["circle"], elems["rect"])
	}
}

// TestPlotPNG draws the same as PNG: the picture's size is two panels',
// each row's mark is at its place in its series' colour, the grid and
// the text are drawn.
func TestPlotPNG(t *testing.T) {
	path := filepath.Join(vktest.TempDir(t), "plot.png")
	rows := plotRows()
	if err := WritePlot(path, rows, []string{"select_if", "copy"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds() != image.Rect(0, 0, 2*panelWidth, panelHeight) {
		t.Fatalf("bounds %v", img.Bounds())
	}
	for k, op := range []string{"select_if", "copy"} {
		p, err := newPanel(op, rows)
		if err != nil {
			t.Fatal(err)
		}
		left, bottom := float64(k*panelWidth+marginLeft), float64(panelHeight-marginBottom)
		w, h := float64(panelWidth-marginLeft-marginRight), float64(panelHeight-marginTop-marginBottom)
		for _, s := range p.lines {
			// The colour tells the keep ratio: the first seen (copy's one,
			// select_if's 0.1), the second (0.9).
			want := palette[0]
			if s.keep == 0.9 {
				want = palette[1]
			}
			if s.color != want {
				t.Errorf("%s %s keep %v: colour %v, want %v", op, s.impl, s.keep, s.color, want)
			}
			for _, d := range s.pts {
				x := left + (d.X-p.xmin)/(p.xmax-p.xmin)*w
				y := bottom - d.Y/p.ymax*h
				// A ring: white within, its colour around; a square: its
				// colour throughout. Either is drawn over the lines.
				at := func(dx, dy int) color.RGBA {
					return color.RGBAModel.Convert(img.At(int(math.Floor(x))+dx, int(math.Floor(y))+dy)).(color.RGBA)
				}
				around := 0
				for dy := -4; dy <= 4; dy++ {
					for dx := -4; dx <= 4; dx++ {
						if at(dx, dy) == s.color {
							around++
						}
					}
				}
				ok := at(0, 0) == white && around >= 8
				if s.other() {
					ok = at(0, 0) == s.color && at(-2, -2) == s.color && at(2, 2) == s.color
				}
				if !ok {
					t.Errorf("%s %s keep %v at %v: no mark at (%.1f, %.1f): centre %v, %d pixels of its colour %v around", op, s.impl, s.keep, d, x, y, at(0, 0), around, s.color)
				}
			}
		}
		// The title's text is drawn in black, centred above the plot.
		black := 0
		for y := 5; y < 22; y++ {
			for x := k*panelWidth + 200; x < k*panelWidth+340; x++ {
				if r, _, _, _ := img.At(x, y).RGBA(); r == 0 {
					black++
				}
			}
		}
		if black < 10 {
			t.Errorf("%s: %d black pixels where the title goes", op, black)
		}
	}
}

// TestPlotErrors: a path that is neither .svg nor .png, no rows of the
// operations, and a throughput that cannot be drawn are errors, and
// leave no file.
func TestPlotErrors(t *testing.T) {
	dir := vktest.TempDir(t)
	inf := append(plotRows(), Row{Impl: "vkcompact", Op: "copy", N: 1 << 28, KeepRatio: 1, GelemPerS: math.Inf(1)})
	for _, c := range []struct {
		file string
		rows []Row
		ops  []string
		want string
	}{
		{"plot.pdf", plotRows(), []string{"copy"}, "want a .svg or .png file"},
		{"plot.svg", plotRows(), []string{"sort_keys_u32"}, "no rows of sort_keys_u32 to draw"},
		{"plot.png", inf, []string{"copy"}, "throughput +Inf cannot be drawn"},
	} {
		path := filepath.Join(dir, c.file)
		if err := WritePlot(path, c.rows, c.ops); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.file, err, c.want)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: a failed plot left a file (%v)", c.file, err)
		}
	}
}

// TestNiceStep: tick steps are 1, 2 or 5 times a power of ten, the least
// such at or above the step asked for.
func TestNiceStep(t *testing.T) {
	for d, want := range map[float64]float64{0.3: 0.5, 1: 1, 1.1: 2, 2.5: 5, 7: 10, 42: 50, 100: 100, 0.012: 0.02} {
		if got := niceStep(d); math.Abs(got-want) > 1e-12*want {
			t.Errorf("niceStep(%v) = %v, want %v", d, got, want)
		}
	}
}
