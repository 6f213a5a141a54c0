package main

import (
	"bytes"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/demo/raytrace"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// near reports whether a and b agree to a relative 1e-9.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

func TestRaytraceJSON(t *testing.T) {
	requireDevice(t)
	for _, p := range []raytrace.Params{
		{Width: 50, Height: 30, SPP: 2, Bounces: 6},
		{Width: 33, Height: 7, SPP: 3, Bounces: 1}, // no compaction at all
	} {
		args := []string{"raytrace", "-json", "-device", os.Getenv("VKCOMPACT_DEVICE"), "-reps", "2", "-warmup-ms", "0",
			"-width", fmt.Sprint(p.Width), "-height", fmt.Sprint(p.Height), "-spp", fmt.Sprint(p.SPP), "-bounces", fmt.Sprint(p.Bounces)}
		// The JSON's field names, each documented.
		out := runJSON(t, args, "verified", "width", "height", "spp", "bounces", "rays_per_bounce", "gpu_ms", "gpu_ms_uncompacted",
			"speedup", "mrays_per_s", "device", "compaction_ms", "compaction_share", "shade_ms", "reference", "rays")
		d := decodeLastLine[raytraceOutput](t, out)
		want := raytrace.Trace(p)
		if !d.Verified || d.Op != "raytrace" || d.Width != p.Width || d.Height != p.Height || d.SPP != p.SPP || d.Bounces != p.Bounces ||
			d.Reps != 2 || d.Mismatch != "" || d.Device == "" || d.CompactionPath == "" {
			t.Errorf("%v: JSON %s", args, out)
		}
		if !slices.Equal(d.RaysPerBounce, want.Rays) {
			t.Errorf("rays per bounce %v; the Go tracer's %v", d.RaysPerBounce, want.Rays)
		}
		sum := uint64(0)
		for _, n := range want.Rays {
			sum += uint64(n)
		}
		ref := d.Reference
		if d.Rays != sum || ref.Width != rtRefWidth || ref.Bounces != p.Bounces || ref.Samples != rtRefWidth*rtRefHeight*rtRefSPP ||
			ref.AgreeingSamples < ref.Samples*99/100 || ref.ExactSamples > ref.AgreeingSamples {
			t.Errorf("rays %d (want %d), reference %+v", d.Rays, sum, ref)
		}
		checkRaytraceTimes(t, &d)
	}
}

// checkRaytraceTimes checks the times' shapes and the figures derived
// from them.
func checkRaytraceTimes(t *testing.T, d *raytraceOutput) {
	t.Helper()
	if d.GPUms == nil || d.GPUmsUncompacted == nil || d.CompactionMs == nil || d.Speedup == nil || d.MraysPerS == nil || d.CompactionShare == nil {
		t.Fatalf("missing times: %+v", d)
	}
	if *d.GPUms <= 0 || *d.GPUmsUncompacted <= 0 || *d.CompactionMs < 0 || *d.CompactionMs > *d.GPUms ||
		len(d.ShadeMs) != d.Bounces || len(d.ShadeMsUncomp) != d.Bounces || len(d.CompactMs) != d.Bounces-1 {
		t.Errorf("times %v %v %v, per bounce %v %v %v", *d.GPUms, *d.GPUmsUncompacted, *d.CompactionMs, d.ShadeMs, d.ShadeMsUncomp, d.CompactMs)
	}
	if !near(*d.Speedup, *d.GPUmsUncompacted / *d.GPUms) || !near(*d.MraysPerS, float64(d.Rays)/(*d.GPUms*1e3)) ||
		!near(*d.CompactionShare, *d.CompactionMs / *d.GPUms) || (d.Bounces == 1) != (*d.CompactionMs == 0) {
		t.Errorf("speedup %v, Mrays/s %v, compaction share %v", *d.Speedup, *d.MraysPerS, *d.CompactionShare)
	}
}

func TestRaytraceTextAndPNG(t *testing.T) {
	requireDevice(t)
	p := raytrace.Params{Width: 40, Height: 25, SPP: 2, Bounces: 5}
	pngPath := filepath.Join(vktest.TempDir(t), "scene.png")
	code, out, errOut := runCLI(t, "raytrace", "-width", "40", "-height", "25", "-spp", "2", "-bounces", "5", "-reps", "1", "-png", pngPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := raytrace.Trace(p)
	if strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "raytrace: 40x25, 2 spp, 5 bounces, ") ||
		!strings.Contains(out, fmt.Sprint(want.Rays)) || !strings.Contains(out, "; verified: ") || !strings.Contains(out, "wrote "+pngPath) {
		t.Errorf("output %q", out)
	}
	_, img := readPNG(t, pngPath)
	// The GPU's image is the Go tracer's, bit for bit, so its picture is
	// too.
	drawn := raytrace.Image(want, rtExposure)
	rgba, ok := img.(*image.RGBA)
	if img.Bounds() != drawn.Bounds() {
		t.Fatalf("the picture is %v, want %v", img.Bounds(), drawn.Bounds())
	}
	if ok && !bytes.Equal(rgba.Pix, drawn.Pix) || !ok && !samePicture(img, drawn) {
		t.Error("the picture is not the Go tracer's render tone-mapped")
	}
}

// samePicture compares two images pixel by pixel.
func samePicture(a image.Image, b *image.RGBA) bool {
	for y := range b.Bounds().Dy() {
		for x := range b.Bounds().Dx() {
			r, g, bb, al := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			if r != r2 || g != g2 || bb != b2 || al != a2 {
				return false
			}
		}
	}
	return true
}

// TestRaytraceDetectsCorruption changes renders after they are read back:
// the check must fail (exit 1, verified false, the mismatch named), except
// for one reference sample, which the tolerance takes. It runs in
// process, since the change is a test hook.
func TestRaytraceDetectsCorruption(t *testing.T) {
	requireDevice(t)
	defer func() { raytraceTamper = nil }()
	flip := func(v []float32, i int) { v[i] = math.Float32frombits(math.Float32bits(v[i]) ^ 1) }
	for _, c := range []struct {
		name   string
		tamper func(m raytrace.Mode, rep int, r *raytrace.Render)
		want   string // in the mismatch; "" for a verified run
	}{
		{"an uncompacted pixel", func(m raytrace.Mode, rep int, r *raytrace.Render) {
			if m == raytrace.Uncompacted && rep == 0 {
				flip(r.Pixels, 100)
			}
		}, "uncompacted render 1 against the first compacted: 1 difference(s); the first: pixel 33"},
		{"an uncompacted sample", func(m raytrace.Mode, rep int, r *raytrace.Render) {
			if m == raytrace.Uncompacted && rep == 0 {
				flip(r.Samples, 7)
			}
		}, "the first: sample 2"},
		{"the second compacted render", func(m raytrace.Mode, rep int, r *raytrace.Render) {
			if m == raytrace.Compacted && rep == 1 {
				flip(r.Pixels, 5)
			}
		}, "compacted render 2 against the first compacted"},
		{"a kept count", func(m raytrace.Mode, rep int, r *raytrace.Render) {
			if m == raytrace.Compacted && rep == 0 {
				r.Rays[2]--
			}
		}, "compacted render 1: 1 difference(s); the first: the shade's count"},
		{"5% of the reference", func(m raytrace.Mode, rep int, r *raytrace.Render) {
			if rep == -1 {
				for i := 0; i < len(r.Samples); i += 60 {
					r.Samples[i] += 0.5
				}
			}
		}, "samples agree with the Go tracer"},
		{"one reference sample", func(m raytrace.Mode, rep int, r *raytrace.Render) {
			if rep == -1 {
				r.Samples[300] += 0.5
			}
		}, ""},
	} {
		raytraceTamper = c.tamper
		var out, errOut bytes.Buffer
		code := run([]string{"raytrace", "-width", "33", "-height", "20", "-spp", "2", "-bounces", "4", "-reps", "2", "-warmup-ms", "0", "-json"}, &out, &errOut)
		d := decodeLastLine[raytraceOutput](t, out.String())
		if c.want == "" {
			if code != 0 || !d.Verified || d.Reference.ExactSamples != d.Reference.Samples-1 {
				t.Errorf("%s changed: exit %d, verified %v, reference %+v, stderr %q", c.name, code, d.Verified, d.Reference, errOut.String())
			}
			continue
		}
		if code != 1 || d.Verified || !strings.Contains(d.Mismatch, c.want) || !strings.HasPrefix(errOut.String(), "vkcompact: raytrace: the check failed: ") {
			t.Errorf("%s changed: exit %d, verified %v, mismatch %q (want %q), stderr %q", c.name, code, d.Verified, d.Mismatch, c.want, errOut.String())
		}
	}
}

// raytraceBadCases are the bad invocations of raytrace, for TestBadInput.
// good is a regular file, to put a -png path under.
func raytraceBadCases(good string) []badCase {
	var cases []badCase
	for _, f := range []struct {
		name string
		max  int
	}{{"width", raytrace.MaxSide}, {"height", raytrace.MaxSide}, {"spp", raytrace.MaxSPP}, {"bounces", raytrace.MaxBounces}, {"reps", rtMaxReps}} {
		for _, v := range []int{0, -3, f.max + 1} {
			cases = append(cases, badCase{name: fmt.Sprintf("-%s %d", f.name, v), args: []string{"-" + f.name, fmt.Sprint(v)},
				want: fmt.Sprintf("-%s %d: want 1 to %d", f.name, v, f.max)})
		}
	}
	cases = append(cases, drawingBadCases(good, []string{"-width", "8", "-height", "8", "-png", "$PNG"})...)
	cases = append(cases, []badCase{
		{name: "width not a number", args: []string{"-width", "wide"}, want: `invalid value "wide" for flag -width`},
		{name: "height above 2^63", args: []string{"-height", "99999999999999999999"}, want: `invalid value "99999999999999999999" for flag -height: value out of range`},
		{name: "negative warm-up", args: []string{"-warmup-ms", "-1"}, want: "-warmup-ms -1: want 0 to 600000"},
		{name: "paths above 2^32-2", args: []string{"-width", "32768", "-height", "32768", "-spp", "8"}, want: "is 8589934592 paths: at most 4294967294"},
		{name: "the demo's flag", args: []string{"-seed", "1"}, want: "flag provided but not defined: -seed"},
		// 2^30 rays of 40 bytes: more than any device binds (4 GiB at most).
		{name: "a ray queue larger than one binding", args: []string{"-width", "8192", "-height", "8192", "-spp", "16", "-png", "$PNG"},
			want: "is a queue of 1073741824 rays, 42949672960 bytes; the device binds at most", device: true, late: true},
	}...)
	for i := range cases {
		cases[i].cmd = "raytrace"
	}
	return cases
}
