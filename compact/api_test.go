package compact_test

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/vk"
)

// apiParticle is a struct element for StructOf.
type apiParticle struct {
	Pos  [3]float32
	ID   uint32
	Vel  [3]float32
	Life float32
}

// TestSliceTypeFromElements: SelectSlice takes the key type from T for plain
// types (a []float32 is never compared as uint32 keys), refuses a key type
// that does not match T, and asks where a struct's key is.
func TestSliceTypeFromElements(t *testing.T) {
	ctx := vktest.Open(t)
	got, res, err := compact.SelectSlice(ctx, []float32{-1, 2, -3, 4}, compact.Selection{Keep: compact.KeepIf(compact.Greater, compact.Float(0))})
	if err != nil || !slices.Equal(got, []float32{2, 4}) || res.Kept != 2 {
		t.Errorf("SelectSlice of []float32 keeping x > 0: %v, %+v, %v; want [2 4]", got, res, err)
	}
	i64, _, err := compact.SelectSlice(ctx, []int64{-5, 0, 7, -1 << 40}, compact.Selection{Keep: compact.KeepIf(compact.Less, compact.Int(0))})
	if err != nil || !slices.Equal(i64, []int64{-5, -1 << 40}) {
		t.Errorf("SelectSlice of []int64 keeping x < 0: %v, %v", i64, err)
	}
	for _, c := range []struct {
		name string
		call func() error
		want string
	}{
		{"u64 keys for []float32", func() error {
			_, _, err := compact.SelectSlice(ctx, []float32{1}, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint64)})
			return err
		}, "Selection.Elem Plain(u64) does not match the elements' Go type float32: the element itself is a float32 (f32), not u64"},
		{"f32 keys for []uint32", func() error {
			_, _, err := compact.SelectFlaggedSlice(ctx, []uint32{1}, []uint8{1}, compact.Selection{Elem: vkcompact.Plain(vkcompact.Float32)})
			return err
		}, "Selection.Elem Plain(f32) does not match the elements' Go type uint32: the element itself is a uint32 (u32), not f32"},
		{"a struct with no Elem", func() error {
			_, _, err := compact.SelectSlice(ctx, []apiParticle{{}}, compact.Selection{})
			return err
		}, "say where its key is"},
	} {
		err := c.call()
		if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrInvalid naming %q", c.name, err, c.want)
		}
	}
}

// TestStructOf finds a key field by name, and refuses what cannot be one.
func TestStructOf(t *testing.T) {
	e, err := vkcompact.StructOf[apiParticle]("Life")
	if err != nil || e != vkcompact.Struct(32, 28, vkcompact.Float32) {
		t.Errorf("StructOf[apiParticle](Life) = %+v, %v; want Struct(32, 28, Float32)", e, err)
	}
	type wide struct {
		A uint32
		B int64
		C [2]uint32
	}
	if e, err := vkcompact.StructOf[wide]("B"); err != nil || e != vkcompact.Struct(24, 8, vkcompact.Int64) {
		t.Errorf("StructOf[wide](B) = %+v, %v", e, err)
	}
	type odd struct {
		A uint8
		B uint8
		C uint16
		D uint32
	}
	for _, c := range []struct {
		name string
		call func() (vkcompact.Elem, error)
		want string
	}{
		{"no such field", func() (vkcompact.Elem, error) { return vkcompact.StructOf[apiParticle]("Mass") }, `no field "Mass"`},
		{"an array field", func() (vkcompact.Elem, error) { return vkcompact.StructOf[apiParticle]("Pos") }, "not one of the key types"},
		{"a uint16 field", func() (vkcompact.Elem, error) { return vkcompact.StructOf[odd]("C") }, "not one of the key types"},
		{"not a struct", func() (vkcompact.Elem, error) { return vkcompact.StructOf[float32]("X") }, "is not a struct"},
	} {
		_, err := c.call()
		if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrInvalid naming %q", c.name, err, c.want)
		}
	}
	ctx := vktest.Open(t)
	ps := []apiParticle{{ID: 1, Life: -1}, {ID: 2, Life: 0.5}, {ID: 3, Life: 2}}
	e, _ = vkcompact.StructOf[apiParticle]("Life")
	got, _, err := compact.SelectSlice(ctx, ps, compact.Selection{Elem: e, Keep: compact.KeepIf(compact.Greater, compact.Float(0))})
	if err != nil || len(got) != 2 || got[0].ID != 2 || got[1].ID != 3 {
		t.Errorf("SelectSlice of particles by StructOf(Life) > 0: %+v, %v", got, err)
	}
}

// TestRecorderAfterSubmit: a Recorder (or the command buffer itself) used
// after its Submit callback has returned records nothing and says why.
func TestRecorderAfterSubmit(t *testing.T) {
	ctx := vktest.Open(t)
	plan, err := compact.NewPlan(ctx, 100, compact.Selection{Keep: compact.KeepNonZero()})
	if err != nil {
		t.Fatal(err)
	}
	src, dst := vktest.NewPoisoned(t, ctx, 400), vktest.NewPoisoned(t, ctx, 400)
	res, scratch := vktest.NewPoisoned(t, ctx, compact.ResultSize), vktest.NewPoisoned(t, ctx, plan.ScratchSize())
	var kept *pipeline.Recorder
	var cb vk.CommandBuffer
	if err := ctx.Submit(func(c vk.CommandBuffer) error { cb, kept = c, pipeline.Record(c); return nil }); err != nil {
		t.Fatal(err)
	}
	plan.Record(kept, compact.Buffers{Src: src.All(), Dst: dst.All(), Result: res.All(), Scratch: scratch.All()})
	if err := kept.Err(); !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "after its Submit callback returned") {
		t.Errorf("recording after the callback returned: %v, want ErrInvalid naming it", err)
	}
	if cb.Recording() {
		t.Errorf("the command buffer still says it is recording after its callback returned")
	}
}

// TestCountRangeExact: a GPU count is one uint32: a longer range is
// refused, as a shorter one is.
func TestCountRangeExact(t *testing.T) {
	ctx := vktest.Open(t)
	plan, err := compact.NewPlan(ctx, 100, compact.Selection{Keep: compact.KeepNonZero()})
	if err != nil {
		t.Fatal(err)
	}
	prefix, err := scan.NewPlan(ctx, 100, scan.Scan{})
	if err != nil {
		t.Fatal(err)
	}
	align := ctx.Info().MinStorageBufferOffsetAlignment
	buf := vktest.NewPoisoned(t, ctx, 8*align+2048)
	s1, s2 := vktest.NewPoisoned(t, ctx, plan.ScratchSize()), vktest.NewPoisoned(t, ctx, prefix.ScratchSize())
	count := buf.Range(6*align, 8)
	err = pipeline.Run(ctx, func(r *pipeline.Recorder) {
		plan.Record(r, compact.Buffers{Src: buf.Range(0, 400), Dst: buf.Range(2*align+512, 400), Result: buf.Range(4*align+1024, compact.ResultSize), Scratch: s1.All(), Count: count})
	})
	if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "count range of 8 bytes: it must be exactly 4") {
		t.Errorf("a compaction's 8-byte count: %v", err)
	}
	err = pipeline.Run(ctx, func(r *pipeline.Recorder) {
		prefix.Record(r, scan.Buffers{Src: buf.Range(0, 400), Dst: buf.Range(2*align+512, 400), Total: buf.Range(4*align+1024, 4), Scratch: s2.All(), Count: count})
	})
	if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "count range of 8 bytes: it must be exactly 4") {
		t.Errorf("a prefix sum's 8-byte count: %v", err)
	}
}

// TestClosersAndTypedBuffers: Context and Buffer are io.Closers,
// NewBufferOf sizes a buffer by elements, and a float32 total reads as a
// float.
func TestClosersAndTypedBuffers(t *testing.T) {
	ctx := vktest.Open(t)
	b, err := vk.NewBufferOf[apiParticle](ctx, 10, vk.DeviceLocal)
	if err != nil || b.Size() != 320 {
		t.Fatalf("NewBufferOf[apiParticle](10): %v, %v; want 320 bytes", b, err)
	}
	var c io.Closer = b
	if err := c.Close(); err != nil {
		t.Errorf("Buffer.Close: %v", err)
	}
	if _, err := vk.NewBufferOf[*int](ctx, 1, vk.DeviceLocal); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("NewBufferOf of pointers: %v, want ErrInvalid", err)
	}
	if _, err := vk.NewBufferOf[uint32](ctx, 0, vk.DeviceLocal); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("NewBufferOf of 0 elements: %v, want ErrInvalid", err)
	}
	prefix, err := scan.NewPlan(ctx, 4, scan.Scan{Elem: vkcompact.Plain(vkcompact.Float32)})
	if err != nil {
		t.Fatal(err)
	}
	src, err := vk.NewBufferOf[float32](ctx, 4, vk.DeviceLocal)
	if err != nil {
		t.Fatal(err)
	}
	dst, _ := vk.NewBufferOf[float32](ctx, 4, vk.DeviceLocal)
	if err := vk.Upload(src.All(), []float32{0.5, 1.25, -2, 8}); err != nil {
		t.Fatal(err)
	}
	total, err := prefix.Run(scan.Buffers{Src: src.All(), Dst: dst.All()})
	if err != nil || total.Float32() != 7.75 {
		t.Errorf("float32 total: %v (%v), want 7.75", total.Float32(), err)
	}
	other, err := vk.Open(vk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c = other
	if err := c.Close(); err != nil {
		t.Errorf("Context.Close: %v", err)
	}
}
