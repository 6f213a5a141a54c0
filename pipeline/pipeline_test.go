package pipeline_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

// copyKernel is the copy shader, used here as a kernel with known effects:
// bindings 0/2 read, 1/3 written, one push word (the word count).
var copyKernel = &pipeline.Kernel{
	Name:          "copy",
	SPIRV:         shaders.MustSPIRV("copy"),
	Bindings:      []pipeline.Use{pipeline.Read, pipeline.Write, pipeline.Read, pipeline.Write},
	PushWords:     1,
	FullSubgroups: true,
}

func TestGridFor(t *testing.T) {
	info := vk.DeviceInfo{MaxWorkgroupCount: [3]uint32{65535, 65535, 65535}}
	for _, groups := range []uint64{0, 1, 65535, 65536, 65537, 1 << 20, 3*65535 + 1, 65535 * 65535} {
		g, err := pipeline.GridFor(info, groups)
		if err != nil {
			t.Fatalf("GridFor(%d): %v", groups, err)
		}
		total := uint64(g.X) * uint64(g.Y)
		if groups == 0 {
			if total != 0 {
				t.Errorf("GridFor(0) = %+v", g)
			}
			continue
		}
		if g.X == 0 || g.X > 65535 || g.Y > 65535 || total < groups || total-groups >= uint64(g.Y) {
			t.Errorf("GridFor(%d) = %+v (%d workgroups)", groups, g, total)
		}
	}
	if _, err := pipeline.GridFor(info, 65535*65535+1); err == nil {
		t.Error("GridFor beyond the device's grid returned no error")
	}
}

func newRand(t *testing.T) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, 7))
}

// newWords makes a buffer of n words: random contents when rng is non-nil,
// else poisoned with 0xDEADBEEF.
func newWords(t *testing.T, ctx *vk.Context, n int, rng *rand.Rand) (*vk.Buffer, []uint32) {
	t.Helper()
	buf, err := ctx.NewBuffer(uint64(4*n), vk.DeviceLocal)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(buf.Release)
	w := make([]uint32, n)
	for i := range w {
		if rng != nil {
			w[i] = rng.Uint32()
		} else {
			w[i] = 0xDEADBEEF
		}
	}
	if err := vk.Upload(buf.All(), w); err != nil {
		t.Fatal(err)
	}
	return buf, w
}

func download(t *testing.T, b *vk.Buffer) []uint32 {
	t.Helper()
	w := make([]uint32, b.Size()/4)
	if err := vk.Download(b.All(), w); err != nil {
		t.Fatal(err)
	}
	return w
}

// dispatchCopy records one copy dispatch of all of src into dst.
func dispatchCopy(r *pipeline.Recorder, p *pipeline.Pipeline, dst, src *vk.Buffer, vecs uint32) {
	words := src.Size() / 4
	tile := uint64(p.WorkgroupSize) * uint64(vecs) * 4
	groups := max((words+tile-1)/tile, 1)
	r.Dispatch(p, groups, []uint32{uint32(words)}, src.All(), dst.All(), src.All(), dst.All())
}

// TestRecorderBarriers chains dependent and independent dispatches: the
// results must be right, validation (synchronisation included) silent, and
// barriers exactly where a dependency is.
func TestRecorderBarriers(t *testing.T) {
	ctx := vktest.Open(t)
	rng := newRand(t)
	p, err := pipeline.For(ctx).Get(copyKernel, 64, 1)
	if err != nil {
		t.Fatal(err)
	}
	const n = 10007
	a, wantA := newWords(t, ctx, n, rng)
	b, _ := newWords(t, ctx, n, nil)
	c, _ := newWords(t, ctx, n, nil)
	d, wantD := newWords(t, ctx, n, rng)
	e, _ := newWords(t, ctx, n, nil)
	// Read after write: one barrier, before c = b. Its execution dependency
	// also orders every earlier dispatch, so nothing pends after it.
	runCounted(t, ctx, 3, 1, func(r *pipeline.Recorder) {
		dispatchCopy(r, p, b, a, 1) // b = a
		dispatchCopy(r, p, e, d, 1) // e = d: independent, no barrier
		dispatchCopy(r, p, c, b, 1) // c = b: reads b, written above
	})
	check(t, "b", b, wantA)
	check(t, "c", c, wantA)
	check(t, "e", e, wantD)
	// Write after read alone: a is read, then written.
	runCounted(t, ctx, 2, 1, func(r *pipeline.Recorder) {
		dispatchCopy(r, p, b, a, 1) // reads a
		dispatchCopy(r, p, a, d, 1) // writes a
	})
	check(t, "b", b, wantA)
	check(t, "a", a, wantD)
	// Independent dispatches only: no barrier.
	runCounted(t, ctx, 2, 0, func(r *pipeline.Recorder) {
		dispatchCopy(r, p, b, a, 1)
		dispatchCopy(r, p, e, d, 1)
	})
}

func runCounted(t *testing.T, ctx *vk.Context, wantDisp, wantBarr int, record func(*pipeline.Recorder)) {
	t.Helper()
	var disp, barr int
	err := pipeline.Run(ctx, func(r *pipeline.Recorder) {
		record(r)
		disp, barr = r.Stats()
	})
	if err != nil {
		t.Fatal(err)
	}
	if disp != wantDisp || barr != wantBarr {
		t.Errorf("%d dispatches and %d barriers, want %d and %d", disp, barr, wantDisp, wantBarr)
	}
}

func check(t *testing.T, name string, b *vk.Buffer, want []uint32) {
	t.Helper()
	if got := download(t, b); !slices.Equal(got, want) {
		t.Errorf("buffer %s differs from its expected contents", name)
	}
}

// TestManyWorkgroups dispatches more workgroups than maxComputeWorkGroupCount[0]
// allows in x (65535 on lavapipe), so the grid spreads over y.
func TestManyWorkgroups(t *testing.T) {
	ctx := vktest.Open(t)
	info := ctx.Info()
	wg := max(info.MaxSubgroupSize, 32)
	p, err := pipeline.For(ctx).Get(copyKernel, wg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if info.MaxWorkgroupCount[0] > 1<<20 {
		t.Skipf("maxComputeWorkGroupCount[0] is %d: too many workgroups to exceed in a test", info.MaxWorkgroupCount[0])
	}
	tileWords := int(wg) * 4
	// One more than a multiple of two rows: the grid holds a surplus
	// workgroup that must copy nothing.
	groups := int(min(info.MaxWorkgroupCount[0], 1<<20)) + 78
	n := groups*tileWords - 5 // the last workgroup's tile is partial
	if n > 1<<26 {
		t.Skipf("%d words exceed the test's budget on this device", n)
	}
	rng := newRand(t)
	src, want := newWords(t, ctx, n, rng)
	dst, _ := newWords(t, ctx, n, nil)
	g, _ := pipeline.GridFor(info, uint64(groups))
	if g.Y < 2 || int(g.X)*int(g.Y) == groups {
		t.Fatalf("grid %+v for %d workgroups: want y > 1 and surplus workgroups", g, groups)
	}
	err = pipeline.Run(ctx, func(r *pipeline.Recorder) { dispatchCopy(r, p, dst, src, 1) })
	if err != nil {
		t.Fatal(err)
	}
	got := download(t, dst)
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("word %d of %d: got %#x, want %#x", i, n, got[i], want[i])
		}
	}
}

func TestCacheConcurrentFirstUse(t *testing.T) {
	ctx := vktest.Open(t)
	cache := pipeline.For(ctx)
	if pipeline.For(ctx) != cache {
		t.Fatal("For returned two caches for one context")
	}
	var wg sync.WaitGroup
	got := make([]*pipeline.Pipeline, 16)
	for i := range got {
		wg.Go(func() {
			p, err := cache.Get(copyKernel, 128, uint32(1+i%2))
			if err != nil {
				t.Error(err)
			}
			got[i] = p
		})
	}
	wg.Wait()
	if cache.Len() != 2 {
		t.Errorf("cache holds %d pipelines, want 2", cache.Len())
	}
	for i := range got {
		if got[i] != got[i%2] {
			t.Errorf("goroutine %d got a different pipeline for the same constants", i)
		}
	}
}

func TestBadDispatch(t *testing.T) {
	ctx := vktest.Open(t)
	other := vktest.Open(t)
	info := ctx.Info()
	cache := pipeline.For(ctx)
	p, err := cache.Get(copyKernel, 64, 1)
	if err != nil {
		t.Fatal(err)
	}
	buf, _ := newWords(t, ctx, 1024, nil)
	foreign, _ := newWords(t, other, 1024, nil)
	released, _ := newWords(t, ctx, 64, nil)
	released.Release()
	// Binding offsets step by the offset alignment (at least 64 bytes).
	step := max(info.MinStorageBufferOffsetAlignment, 64)
	r4 := func(r vk.Range) []vk.Range {
		return []vk.Range{buf.Range(0, 64), buf.Range(step, 64), r, buf.Range(3*step, 64)}
	}
	cases := []struct {
		name, want string
		record     func(r *pipeline.Recorder)
	}{
		{"too few bindings", "3 bindings given", func(r *pipeline.Recorder) {
			r.Dispatch(p, 1, []uint32{16}, buf.All(), buf.All(), buf.All())
		}},
		{"wrong push constants", "push-constant words", func(r *pipeline.Recorder) {
			r.Dispatch(p, 1, nil, r4(buf.Range(2*step, 64))...)
		}},
		{"misaligned offset", "minStorageBufferOffsetAlignment", func(r *pipeline.Recorder) {
			r.Dispatch(p, 1, []uint32{1}, r4(buf.Range(4, 4))...)
		}},
		{"range past the end", "exceeds", func(r *pipeline.Recorder) {
			r.Dispatch(p, 1, []uint32{1}, r4(buf.Range(4096, 16))...)
		}},
		{"empty range", "empty range", func(r *pipeline.Recorder) {
			r.Dispatch(p, 1, []uint32{1}, r4(buf.Range(0, 0))...)
		}},
		{"released buffer", "after Release", func(r *pipeline.Recorder) {
			r.Dispatch(p, 1, []uint32{1}, r4(released.All())...)
		}},
		{"nil buffer", "nil buffer", func(r *pipeline.Recorder) {
			r.Dispatch(p, 1, []uint32{1}, r4(vk.Range{Size: 16})...)
		}},
		{"buffer of another context", "another context", func(r *pipeline.Recorder) {
			r.Dispatch(p, 1, []uint32{1}, r4(foreign.Range(0, 16))...)
		}},
		{"too many workgroups", "exceed", func(r *pipeline.Recorder) {
			r.Dispatch(p, uint64(info.MaxWorkgroupCount[0])*uint64(info.MaxWorkgroupCount[1])+1, []uint32{1}, r4(buf.Range(2*step, 64))...)
		}},
		{"nil pipeline", "nil", func(r *pipeline.Recorder) {
			r.Dispatch(nil, 1, nil)
		}},
	}
	{
		// A range past the binding limit is refused before anything is
		// recorded: a small buffer wrapped with the size claimed serves
		// (devices cannot always allocate maxStorageBufferRange bytes:
		// SwiftShader's limit is its largest allocation).
		small, err := ctx.NewBuffer(256, vk.DeviceLocal)
		if err != nil {
			t.Fatal(err)
		}
		defer small.Release()
		big, err := ctx.WrapBuffer(small.Handle(), uint64(info.MaxStorageBufferRange)+16)
		if err != nil {
			t.Fatal(err)
		}
		defer big.Release()
		cases = append(cases, struct {
			name, want string
			record     func(r *pipeline.Recorder)
		}{"range above maxStorageBufferRange", "maxStorageBufferRange", func(r *pipeline.Recorder) {
			r.Dispatch(p, 1, []uint32{1}, r4(big.All())...)
		}})
	}
	for _, tc := range cases {
		err := pipeline.Run(ctx, func(r *pipeline.Recorder) {
			tc.record(r)
			// The error is sticky: a valid dispatch after it records nothing.
			r.Dispatch(p, 1, []uint32{16}, r4(buf.Range(2*step, 64))...)
			if d, _ := r.Stats(); d != 0 {
				t.Errorf("%s: %d dispatches recorded after the error", tc.name, d)
			}
		})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	// Bad pipelines.
	if _, err := cache.Get(copyKernel); err == nil {
		t.Error("Get without a workgroup size returned no error")
	}
	if _, err := cache.Get(copyKernel, info.MaxWorkgroupInvocations+1, 1); err == nil {
		t.Error("Get with an over-large workgroup returned no error")
	}
	if ctx.FullSubgroups() && info.MaxSubgroupSize > 1 {
		if _, err := cache.Get(copyKernel, info.MaxSubgroupSize+1, 1); err == nil {
			t.Error("Get with a workgroup that is not a multiple of the subgroup size returned no error")
		}
	}
	if _, err := cache.Get(&pipeline.Kernel{Name: "junk", SPIRV: []uint32{1, 2, 3}, Bindings: []pipeline.Use{pipeline.Read}}, 64); err == nil {
		t.Error("Get of a kernel that is not SPIR-V returned no error")
	}
}

func TestCacheAfterRelease(t *testing.T) {
	ctx := vktest.Open(t)
	ctx.Release()
	if _, err := pipeline.For(ctx).Get(copyKernel, 64, 1); !errors.Is(err, vk.ErrReleased) {
		t.Errorf("Get after Release: %v", err)
	}
}
