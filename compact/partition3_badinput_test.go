package compact_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// TestPartition3BadInput refuses bad partitions and bad buffers with
// errors wrapping vk.ErrInvalid, before any GPU work, and leaves the
// caller's buffers as they were.
func TestPartition3BadInput(t *testing.T) {
	ctx := vktest.Shared(t)
	good := part3Anchor()
	for _, c := range []struct {
		name string
		n    uint64
		part compact.Partition3
	}{
		{"flagged first", 10, compact.Partition3{First: compact.KeepFlagged(4), Second: compact.KeepNonZero()}},
		{"flagged second", 10, compact.Partition3{First: compact.KeepNonZero(), Second: compact.KeepFlagged(1)}},
		{"unknown op", 10, compact.Partition3{First: compact.Keep{Op: 42}, Second: compact.KeepNonZero()}},
		{"bad stride", 10, compact.Partition3{Elem: vkcompact.Struct(10, 0, vkcompact.Uint32), First: compact.KeepNonZero(), Second: compact.KeepNonZero()}},
		{"first constant out of range", 10, compact.Partition3{First: compact.KeepIf(compact.Less, compact.Int(-5)), Second: compact.KeepNonZero()}},
		{"second constant out of range", 10, compact.Partition3{Elem: vkcompact.Plain(vkcompact.Int32), First: compact.KeepNonZero(), Second: compact.KeepIf(compact.Less, compact.Uint(1<<31))}},
		{"mask on floats", 10, compact.Partition3{Elem: vkcompact.Plain(vkcompact.Float32), First: compact.KeepNonZero(), Second: compact.KeepMask(1)}},
		{"too many elements", 1 << 32, good},
		{"workgroup not a subgroup multiple", 10, compact.Partition3{First: compact.KeepNonZero(), Second: compact.KeepNonZero(),
			Options: compact.Options{WorkgroupSize: ctx.Info().MaxSubgroupSize + 1}}},
		{"too many loads", 10, compact.Partition3{First: compact.KeepNonZero(), Second: compact.KeepNonZero(), Options: compact.Options{LoadsPerLane: 5}}},
		{"the three phases", 10, compact.Partition3{First: compact.KeepNonZero(), Second: compact.KeepNonZero(), Options: compact.Options{Path: vkcompact.PathThreePhase}}},
		{"unknown path", 10, compact.Partition3{First: compact.KeepNonZero(), Second: compact.KeepNonZero(), Options: compact.Options{Path: 7}}},
		{"unknown write strategy", 10, compact.Partition3{First: compact.KeepNonZero(), Second: compact.KeepNonZero(), Options: compact.Options{Write: 7}}},
	} {
		if _, err := compact.NewPartition3Plan(ctx, c.n, c.part); !errors.Is(err, vk.ErrInvalid) {
			t.Errorf("%s: got %v, want an error matching vk.ErrInvalid", c.name, err)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
	// The three phases' own choices are ignored, as the single pass of a
	// selection ignores them.
	ignored := good
	ignored.Path, ignored.Processors, ignored.Write = vkcompact.PathSinglePass, 3, compact.WriteScattered
	if p, err := compact.NewPartition3Plan(ctx, 1000, ignored); err != nil || p.Tuning() != mustPartition3(t, ctx, 1000, good).Tuning() {
		t.Errorf("Processors and Write set: %v; want them ignored", err)
	}
	if _, err := compact.NewPartition3Plan(nil, 10, good); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("nil context: %v", err)
	}
	var nilPlan *compact.Partition3Plan
	if _, err := nilPlan.Run(compact.Partition3Buffers{}); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("nil plan: %v", err)
	}
	if _, _, _, _, err := compact.Partition3Slice(ctx, []float32{1}, compact.Partition3{Elem: vkcompact.Plain(vkcompact.Uint32), First: compact.KeepNonZero(), Second: compact.KeepNonZero()}); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("uint32 keys for a []float32: %v", err)
	}

	// Buffers that do not fit the plan: refused, and nothing written.
	p, err := compact.NewPartition3Plan(ctx, 100, good)
	if err != nil {
		t.Fatal(err)
	}
	buf := vktest.NewPoisoned(t, ctx, 8192)
	other := vktest.NewPoisoned(t, ctx, p.ScratchSize())
	ok := compact.Partition3Buffers{Src: buf.Range(0, 400), First: buf.Range(1024, 400), Second: buf.Range(2048, 400), Rest: buf.Range(3072, 400),
		Result: buf.Range(4096, compact.Partition3ResultSize), Scratch: other.Range(0, p.ScratchSize())}
	align := ctx.Info().MinStorageBufferOffsetAlignment
	for _, c := range []struct {
		name string
		edit func(b *compact.Partition3Buffers)
	}{
		{"no source", func(b *compact.Partition3Buffers) { b.Src = vk.Range{} }},
		{"source too small", func(b *compact.Partition3Buffers) { b.Src.Size = 396 }},
		{"no first output", func(b *compact.Partition3Buffers) { b.First = vk.Range{} }},
		{"second output too small", func(b *compact.Partition3Buffers) { b.Second.Size = 100 }},
		{"rest output too small", func(b *compact.Partition3Buffers) { b.Rest.Size = 396 }},
		{"no result", func(b *compact.Partition3Buffers) { b.Result = vk.Range{} }},
		{"result too small", func(b *compact.Partition3Buffers) { b.Result.Size = 48 }},
		{"no scratch", func(b *compact.Partition3Buffers) { b.Scratch = vk.Range{} }},
		{"scratch too small", func(b *compact.Partition3Buffers) { b.Scratch.Size = 4 }},
		{"outputs overlap", func(b *compact.Partition3Buffers) { b.Second = buf.Range(1024+256, 400) }},
		{"output over the source", func(b *compact.Partition3Buffers) { b.Rest = buf.Range(0, 400) }},
		{"result in an output", func(b *compact.Partition3Buffers) { b.Result = buf.Range(2048, compact.Partition3ResultSize) }},
		{"count of 8 bytes", func(b *compact.Partition3Buffers) { b.Count = buf.Range(5120, 8) }},
		{"count in the result", func(b *compact.Partition3Buffers) { b.Count = buf.Range(4096, 4) }},
		{"range past the end", func(b *compact.Partition3Buffers) { b.Rest = buf.Range(8000, 400) }},
		{"unaligned offset", func(b *compact.Partition3Buffers) { b.First = buf.Range(1024+align/2, 400) }},
	} {
		if align < 2 && c.name == "unaligned offset" {
			continue
		}
		b := ok
		c.edit(&b)
		err := pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) })
		if !errors.Is(err, vk.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", c.name, err)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
	got := make([]byte, buf.Size())
	if err := vk.Download(buf.All(), got); err != nil || !bytes.Equal(got, vktest.PoisonBytes(buf.Size())) {
		t.Errorf("a refused Record wrote the caller's buffer (%v)", err)
	}
	if _, err := p.Run(ok); err != nil {
		t.Fatalf("the good buffers: %v", err)
	}
	if err := pipeline.Run(vktest.Open(t), func(r *pipeline.Recorder) { p.Record(r, ok) }); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("the plan recorded in another context: %v, want ErrInvalid", err)
	}
}

// FuzzPartition3 runs random partitions, (n, seed, type, stride, mode),
// against the Go reference: mode's bits choose the predicates' operators
// (0-2 and 3-5, the last of each a mask on integer keys or nonzero),
// 6 the fallback at once, 7 a count on the GPU (0, half, all or past n).
// `go test -fuzz FuzzPartition3 ./compact` explores; CI runs the seeds.
func FuzzPartition3(f *testing.F) {
	f.Add(uint32(0), uint64(1), uint8(0), uint8(0), uint8(0))
	f.Add(uint32(4097), uint64(2), uint8(3), uint8(1), uint8(0b0101_1011))
	f.Add(uint32(5001), uint64(3), uint8(5), uint8(3), uint8(0b1011_1111))
	f.Add(uint32(777), uint64(4), uint8(2), uint8(6), uint8(0b1100_0110))
	ctx := vktest.Open(f)
	f.Fuzz(func(t *testing.T, n uint32, seed uint64, typ, stride, mode uint8) {
		n %= 1 << 17
		key := allTypes[int(typ)%len(allTypes)]
		size := key.Size() + 4*uint32(stride%16)
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		off := 4 * rng.Uint32N((size-key.Size())/4+1)
		cs := constants(key)
		c1, c2 := cs[rng.IntN(len(cs))], cs[rng.IntN(len(cs))]
		pred := func(bits uint8, c *refConst) compact.Keep {
			switch op := compact.Op(bits % 8); {
			case op >= compact.Equal && op <= compact.GreaterEqual:
				return compact.KeepIf(op, c.value(key))
			case op == compact.MaskAny && key != vkcompact.Float32 && key != vkcompact.Float64:
				*c = refConst{u: 0x8000_0101, i: 0x8000_0101}
				if key == vkcompact.Int32 {
					c.u = 0xffffffff_80000101
				}
				return compact.KeepMask(0x8000_0101)
			}
			return compact.KeepNonZero()
		}
		part := compact.Partition3{Elem: vkcompact.Struct(size, off, key), First: pred(mode, &c1), Second: pred(mode>>3, &c2)}
		if mode&64 != 0 {
			part.Spins = -1
		}
		k1, k2 := specialKeys(key, c1), specialKeys(key, c2)
		c := p3Case{n: int(n), part: part, c1: c1, c2: c2, keys: func(rng *rand.Rand) uint64 {
			if rng.IntN(2) == 0 {
				return k1(rng)
			}
			return k2(rng)
		}}
		if mode&128 != 0 {
			c.gpuCount = true
			c.count = []uint32{0, n / 2, n, n + 5}[rng.IntN(4)]
		}
		if err := tryRunP3(ctx, rng, c, t); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
	})
}

// TestPartition3NilAndZero calls the partition's entry points with nil or
// zero handles: each returns an error matching vk.ErrInvalid that names
// it (accessors a zero value), and none panics.
func TestPartition3NilAndZero(t *testing.T) {
	ctx := vktest.Shared(t)
	var nilPlan *compact.Partition3Plan
	var nilRec *pipeline.Recorder
	var nilCtx *vk.Context
	plan, err := compact.NewPartition3Plan(ctx, 16, part3Anchor())
	if err != nil {
		t.Fatal(err)
	}
	buf := vktest.NewPoisoned(t, ctx, 1024)
	good := compact.Partition3Buffers{Src: buf.Range(0, 64), First: buf.Range(256, 64), Second: buf.Range(512, 64), Rest: buf.Range(768, 64)}
	inRun := func(record func(r *pipeline.Recorder)) func() error {
		return func() error { return pipeline.Run(ctx, record) }
	}
	for _, c := range []struct {
		entry, msg string
		call       func() error
	}{
		{"NewPartition3Plan, nil context", "nil context", func() error { _, err := compact.NewPartition3Plan(nilCtx, 16, part3Anchor()); return err }},
		{"Partition3Slice, nil context", "nil context", func() error {
			_, _, _, _, err := compact.Partition3Slice(nilCtx, []uint32{1}, part3Anchor())
			return err
		}},
		{"ReadPartition3Result, zero Range", "nil buffer", func() error { _, err := compact.ReadPartition3Result(vk.Range{}); return err }},
		{"Partition3Plan, nil", "nil Partition3Plan", func() error {
			if nilPlan.N() != 0 || nilPlan.ScratchSize() != 0 || nilPlan.Tuning() != (compact.Tuning{}) || len(nilPlan.Phases()) != 2 {
				return errors.New("a nil plan's accessors")
			}
			_, err := nilPlan.Run(compact.Partition3Buffers{})
			return err
		}},
		{"Partition3Plan.Record, nil plan", "nil Partition3Plan", inRun(func(r *pipeline.Recorder) { nilPlan.Record(r, good) })},
		{"Partition3Plan.RecordTimed, nil timer", "needs a timer", inRun(func(r *pipeline.Recorder) { plan.RecordTimed(r, good, nil) })},
		{"Partition3Plan.Run, zero Buffers", "source", func() error { _, err := plan.Run(compact.Partition3Buffers{}); return err }},
		{"Partition3Plan.Record, nil Recorder", "nil Recorder", func() error { plan.Record(nilRec, good); return nilRec.Err() }},
		{"Partition3Plan.Record, zero CommandBuffer", "zero CommandBuffer", func() error {
			r := pipeline.Record(vk.CommandBuffer{})
			plan.Record(r, good)
			return r.Err()
		}},
	} {
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panicked: %v", p)
				}
			}()
			err = c.call()
		}()
		if !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want an error matching vk.ErrInvalid naming %q", c.entry, err, c.msg)
		}
	}
}

// mustPartition3 plans part for n elements on ctx, failing t on an error.
func mustPartition3(t *testing.T, ctx *vk.Context, n uint64, part compact.Partition3) *compact.Partition3Plan {
	t.Helper()
	p, err := compact.NewPartition3Plan(ctx, n, part)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
