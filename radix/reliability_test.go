package radix_test

import (
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/badinput"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/transfer"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// TestReliabilityBadInput tries every public entry point of radix with bad
// arguments: each returns an error wrapping vk.ErrInvalid (or
// vk.ErrReleased) that names the problem, nothing panics, and the
// caller's buffers, all poisoned, are left as they were.
func TestReliabilityBadInput(t *testing.T) {
	ctx := vktest.Open(t)
	other := vktest.Open(t)
	info := ctx.Info()
	keysOnly, err := radix.NewPlan(ctx, 100, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32)})
	if err != nil {
		t.Fatal(err)
	}
	// withScratch is keysOnly on a path that takes scratch: on a CPU
	// device PathAuto sorts 100 keys in one workgroup, with none.
	withScratch, err := radix.NewPlan(ctx, 100, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Options: radix.Options{Path: vkcompact.PathThreePhase}})
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := radix.NewPlan(ctx, 100, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true})
	if err != nil {
		t.Fatal(err)
	}
	inPlace, err := radix.NewPlan(ctx, 100, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), InPlace: true})
	if err != nil {
		t.Fatal(err)
	}
	foreignPlan, err := radix.NewPlan(other, 100, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32)})
	if err != nil {
		t.Fatal(err)
	}
	a := vktest.NewPoisoned(t, ctx, 4096)
	// ov holds keys and a scratch overlapping them (the plan's scratch may
	// exceed a: 7168 bytes on the H100's single pass).
	ov := vktest.NewPoisoned(t, ctx, max(4096, keysOnly.ScratchSize(), withScratch.ScratchSize()))
	scratch := max(pairs.ScratchSize(), keysOnly.ScratchSize(), inPlace.ScratchSize(), withScratch.ScratchSize()) // the paths and digit widths differ
	s := vktest.NewPoisoned(t, ctx, scratch)
	foreign := vktest.NewPoisoned(t, other, 4096)
	released := vktest.NewPoisoned(t, ctx, 4096)
	released.Release()
	watched := []*vk.Buffer{a, s, ov}
	keys := []uint32{5, 3, 9, 1}
	keysCopy := slices.Clone(keys)
	good := radix.Buffers{Keys: a.Range(0, 400), Values: a.Range(512, 400), KeysOut: a.Range(1024, 400), ValuesOut: a.Range(1536, 400),
		Scratch: s.Range(0, scratch)}
	rec := func(p *radix.Plan, edit func(b *radix.Buffers)) func() error {
		return func() error {
			b := good
			edit(&b)
			return pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) })
		}
	}
	noValues := func(b *radix.Buffers) { b.Values, b.ValuesOut = vk.Range{}, vk.Range{} }
	plan := func(n uint64, s radix.Sort) func() error {
		return func() error { _, err := radix.NewPlan(ctx, n, s); return err }
	}
	var nilPlan *radix.Plan
	var nilRec *pipeline.Recorder
	inval := vk.ErrInvalid
	u32 := vkcompact.Uint32
	cases := []badinput.Case{
		{Entry: "radix.NewPlan", Input: "nil context", Want: inval, Msg: "nil context", Call: func() error { _, err := radix.NewPlan(nil, 10, radix.Sort{}); return err }},
		{Entry: "radix.NewPlan", Input: "i64 keys", Want: inval, Msg: "the key type must be u32, i32, f32 or u64", Call: plan(10, radix.Sort{Elem: vkcompact.Plain(vkcompact.Int64)})},
		{Entry: "radix.NewPlan", Input: "f64 keys", Want: inval, Msg: "the key type must be", Call: plan(10, radix.Sort{Elem: vkcompact.Plain(vkcompact.Float64)})},
		{Entry: "radix.NewPlan", Input: "key type 9", Want: inval, Msg: "the key type must be", Call: plan(10, radix.Sort{Elem: vkcompact.Plain(vkcompact.Type(9))})},
		{Entry: "radix.NewPlan", Input: "a struct Elem", Want: inval, Msg: "Sort.Elem Struct(8, 4, u32) describes structs: want plain keys (vkcompact.Plain); sort structs by a key field with StructSort", Call: plan(10, radix.Sort{Elem: vkcompact.Struct(8, 4, vkcompact.Uint32)})},
		{Entry: "radix.NewSegmentedPlan", Input: "a struct Elem", Want: inval, Msg: "SegmentedSort.Elem Struct(16, 0, u64) describes structs", Call: func() error {
			_, err := radix.NewSegmentedPlan(ctx, 10, 1, radix.SegmentedSort{Elem: vkcompact.Struct(16, 0, vkcompact.Uint64)})
			return err
		}},
		{Entry: "radix.NewPlan", Input: "bits [0, 33) of a u32", Want: inval, Msg: "bit range [0, 33) of a 32-bit key", Call: plan(10, radix.Sort{Elem: vkcompact.Plain(u32), EndBit: 33})},
		{Entry: "radix.NewPlan", Input: "bits [0, 65) of a u64", Want: inval, Msg: "bit range [0, 65) of a 64-bit key", Call: plan(10, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint64), EndBit: 65})},
		{Entry: "radix.NewPlan", Input: "bits [20, 10)", Want: inval, Msg: "bit range [20, 10)", Call: plan(10, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint64), BeginBit: 20, EndBit: 10})},
		{Entry: "radix.NewPlan", Input: "begin bit 40 of a u32 (end defaulted)", Want: inval, Msg: "bit range [40, 32) (EndBit 0: the key's width) of a 32-bit key", Call: plan(10, radix.Sort{Elem: vkcompact.Plain(u32), BeginBit: 40})},
		{Entry: "radix.NewPlan", Input: "n = 2^32", Want: inval, Msg: "4294967296 keys", Call: plan(1<<32, radix.Sort{})},
		{Entry: "radix.NewPlan", Input: "keys beyond four bindings", Want: inval, Msg: "past it the sort binds each output as at most 4 windows", Call: plan(uint64(info.MaxStorageBufferRange)/2+1, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint64)})},
		{Entry: "radix.NewPlan", Input: "9-bit digits", Want: inval, Msg: "9 digit bits", Call: plan(10, radix.Sort{Options: radix.Options{DigitBits: 9}})},
		{Entry: "radix.NewPlan", Input: "33 keys per lane", Want: inval, Msg: "33 keys per lane", Call: plan(10, radix.Sort{Options: radix.Options{KeysPerLane: radix.MaxKeysPerLane + 1}})},
		{Entry: "radix.NewPlan", Input: "workgroup not a multiple of the subgroup size", Want: inval, Msg: "not a multiple of the largest subgroup size", Call: plan(10, radix.Sort{Options: radix.Options{WorkgroupSize: info.MaxSubgroupSize + 1}})},
		{Entry: "radix.NewPlan", Input: "workgroup too large for shared memory", Want: inval, Msg: "bytes of shared memory", Call: plan(10, radix.Sort{Options: radix.Options{WorkgroupSize: 64 * info.MaxSubgroupSize}})},
		{Entry: "radix.NewPlan", Input: "unknown tails mode", Want: inval, Msg: "unknown tails mode 3", Call: plan(10, radix.Sort{Options: radix.Options{Tails: 3}})},
		{Entry: "radix.NewPlan", Input: "held tails on the single pass", Want: inval, Msg: "held tails", Call: plan(10, radix.Sort{Options: radix.Options{Path: vkcompact.PathSinglePass, Tails: radix.TailsHold}})},
		{Entry: "radix.NewPlan", Input: "held tails too large for shared memory", Want: inval, Msg: "held tails needs", Call: plan(10, radix.Sort{Values: true, Options: radix.Options{WorkgroupSize: 4 * info.MaxSubgroupSize, DigitBits: 8, KeysPerLane: radix.MaxKeysPerLane, Tails: radix.TailsHold}})},
		{Entry: "radix.NewPlan", Input: "8-bit digits, 8 keys per lane, workgroup 1024", Want: inval, Msg: "bytes of shared memory|outside 1..", Call: plan(10, radix.Sort{Options: radix.Options{WorkgroupSize: 1024, DigitBits: 8, KeysPerLane: 8}})},
		{Entry: "radix.Plan.Record", Input: "no keys", Want: inval, Msg: "no keys buffer", Call: rec(keysOnly, func(b *radix.Buffers) { noValues(b); b.Keys = vk.Range{} })},
		{Entry: "radix.Plan.Record", Input: "keys 4 bytes short", Want: inval, Msg: "keys range of 396 bytes: 400 needed", Call: rec(keysOnly, func(b *radix.Buffers) { noValues(b); b.Keys.Size = 396 })},
		{Entry: "radix.Plan.Record", Input: "no keys output", Want: inval, Msg: "no keys output buffer", Call: rec(keysOnly, func(b *radix.Buffers) { noValues(b); b.KeysOut = vk.Range{} })},
		{Entry: "radix.Plan.Record", Input: "keys output too small", Want: inval, Msg: "keys output range of 200 bytes", Call: rec(keysOnly, func(b *radix.Buffers) { noValues(b); b.KeysOut.Size = 200 })},
		{Entry: "radix.Plan.Record", Input: "no scratch", Want: inval, Msg: "no scratch buffer", Call: rec(withScratch, func(b *radix.Buffers) { noValues(b); b.Scratch = vk.Range{} })},
		{Entry: "radix.Plan.Record", Input: "scratch too small", Want: inval, Msg: "scratch range of 16 bytes", Call: rec(withScratch, func(b *radix.Buffers) { noValues(b); b.Scratch.Size = 16 })},
		{Entry: "radix.Plan.Record", Input: "values given to a keys-only sort", Want: inval, Msg: "values given for a sort of keys only", Call: rec(keysOnly, func(*radix.Buffers) {})},
		{Entry: "radix.Plan.Record", Input: "pairs without values", Want: inval, Msg: "no values buffer", Call: rec(pairs, func(b *radix.Buffers) { b.Values = vk.Range{} })},
		{Entry: "radix.Plan.Record", Input: "pairs without a values output", Want: inval, Msg: "no values output buffer", Call: rec(pairs, func(b *radix.Buffers) { b.ValuesOut = vk.Range{} })},
		{Entry: "radix.Plan.Record", Input: "values too small", Want: inval, Msg: "values range of 100 bytes", Call: rec(pairs, func(b *radix.Buffers) { b.Values.Size = 100 })},
		{Entry: "radix.Plan.Record", Input: "keys and keys output overlap", Want: inval, Msg: "keys and keys output ranges overlap", Call: rec(pairs, func(b *radix.Buffers) { b.KeysOut = a.Range(256, 400) })},
		{Entry: "radix.Plan.Record", Input: "values output overlapping the keys output", Want: inval, Msg: "keys output and values output ranges overlap", Call: rec(pairs, func(b *radix.Buffers) { b.ValuesOut = a.Range(1280, 400) })},
		{Entry: "radix.Plan.Record", Input: "scratch overlapping the keys", Want: inval, Msg: "keys and scratch ranges overlap", Call: rec(withScratch, func(b *radix.Buffers) {
			noValues(b)
			b.Keys, b.Scratch = ov.Range(0, 400), ov.Range(0, withScratch.ScratchSize())
		})},
		{Entry: "radix.Plan.Record", Input: "count inside the scratch", Want: inval, Msg: "scratch and count ranges overlap", Call: rec(withScratch, func(b *radix.Buffers) { noValues(b); b.Count = s.Range(0, 4) })},
		{Entry: "radix.Plan.Record", Input: "count inside the keys output", Want: inval, Msg: "keys output and count ranges overlap", Call: rec(keysOnly, func(b *radix.Buffers) { noValues(b); b.Count = a.Range(1024, 4) })},
		{Entry: "radix.Plan.Record", Input: "count of 2 bytes", Want: inval, Msg: "count range of 2 bytes", Call: rec(keysOnly, func(b *radix.Buffers) { noValues(b); b.Count = a.Range(3072, 2) })},
		{Entry: "radix.Plan.Record", Input: "keys offset not aligned", Want: inval, Msg: "keys offset 4 is not a multiple of minStorageBufferOffsetAlignment", Call: rec(keysOnly, func(b *radix.Buffers) { noValues(b); b.Keys = a.Range(4, 400) })},
		{Entry: "radix.Plan.Record", Input: "keys past the end of their buffer", Want: inval, Msg: "exceeds the 4096-byte buffer", Call: rec(keysOnly, func(b *radix.Buffers) { noValues(b); b.Keys = a.Range(3840, 400) })},
		{Entry: "radix.Plan.Record", Input: "keys in another context", Want: inval, Msg: "keys: the buffer belongs to another context", Call: rec(keysOnly, func(b *radix.Buffers) { noValues(b); b.Keys = foreign.Range(0, 400) })},
		{Entry: "radix.Plan.Record", Input: "released keys output", Want: vk.ErrReleased, Msg: "radix: keys output: buffer used after Release", Call: rec(keysOnly, func(b *radix.Buffers) { noValues(b); b.KeysOut = released.Range(0, 400) })},
		{Entry: "radix.Plan.Record", Input: "zero Buffer value as keys", Want: inval, Msg: "radix: keys: nil buffer", Call: rec(keysOnly, func(b *radix.Buffers) { noValues(b); b.Keys = (&vk.Buffer{}).Range(0, 400) })},
		{Entry: "radix.Plan.Record", Input: "in place with a separate keys output", Want: inval, Msg: "in place, the outputs must be the inputs or left empty", Call: rec(inPlace, func(b *radix.Buffers) { b.Values, b.ValuesOut = vk.Range{}, vk.Range{} })},
		{Entry: "radix.Plan.Record", Input: "plan of another context", Want: inval, Msg: "the plan was made for another context", Call: rec(foreignPlan, noValues)},
		{Entry: "radix.Plan.Record", Input: "nil plan", Want: inval, Msg: "radix: nil Plan", Call: rec(nilPlan, noValues)},
		{Entry: "radix.Plan.Record", Input: "nil Recorder", Want: inval, Msg: "nil Recorder", Call: func() error {
			b := good
			noValues(&b)
			keysOnly.Record(nilRec, b)
			return nilRec.Err()
		}},
		{Entry: "radix.Plan.Run", Input: "nil plan", Want: inval, Msg: "radix: nil Plan", Call: func() error { return nilPlan.Run(good) }},
		{Entry: "radix.Plan.Run", Input: "keys output too small", Want: inval, Msg: "keys output range of 8 bytes", Call: func() error {
			return keysOnly.Run(radix.Buffers{Keys: a.Range(0, 400), KeysOut: a.Range(1024, 8)})
		}},
		{Entry: "radix.SortSlice", Input: "Sort.Values set", Want: inval, Msg: "use SortPairsSlice", Call: func() error { _, err := radix.SortSlice(ctx, keys, radix.Sort{Values: true}); return err }},
		{Entry: "radix.SortSlice", Input: "nil context", Want: inval, Msg: "nil context", Call: func() error { _, err := radix.SortSlice(nil, keys, radix.Sort{}); return err }},
		{Entry: "radix.SortSlice", Input: "bits [0, 40) of a u32", Want: inval, Msg: "bit range [0, 40)", Call: func() error { _, err := radix.SortSlice(ctx, keys, radix.Sort{EndBit: 40}); return err }},
		{Entry: "radix.SortPairsSlice", Input: "3 values for 4 keys", Want: inval, Msg: "3 values for 4 keys", Call: func() error {
			_, _, err := radix.SortPairsSlice(ctx, keys, []uint32{1, 2, 3}, radix.Sort{})
			return err
		}},
		{Entry: "radix.SortPairsSlice", Input: "nil context", Want: inval, Msg: "nil context", Call: func() error {
			_, _, err := radix.SortPairsSlice(nil, keys, []uint32{1, 2, 3, 4}, radix.Sort{})
			return err
		}},
	}
	poisoned := map[*vk.Buffer][]byte{}
	for _, b := range watched {
		poisoned[b] = vktest.PoisonBytes(b.Size())
	}
	badinput.CheckAll(t, cases, poisoned, info.MinStorageBufferOffsetAlignment)
	if !slices.Equal(keys, keysCopy) {
		t.Error("a Sort helper modified the caller's keys")
	}
	if err := pairs.Run(good); err != nil {
		t.Fatalf("the good buffers: %v", err)
	}
	other.Release()
	badinput.Check(t, badinput.Case{Entry: "radix.NewPlan", Input: "released context", Want: vk.ErrReleased, Msg: "after Release", Call: func() error {
		_, err := radix.NewPlan(other, 10, radix.Sort{})
		return err
	}})
	badinput.Check(t, badinput.Case{Entry: "radix.Plan.Run", Input: "plan of a released context", Want: vk.ErrReleased, Msg: "after Release", Call: func() error {
		return foreignPlan.Run(radix.Buffers{Keys: foreign.Range(0, 400), KeysOut: foreign.Range(1024, 400)})
	}})
	badinput.Check(t, badinput.Case{Entry: "radix.SortSlice", Input: "released context", Want: vk.ErrReleased, Msg: "after Release", Call: func() error {
		_, err := radix.SortSlice(other, keys, radix.Sort{})
		return err
	}})
}

// TestReliabilityNoLeaks uses every kind of operation (compaction, split,
// in place, flagged, prefix sum, copy, counted copy, sort of keys and of
// pairs, GPU counts), each twice, releases everything, and destroys the
// device: after every run the context holds no memory but its staging
// buffer (where it keeps one), at the end none at all, and the validation
// layer, whose leak reports TestLeakReported proves real, reports
// nothing.
func TestReliabilityNoLeaks(t *testing.T) {
	if !vktest.ValidationWanted() {
		t.Skip("VKCOMPACT_VALIDATE=0: the leak reports come from the validation layer")
	}
	ctx, err := vk.Open(vk.Options{Validate: true})
	if err != nil {
		if !vktest.InCI() {
			t.Skipf("no validation layer or device: %v", err)
		}
		t.Fatal(err)
	}
	defer ctx.Release()
	if !ctx.Validating() {
		t.Fatal("validation is off")
	}
	rng := vktest.Rand(t)
	const n = 5000
	keys := make([]uint32, n)
	for i := range keys {
		keys[i] = rng.Uint32() & 0xff
	}
	vals := make([]uint32, n)
	u32 := compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32)}
	steps := []struct {
		name string
		run  func() error
	}{
		{"SelectSlice", func() error { _, _, err := compact.SelectSlice(ctx, keys, u32); return err }},
		{"SelectSlice split in place", func() error {
			_, _, err := compact.SelectSlice(ctx, keys, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Split: true, InPlace: true})
			return err
		}},
		{"SelectFlaggedSlice", func() error { _, _, err := compact.SelectFlaggedSlice(ctx, keys, make([]uint8, n), u32); return err }},
		{"scan.ScanSlice", func() error { _, _, err := scan.ScanSlice(ctx, keys, scan.Scan{Inclusive: true}); return err }},
		{"scan.ScanSlice in place", func() error { _, _, err := scan.ScanSlice(ctx, keys, scan.Scan{InPlace: true}); return err }},
		{"SortSlice", func() error { _, err := radix.SortSlice(ctx, keys, radix.Sort{}); return err }},
		{"SortPairsSlice in place", func() error {
			_, _, err := radix.SortPairsSlice(ctx, keys, vals, radix.Sort{InPlace: true, Descending: true})
			return err
		}},
		{"recorded chain with GPU counts: select, counted copy, sort, scan", func() error { return chainOnce(ctx, keys) }},
	}
	// The context keeps one staging buffer for uploads and downloads where
	// device memory is not host-visible (a discrete GPU; not lavapipe):
	// after each run that and nothing else is allocated.
	for _, s := range steps {
		for run := range 2 {
			if err := s.run(); err != nil {
				t.Fatalf("%s, run %d: %v", s.name, run+1, err)
			}
			if got, staging := ctx.AllocatedBytes(), ctx.Objects().StagingBytes; got != staging {
				t.Errorf("after %s, run %d: %d bytes allocated; the staging buffer holds %d", s.name, run+1, got, staging)
			}
		}
	}
	t.Logf("pipelines cached: %d", pipeline.For(ctx).Len())
	ctx.Release()
	if n := ctx.AllocatedBytes(); n != 0 {
		t.Errorf("%d bytes allocated after Release", n)
	}
	for _, m := range ctx.Messages() {
		t.Errorf("validation at device destruction: %s", m)
	}
}

// chainOnce records, into one command buffer, a compaction, a copy of its
// survivors counted by its kept count, a sort of them and a prefix sum,
// each counted on the GPU, then releases every buffer and plan.
func chainOnce(ctx *vk.Context, keys []uint32) error {
	n := uint64(len(keys))
	sel, err := compact.NewPlan(ctx, n, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32)})
	if err != nil {
		return err
	}
	sort, err := radix.NewPlan(ctx, n, radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), InPlace: true})
	if err != nil {
		return err
	}
	prefix, err := scan.NewPlan(ctx, n, scan.Scan{})
	if err != nil {
		return err
	}
	var bufs []*vk.Buffer
	defer func() {
		for _, b := range bufs {
			b.Release()
		}
	}()
	mk := func(size uint64) (vk.Range, error) {
		b, err := ctx.NewBuffer(size, vk.DeviceLocal)
		if err != nil {
			return vk.Range{}, err
		}
		bufs = append(bufs, b)
		return b.All(), nil
	}
	var src, dst, copied, sums, result, total, s1, s2, s3 vk.Range
	for _, x := range []struct {
		r    *vk.Range
		size uint64
	}{{&src, 4 * n}, {&dst, 4 * n}, {&copied, 4 * n}, {&sums, 4 * n}, {&result, compact.ResultSize}, {&total, 16},
		{&s1, sel.ScratchSize()}, {&s2, sort.ScratchSize()}, {&s3, prefix.ScratchSize()}} {
		if *x.r, err = mk(x.size); err != nil {
			return err
		}
	}
	if err := vk.Upload(src, keys); err != nil {
		return err
	}
	count := result.Sub(compact.ResultKeptOffset, 4)
	return pipeline.Run(ctx, func(r *pipeline.Recorder) {
		sel.Record(r, compact.Buffers{Src: src, Dst: dst, Result: result, Scratch: s1})
		transfer.RecordCopyCount(r, copied, dst, count, 4, transfer.CopyOptions{})
		sort.Record(r, radix.Buffers{Keys: copied, Scratch: s2, Count: count})
		prefix.Record(r, scan.Buffers{Src: copied, Dst: sums, Total: total.Sub(0, 4), Scratch: s3, Count: count})
	})
}
