package transfer_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// copyCase copies n random words from srcOff into a poisoned buffer at
// dstOff (offsets in words) and checks every word of the destination
// buffer: the copied range against the source, the rest still poisoned.
func copyCase(t *testing.T, ctx *vk.Context, rng *rand.Rand, n, srcOff, dstOff int, opts transfer.CopyOptions) {
	t.Helper()
	const guard = 8 // poisoned words after the range
	src, err := ctx.NewBuffer(uint64(4*max(srcOff+n, 1)), vk.DeviceLocal)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Release()
	dst, err := ctx.NewBuffer(uint64(4*(dstOff+n+guard)), vk.DeviceLocal)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Release()
	in := make([]uint32, srcOff+n)
	for i := range in {
		in[i] = rng.Uint32()
	}
	if len(in) > 0 {
		if err := vk.Upload(src.Range(0, uint64(4*len(in))), in); err != nil {
			t.Fatal(err)
		}
	}
	out := vktest.PoisonWords(dstOff + n + guard)
	if err := vk.Upload(dst.All(), out); err != nil {
		t.Fatal(err)
	}
	s := src.Range(uint64(4*srcOff), uint64(4*n))
	d := dst.Range(uint64(4*dstOff), uint64(4*n))
	if err := transfer.Copy(ctx, d, s, opts); err != nil {
		t.Fatalf("copy of %d words: %v", n, err)
	}
	if err := vk.Download(dst.All(), out); err != nil {
		t.Fatal(err)
	}
	for i, v := range out {
		want := uint32(vktest.Poison)
		if i >= dstOff && i < dstOff+n {
			want = in[srcOff+i-dstOff]
		}
		if v != want {
			t.Fatalf("copy of %d words (src offset %d, dst offset %d, %+v): word %d is %#x, want %#x",
				n, srcOff, dstOff, opts, i, v, want)
		}
	}
}

func TestCopySizes(t *testing.T) {
	ctx := vktest.Open(t)
	rng := vktest.Rand(t)
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 31, 32, 33, 127, 128, 129, 1021, 1024, 4095, 4097, 65537, 1<<20 + 12345} {
		copyCase(t, ctx, rng, n, 0, 0, transfer.CopyOptions{})
	}
	for range 20 {
		copyCase(t, ctx, rng, rng.IntN(300000), 0, 0, transfer.CopyOptions{})
	}
}

func TestCopyOffsets(t *testing.T) {
	ctx := vktest.Open(t)
	rng := vktest.Rand(t)
	align := int(max(ctx.Info().MinStorageBufferOffsetAlignment, 4) / 4) // in words
	for _, off := range [][2]int{{align, 0}, {0, align}, {3 * align, 5 * align}, {64 * align, align}} {
		for _, n := range []int{1, 6, 257, 10003} {
			copyCase(t, ctx, rng, n, off[0], off[1], transfer.CopyOptions{})
		}
	}
}

func TestCopyTuning(t *testing.T) {
	ctx := vktest.Open(t)
	rng := vktest.Rand(t)
	sg := ctx.Info().MaxSubgroupSize
	maxWG := ctx.Info().MaxWorkgroupInvocations // 256 on SwiftShader
	for _, o := range []transfer.CopyOptions{
		{WorkgroupSize: max(sg, 32), LoadsPerLane: 1},
		{WorkgroupSize: max(sg, 64), LoadsPerLane: 3},
		{WorkgroupSize: 256, LoadsPerLane: 4},
		{WorkgroupSize: min(512, maxWG), LoadsPerLane: 8},
		{WorkgroupSize: 1, LoadsPerLane: 1}, // fewer invocations than tail words
		{WorkgroupSize: 2, LoadsPerLane: 2},
		{WorkgroupSize: 3, LoadsPerLane: 5},
	} {
		for _, n := range []int{1, 3, 5, 7, 999, 70001} {
			copyCase(t, ctx, rng, n, 0, 0, o)
		}
	}
}

// TestCopyAboveMaxRange copies more than maxStorageBufferRange bytes
// (lavapipe's 128 MiB is 2^25 words), which takes several bindings.
func TestCopyAboveMaxRange(t *testing.T) {
	ctx := vktest.Open(t)
	maxWords := int(ctx.Info().MaxStorageBufferRange / 4)
	if maxWords > 1<<26 {
		t.Skipf("maxStorageBufferRange %d: too large to exceed in a test", ctx.Info().MaxStorageBufferRange)
	}
	rng := vktest.Rand(t)
	copyCase(t, ctx, rng, maxWords+12345, 0, 4, transfer.CopyOptions{})
	copyCase(t, ctx, rng, maxWords+12345, 1, 3, transfer.CopyOptions{}) // shifted: word by word
}

// TestCopyShifted copies ranges whose offsets are whole words but not
// multiples of minStorageBufferOffsetAlignment (a count word at byte 4
// of a result block, the shifts up to the alignment's last word), which
// are bound from the offset rounded down and copied word by word, under
// several tunings.
func TestCopyShifted(t *testing.T) {
	ctx := vktest.Open(t)
	rng := vktest.Rand(t)
	align := int(max(ctx.Info().MinStorageBufferOffsetAlignment, 4) / 4) // in words
	sg := ctx.Info().MaxSubgroupSize
	for _, o := range []transfer.CopyOptions{{}, {WorkgroupSize: max(sg, 32), LoadsPerLane: 3}, {WorkgroupSize: 3, LoadsPerLane: 2}} {
		for _, off := range [][2]int{{1, 0}, {0, 1}, {1, 1}, {3, 5}, {align - 1, align + 1}, {2*align + 1, 0}} {
			for _, n := range []int{1, 2, 5, 257, 10003} {
				copyCase(t, ctx, rng, n, off[0], off[1], o)
			}
		}
	}
}

func TestCopyBadInput(t *testing.T) {
	ctx := vktest.Open(t)
	a, _ := ctx.NewBuffer(4096, vk.DeviceLocal)
	b, _ := ctx.NewBuffer(4096, vk.DeviceLocal)
	defer a.Release()
	defer b.Release()
	released, _ := ctx.NewBuffer(64, vk.DeviceLocal)
	released.Release()
	if err := transfer.Copy(ctx, b.Range(0, 64), a.Range(2, 64), transfer.CopyOptions{}); !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "copy from offset 2 to offset 0: both must be multiples of 4") {
		t.Errorf("source offset of 2 bytes: %v", err)
	}
	if err := transfer.Copy(ctx, b.Range(6, 64), a.Range(0, 64), transfer.CopyOptions{}); !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "both must be multiples of 4") {
		t.Errorf("destination offset of 6 bytes: %v", err)
	}
	for _, tc := range []struct {
		name     string
		dst, src vk.Range
		want     string
	}{
		{"size not whole words", b.Range(0, 6), a.Range(0, 6), "32-bit words"},
		{"destination of another size", b.Range(0, 64), a.Range(0, 128), "destination"},
		{"overlapping ranges", a.Range(64, 256), a.Range(0, 256), "overlap"},
		{"source past the end", b.Range(0, 64), a.Range(4090, 64), "exceeds"},
		{"released source", b.Range(0, 64), released.All(), "after Release"},
		{"nil destination", vk.Range{Size: 64}, a.Range(0, 64), "nil buffer"},
	} {
		err := transfer.Copy(ctx, tc.dst, tc.src, transfer.CopyOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error mentioning %q", tc.name, err, tc.want)
		}
	}
	for _, o := range []transfer.CopyOptions{{LoadsPerLane: transfer.MaxCopyLoadsPerLane + 1}, {WorkgroupSize: 1 << 20}} {
		err := transfer.Copy(ctx, b.Range(0, 64), a.Range(0, 64), o)
		if !errors.Is(err, vk.ErrInvalid) {
			t.Errorf("copy with options %+v: %v, want vk.ErrInvalid", o, err)
		}
	}
}

func BenchmarkCopy(b *testing.B) {
	ctx, err := vk.Open(vk.Options{})
	if err != nil {
		b.Skip(err)
	}
	defer ctx.Release()
	for _, n := range []int{1 << 16, 1 << 20} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			src, _ := ctx.NewBuffer(uint64(4*n), vk.DeviceLocal)
			dst, _ := ctx.NewBuffer(uint64(4*n), vk.DeviceLocal)
			defer src.Release()
			defer dst.Release()
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				if err := transfer.Copy(ctx, dst.All(), src.All(), transfer.CopyOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCopyCount copies the elements below a GPU-side count, for several
// element sizes and counts below, at and above the range's elements; the
// rest of the destination must stay poisoned. Bad element sizes and
// count ranges are errors.
func TestCopyCount(t *testing.T) {
	ctx := vktest.Open(t)
	rng := vktest.Rand(t)
	for _, elem := range []uint32{4, 8, 12, 32} {
		for _, n := range []int{1, 77, 5000} {
			for _, count := range []uint32{0, 1, uint32(n / 3), uint32(n), uint32(n + 1), 0xffffffff} {
				words := n * int(elem/4)
				in := make([]uint32, words)
				for i := range in {
					in[i] = rng.Uint32()
				}
				src := vktest.NewPoisoned(t, ctx, uint64(4*words))
				dst := vktest.NewPoisoned(t, ctx, uint64(4*words+64))
				cnt := vktest.NewPoisoned(t, ctx, 16)
				if err := vk.Upload(src.Range(0, uint64(4*words)), in); err != nil {
					t.Fatal(err)
				}
				if err := vk.Upload(cnt.Range(0, 4), []uint32{count}); err != nil {
					t.Fatal(err)
				}
				err := pipeline.Run(ctx, func(r *pipeline.Recorder) {
					transfer.RecordCopyCount(r, dst.Range(0, uint64(4*words)), src.Range(0, uint64(4*words)), cnt.Range(0, 4), elem, transfer.CopyOptions{})
				})
				if err != nil {
					t.Fatal(err)
				}
				out := make([]uint32, dst.Size()/4)
				if err := vk.Download(dst.All(), out); err != nil {
					t.Fatal(err)
				}
				copied := min(int(count), n) * int(elem/4)
				for i, v := range out {
					want := uint32(vktest.Poison)
					if i < copied {
						want = in[i]
					}
					if v != want {
						t.Fatalf("%d-byte elements, n=%d, count %d: word %d is %#x, want %#x", elem, n, count, i, v, want)
					}
				}
			}
		}
	}
	buf := vktest.NewPoisoned(t, ctx, 256)
	for _, c := range []struct {
		name  string
		elem  uint32
		count vk.Range
	}{
		{"element size 0", 0, buf.Range(128, 4)},
		{"element size 6", 6, buf.Range(128, 4)},
		{"element size not dividing the range", 12, buf.Range(128, 4)},
		{"no count buffer", 4, vk.Range{}},
		{"count of 2 bytes", 4, buf.Range(128, 2)},
	} {
		size := uint64(64)
		err := pipeline.Run(ctx, func(r *pipeline.Recorder) {
			transfer.RecordCopyCount(r, buf.Range(0, size), buf.Range(64, size), c.count, c.elem, transfer.CopyOptions{})
		})
		if !errors.Is(err, vk.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", c.name, err)
		}
	}
}
