package compact_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/badinput"
	"github.com/vkcompact/vkcompact/scan"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// TestReliabilityBadInput tries every public entry point of compact with
// bad arguments: each returns an error wrapping vk.ErrInvalid (or
// vk.ErrReleased) that names the problem, nothing panics, and the caller's
// buffers, all poisoned, are left as they were.
func TestReliabilityBadInput(t *testing.T) {
	ctx := vktest.Open(t)
	other := vktest.Open(t)
	info := ctx.Info()
	align := info.MinStorageBufferOffsetAlignment
	u32 := compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32)}
	plan, err := compact.NewPlan(ctx, 100, u32)
	if err != nil {
		t.Fatal(err)
	}
	flagged, err := compact.NewPlan(ctx, 10, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepFlagged(1)})
	if err != nil {
		t.Fatal(err)
	}
	inPlace, err := compact.NewPlan(ctx, 100, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), InPlace: true})
	if err != nil {
		t.Fatal(err)
	}
	foreignPlan, err := compact.NewPlan(other, 100, u32)
	if err != nil {
		t.Fatal(err)
	}
	a := vktest.NewPoisoned(t, ctx, 4096)
	s := vktest.NewPoisoned(t, ctx, plan.ScratchSize()+256)
	flags := vktest.NewPoisoned(t, ctx, align+10) // 10 uint8 flags at align lack their padding
	foreign := vktest.NewPoisoned(t, other, 4096)
	released := vktest.NewPoisoned(t, ctx, 4096)
	released.Release()
	watched := map[*vk.Buffer][]byte{a: vktest.PoisonBytes(a.Size()), s: vktest.PoisonBytes(s.Size()), flags: vktest.PoisonBytes(flags.Size())}
	rng := vktest.Rand(t)
	data := make([]uint32, 100)
	for i := range data {
		data[i] = rng.Uint32()
	}
	dataCopy := slices.Clone(data)

	good := compact.Buffers{Src: a.Range(0, 400), Dst: a.Range(1024, 400), Result: a.Range(2048, compact.ResultSize),
		Scratch: s.Range(0, plan.ScratchSize())}
	sel := func(p *compact.Plan, edit func(b *compact.Buffers)) func() error {
		return func() error {
			b := good
			edit(&b)
			return pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) })
		}
	}
	record := func(edit func(b *compact.Buffers)) func() error { return sel(plan, edit) }
	newPlan := func(n uint64, sel compact.Selection) func() error {
		return func() error { _, err := compact.NewPlan(ctx, n, sel); return err }
	}
	opts := func(o compact.Options) compact.Selection {
		return compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Options: o}
	}
	elem := func(e vkcompact.Elem) compact.Selection { return compact.Selection{Elem: e} }
	keep := func(t vkcompact.Type, k compact.Keep) compact.Selection {
		return compact.Selection{Elem: vkcompact.Plain(t), Keep: k}
	}
	var nilPlan *compact.Plan
	var nilRec *pipeline.Recorder
	bigWG := info.MaxWorkgroupInvocations + info.MaxSubgroupSize
	inval := vk.ErrInvalid
	cases := []badinput.Case{
		// Plans: elements, predicates, counts and options.
		{Entry: "compact.NewPlan", Input: "nil context", Want: inval, Msg: "nil context", Call: func() error { _, err := compact.NewPlan(nil, 10, u32); return err }},
		{Entry: "compact.NewPlan", Input: "stride 10 (not a multiple of 4)", Want: inval, Msg: "element stride 10 bytes", Call: newPlan(10, elem(vkcompact.Struct(10, 0, vkcompact.Uint32)))},
		{Entry: "compact.NewPlan", Input: "stride 2", Want: inval, Msg: "element stride 2 bytes", Call: newPlan(10, elem(vkcompact.Struct(2, 0, vkcompact.Uint32)))},
		{Entry: "compact.NewPlan", Input: "stride 260 (above MaxStride)", Want: inval, Msg: "stride 260", Call: newPlan(10, elem(vkcompact.Struct(260, 0, vkcompact.Uint32)))},
		{Entry: "compact.NewPlan", Input: "key offset 8 in an 8-byte element", Want: inval, Msg: "does not fit", Call: newPlan(10, elem(vkcompact.Struct(8, 8, vkcompact.Uint32)))},
		{Entry: "compact.NewPlan", Input: "u64 key at 8 in a 12-byte element", Want: inval, Msg: "does not fit", Call: newPlan(10, elem(vkcompact.Struct(12, 8, vkcompact.Uint64)))},
		{Entry: "compact.NewPlan", Input: "key offset 2 (unaligned)", Want: inval, Msg: "key offset 2", Call: newPlan(10, elem(vkcompact.Struct(12, 2, vkcompact.Uint32)))},
		{Entry: "compact.NewPlan", Input: "key offset 0xfffffffc (wraps)", Want: inval, Msg: "does not fit", Call: newPlan(10, elem(vkcompact.Struct(16, 0xfffffffc, vkcompact.Uint64)))},
		{Entry: "compact.NewPlan", Input: "unknown key type 9", Want: inval, Msg: "unknown key type 9", Call: newPlan(10, elem(vkcompact.Plain(vkcompact.Type(9))))},
		{Entry: "compact.NewPlan", Input: "n = 2^32 (above MaxElements)", Want: inval, Msg: "4294967296 elements", Call: newPlan(1<<32, u32)},
		{Entry: "compact.NewPlan", Input: "n = 2^64-1", Want: inval, Msg: "18446744073709551615 elements", Call: newPlan(^uint64(0), u32)},
		{Entry: "compact.NewPlan", Input: "u32 constant -5", Want: inval, Msg: "out of range for u32", Call: newPlan(10, keep(vkcompact.Uint32, compact.KeepIf(compact.Less, compact.Int(-5))))},
		{Entry: "compact.NewPlan", Input: "i32 constant 2^31", Want: inval, Msg: "out of range for i32", Call: newPlan(10, keep(vkcompact.Int32, compact.KeepIf(compact.Less, compact.Uint(1<<31))))},
		{Entry: "compact.NewPlan", Input: "i64 key, constant 0.5", Want: inval, Msg: "not an integer", Call: newPlan(10, keep(vkcompact.Int64, compact.KeepIf(compact.Less, compact.Float(0.5))))},
		{Entry: "compact.NewPlan", Input: "f32 key, constant 2^24+1", Want: inval, Msg: "not exactly representable", Call: newPlan(10, keep(vkcompact.Float32, compact.KeepIf(compact.Less, compact.Uint(1<<24+1))))},
		{Entry: "compact.NewPlan", Input: "f32 key, constant 1e39", Want: inval, Msg: "out of range for f32", Call: newPlan(10, keep(vkcompact.Float32, compact.KeepIf(compact.Less, compact.Float(1e39))))},
		{Entry: "compact.NewPlan", Input: "mask on an f32 key", Want: inval, Msg: "needs an integer key", Call: newPlan(10, keep(vkcompact.Float32, compact.KeepMask(1)))},
		{Entry: "compact.NewPlan", Input: "mask 2^32 on a u32 key", Want: inval, Msg: "wider than u32", Call: newPlan(10, keep(vkcompact.Uint32, compact.KeepMask(1<<32)))},
		{Entry: "compact.NewPlan", Input: "2-byte flags", Want: inval, Msg: "flags of 2 bytes", Call: newPlan(10, keep(vkcompact.Uint32, compact.KeepFlagged(2)))},
		{Entry: "compact.NewPlan", Input: "unknown operator 42", Want: inval, Msg: "unknown keep operator 42", Call: newPlan(10, keep(vkcompact.Uint32, compact.Keep{Op: 42}))},
		{Entry: "compact.NewPlan", Input: "workgroup not a multiple of the subgroup size", Want: inval, Msg: "not a multiple of the largest subgroup size", Call: newPlan(10, opts(compact.Options{WorkgroupSize: info.MaxSubgroupSize + 1}))},
		{Entry: "compact.NewPlan", Input: "workgroup above maxComputeWorkGroupInvocations", Want: inval, Msg: "outside 1..", Call: newPlan(10, opts(compact.Options{WorkgroupSize: bigWG}))},
		{Entry: "compact.NewPlan", Input: "5 loads per lane", Want: inval, Msg: "5 loads per lane", Call: newPlan(10, opts(compact.Options{LoadsPerLane: 5}))},
		{Entry: "compact.NewPlan", Input: "write strategy 7", Want: inval, Msg: "unknown write strategy 7", Call: newPlan(10, opts(compact.Options{Write: 7}))},
		{Entry: "compact.NewPlan", Input: "staged write that does not fit shared memory", Want: inval, Msg: "bytes of shared memory", Call: newPlan(10, compact.Selection{
			Elem: vkcompact.Struct(256, 0, vkcompact.Uint32), Options: compact.Options{WorkgroupSize: 1024, LoadsPerLane: 4, Write: compact.WriteStaged}})},
		{Entry: "compact.NewPlan", Input: "Processors 2^32-1 (counts overflow the scratch size)", Want: inval, Msg: "processors", Call: newPlan(100, opts(compact.Options{Processors: 0xffffffff}))},
		{Entry: "compact.NewPlan", Input: "Processors 2^30 (scratch of 4 GiB)", Want: inval, Msg: "processors", Call: newPlan(100, opts(compact.Options{Processors: 1 << 30}))},
		{Entry: "compact.ParseKeep", Input: `"x ~ 3"`, Want: inval, Msg: "want nonzero, x OP VALUE", Call: func() error { _, err := compact.ParseKeep("x ~ 3", vkcompact.Uint32); return err }},
		{Entry: "compact.ParseKeep", Input: `"x < 1.5" for u32`, Want: inval, Msg: `"1.5" is not an integer, and the key is u32`, Call: func() error { _, err := compact.ParseKeep("x < 1.5", vkcompact.Uint32); return err }},
		{Entry: "compact.ParseKeep", Input: `"x < 5000000000" for u32`, Want: inval, Msg: "5000000000 is out of range for u32", Call: func() error { _, err := compact.ParseKeep("x < 5000000000", vkcompact.Uint32); return err }},
		{Entry: "compact.ParseKeep", Input: `"x & 1.5" for f32`, Want: inval, Msg: `"1.5" is not an integer|needs an integer key`, Call: func() error { _, err := compact.ParseKeep("x & 1.5", vkcompact.Float32); return err }},

		// Plan.Record: buffers that do not fit the plan.
		{Entry: "compact.Plan.Record", Input: "no source", Want: inval, Msg: "no source buffer", Call: record(func(b *compact.Buffers) { b.Src = vk.Range{} })},
		{Entry: "compact.Plan.Record", Input: "source 4 bytes short", Want: inval, Msg: "source range of 396 bytes: 400 needed", Call: record(func(b *compact.Buffers) { b.Src.Size = 396 })},
		{Entry: "compact.Plan.Record", Input: "no destination", Want: inval, Msg: "no destination buffer", Call: record(func(b *compact.Buffers) { b.Dst = vk.Range{} })},
		{Entry: "compact.Plan.Record", Input: "destination too small for the output", Want: inval, Msg: "destination range of 100 bytes", Call: record(func(b *compact.Buffers) { b.Dst.Size = 100 })},
		{Entry: "compact.Plan.Record", Input: "no result", Want: inval, Msg: "no result buffer", Call: record(func(b *compact.Buffers) { b.Result = vk.Range{} })},
		{Entry: "compact.Plan.Record", Input: "result of 47 bytes", Want: inval, Msg: "result range of 47 bytes", Call: record(func(b *compact.Buffers) { b.Result.Size = 47 })},
		{Entry: "compact.Plan.Record", Input: "no scratch", Want: inval, Msg: "no scratch buffer", Call: record(func(b *compact.Buffers) { b.Scratch = vk.Range{} })},
		{Entry: "compact.Plan.Record", Input: "scratch too small", Want: inval, Msg: "scratch range of 16 bytes", Call: record(func(b *compact.Buffers) { b.Scratch.Size = 16 })},
		{Entry: "compact.Plan.Record", Input: "source and destination overlap", Want: inval, Msg: "source and destination ranges overlap; to work in place", Call: record(func(b *compact.Buffers) { b.Dst = a.Range(256, 400) })},
		{Entry: "compact.Plan.Record", Input: "destination = source without InPlace", Want: inval, Msg: "ranges overlap", Call: record(func(b *compact.Buffers) { b.Dst = b.Src })},
		{Entry: "compact.Plan.Record", Input: "result inside the destination", Want: inval, Msg: "result and destination ranges overlap", Call: record(func(b *compact.Buffers) { b.Result = a.Range(1024, 48) })},
		{Entry: "compact.Plan.Record", Input: "result inside the scratch", Want: inval, Msg: "result and scratch ranges overlap", Call: record(func(b *compact.Buffers) { b.Result = s.Range(0, compact.ResultSize) })},
		{Entry: "compact.Plan.Record", Input: "count inside the result block", Want: inval, Msg: "result and count ranges overlap", Call: record(func(b *compact.Buffers) { b.Count = a.Range(2048, 4) })},
		{Entry: "compact.Plan.Record", Input: "count inside the destination", Want: inval, Msg: "destination and count ranges overlap", Call: record(func(b *compact.Buffers) { b.Count = a.Range(1024, 4) })},
		{Entry: "compact.Plan.Record", Input: "count of 2 bytes", Want: inval, Msg: "count range of 2 bytes", Call: record(func(b *compact.Buffers) { b.Count = a.Range(3072, 2) })},
		{Entry: "compact.Plan.Record", Input: "count in another context", Want: inval, Msg: "count: the buffer belongs to another context", Call: record(func(b *compact.Buffers) { b.Count = foreign.Range(0, 4) })},
		{Entry: "compact.Plan.Record", Input: "source past the end of its buffer", Want: inval, Msg: "exceeds the 4096-byte buffer", Call: record(func(b *compact.Buffers) { b.Src = a.Range(3840, 400) })},
		{Entry: "compact.Plan.Record", Input: "source in another context", Want: inval, Msg: "source: the buffer belongs to another context", Call: record(func(b *compact.Buffers) { b.Src = foreign.Range(0, 400) })},
		{Entry: "compact.Plan.Record", Input: "released source", Want: vk.ErrReleased, Msg: "compact: source: buffer used after Release", Call: record(func(b *compact.Buffers) { b.Src = released.Range(0, 400) })},
		{Entry: "compact.Plan.Record", Input: "zero Buffer value as destination", Want: inval, Msg: "compact: destination: nil buffer", Call: record(func(b *compact.Buffers) { b.Dst = (&vk.Buffer{}).Range(0, 400) })},
		{Entry: "compact.Plan.Record", Input: "destination offset not aligned", Want: inval, Msg: "destination offset 1028 is not a multiple of minStorageBufferOffsetAlignment", Call: record(func(b *compact.Buffers) { b.Dst = a.Range(1028, 400) })},
		{Entry: "compact.Plan.Record", Input: "result offset not aligned", Want: inval, Msg: "result offset 2052 is not a multiple", Call: record(func(b *compact.Buffers) { b.Result = a.Range(2052, 48) })},
		{Entry: "compact.Plan.Record", Input: "count offset not whole words", Want: inval, Msg: "count offset 3074 is not a multiple of 4", Call: record(func(b *compact.Buffers) { b.Count = a.Range(3074, 4) })},
		{Entry: "compact.Plan.Record", Input: "in place with a separate destination", Want: inval, Msg: "in place, the destination must be the source or left empty", Call: sel(inPlace, func(b *compact.Buffers) {
			b.Scratch = s.Range(0, inPlace.ScratchSize())
		})},
		{Entry: "compact.Plan.Record", Input: "flagged without flags", Want: inval, Msg: "no flags buffer", Call: sel(flagged, func(b *compact.Buffers) {})},
		{Entry: "compact.Plan.Record", Input: "uint8 flags without their padding word", Want: inval, Msg: "uint8 flags are read in 4-byte words", Call: sel(flagged, func(b *compact.Buffers) {
			b.Flags = flags.Range(align, 10)
		})},
		{Entry: "compact.Plan.Record", Input: "plan of another context", Want: inval, Msg: "the plan was made for another context", Call: sel(foreignPlan, func(b *compact.Buffers) {})},
		{Entry: "compact.Plan.Record", Input: "nil Recorder", Want: inval, Msg: "nil Recorder", Call: func() error {
			plan.Record(nilRec, good)
			return nilRec.Err()
		}},
		{Entry: "compact.Plan.Record", Input: "nil plan", Want: inval, Msg: "compact: nil Plan", Call: sel(nilPlan, func(b *compact.Buffers) {})},
		{Entry: "compact.Plan.RecordTimed", Input: "nil timer", Want: inval, Msg: "RecordTimed needs a timer", Call: func() error {
			return pipeline.Run(ctx, func(r *pipeline.Recorder) { plan.RecordTimed(r, good, nil) })
		}},

		// Plan.Run and Select: the same checks, with Result and Scratch allocated.
		{Entry: "compact.Plan.Run", Input: "destination too small", Want: inval, Msg: "destination range of 8 bytes", Call: func() error {
			_, err := plan.Run(compact.Buffers{Src: a.Range(0, 400), Dst: a.Range(1024, 8)})
			return err
		}},
		{Entry: "compact.Plan.Run", Input: "nil plan", Want: inval, Msg: "compact: nil Plan", Call: func() error { _, err := nilPlan.Run(good); return err }},
		{Entry: "compact.Select", Input: "nil context", Want: inval, Msg: "nil context", Call: func() error { _, err := compact.Select(nil, 100, u32, good); return err }},
		{Entry: "compact.Select", Input: "source overlapping the destination", Want: inval, Msg: "ranges overlap", Call: func() error {
			_, err := compact.Select(ctx, 100, u32, compact.Buffers{Src: a.Range(0, 400), Dst: a.Range(256, 400)})
			return err
		}},
		{Entry: "compact.Select", Input: "n above the buffers", Want: inval, Msg: "source range of 400 bytes: 4000 needed", Call: func() error {
			_, err := compact.Select(ctx, 1000, u32, good)
			return err
		}},
		{Entry: "compact.ReadResult", Input: "nil buffer", Want: inval, Msg: "nil buffer", Call: func() error { _, err := compact.ReadResult(vk.Range{}); return err }},
		{Entry: "compact.ReadResult", Input: "range past the end", Want: inval, Msg: "exceeds the 4096-byte buffer", Call: func() error { _, err := compact.ReadResult(a.Range(4092, 48)); return err }},
		{Entry: "compact.ReadResult", Input: "range of 8 bytes (shorter than the 12 read)", Want: inval, Msg: "a result range of 8 bytes", Call: func() error { _, err := compact.ReadResult(a.Range(0, 8)); return err }},

		// The slice helpers.
		{Entry: "compact.SelectSlice", Input: "nil context", Want: inval, Msg: "nil context", Call: func() error { _, _, err := compact.SelectSlice(nil, data, u32); return err }},
		{Entry: "compact.SelectSlice", Input: "stride 8 for []uint32", Want: inval, Msg: "Selection.Elem Struct(8, 0, u32) does not match the elements' Go type uint32: a stride of 8 bytes for a 4-byte uint32", Call: func() error {
			_, _, err := compact.SelectSlice(ctx, data, compact.Selection{Elem: vkcompact.Struct(8, 0, vkcompact.Uint32)})
			return err
		}},
		{Entry: "compact.SelectSlice", Input: "u64 key for []uint32", Want: inval, Msg: "Selection.Elem Plain(u64) does not match the elements' Go type uint32: the element itself is a uint32 (u32), not u64", Call: func() error {
			_, _, err := compact.SelectSlice(ctx, data, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint64)})
			return err
		}},
		{Entry: "compact.SelectSlice", Input: "flagged selection", Want: inval, Msg: "use SelectFlaggedSlice", Call: func() error {
			_, _, err := compact.SelectSlice(ctx, data, keep(vkcompact.Uint32, compact.KeepFlagged(4)))
			return err
		}},
		{Entry: "compact.SelectSlice", Input: "[]*int (pointers)", Want: inval, Msg: "a *int, not one of the key types", Call: func() error {
			_, _, err := compact.SelectSlice(ctx, []*int{nil}, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint64)})
			return err
		}},
		{Entry: "compact.SelectSlice", Input: "5 loads per lane", Want: inval, Msg: "5 loads per lane", Call: func() error {
			_, _, err := compact.SelectSlice(ctx, data, opts(compact.Options{LoadsPerLane: 5}))
			return err
		}},
		{Entry: "compact.SelectFlaggedSlice", Input: "99 flags for 100 elements", Want: inval, Msg: "99 flags for 100 elements", Call: func() error {
			_, _, err := compact.SelectFlaggedSlice(ctx, data, make([]uint8, 99), u32)
			return err
		}},
		{Entry: "compact.SelectFlaggedSlice", Input: "nil context", Want: inval, Msg: "nil context", Call: func() error {
			_, _, err := compact.SelectFlaggedSlice(nil, data, make([]uint32, 100), u32)
			return err
		}},
	}
	badinput.CheckAll(t, cases, watched, align)
	if !slices.Equal(data, dataCopy) {
		t.Error("a slice helper modified the caller's slice")
	}
	// The good buffers work, so the failures were the edits'.
	if _, err := plan.Run(good); err != nil {
		t.Fatalf("the good buffers: %v", err)
	}

	// After the context's Release.
	other.Release()
	for _, c := range []badinput.Case{
		{Entry: "compact.NewPlan", Input: "released context", Want: vk.ErrReleased, Msg: "after Release", Call: func() error { _, err := compact.NewPlan(other, 10, u32); return err }},
		{Entry: "compact.Plan.Run", Input: "plan of a released context", Want: vk.ErrReleased, Msg: "after Release", Call: func() error {
			_, err := foreignPlan.Run(compact.Buffers{Src: foreign.Range(0, 400), Dst: foreign.Range(1024, 400)})
			return err
		}},
		{Entry: "compact.SelectSlice", Input: "released context", Want: vk.ErrReleased, Msg: "after Release", Call: func() error { _, _, err := compact.SelectSlice(other, data, u32); return err }},
	} {
		badinput.Check(t, c)
	}
}

// TestReliabilityConcurrent shares one context between goroutines that
// upload and download, compact (SelectSlice, and Select on a shared plan), sum
// and sort at once, checking every result; then does it again while the
// context is released under them: each call then either completes with
// the right result or reports ErrReleased.
func TestReliabilityConcurrent(t *testing.T) {
	for _, release := range []bool{false, true} {
		t.Run(fmt.Sprintf("release=%v", release), func(t *testing.T) {
			ctx := vktest.Open(t)
			seed := uint64(time.Now().UnixNano())
			t.Logf("seed %d", seed)
			shared, err := compact.NewPlan(ctx, 3000, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepMask(1)})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			var mu sync.Mutex
			var errs []error
			var done [5]int
			var inFlight atomic.Int32
			ended := make([]error, 5) // what ended each goroutine
			for g := range 5 {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(seed, uint64(g)))
					// Without Release, 8 operations each; with it, until
					// Release stops them (a bound keeps a broken Release
					// from looping forever).
					for i := 0; release && i < 100000 || i < 8; i++ {
						op := (g + i) % 5
						inFlight.Add(1)
						err := concurrentOp(ctx, shared, rng, op)
						inFlight.Add(-1)
						mu.Lock()
						if err != nil {
							errs = append(errs, fmt.Errorf("goroutine %d, op %d: %w", g, op, err))
						} else {
							done[op]++
						}
						mu.Unlock()
						if err != nil {
							ended[g] = err
							return
						}
					}
				})
			}
			overlapped := int32(0)
			if release {
				// Release once every kind of operation has completed at
				// least once, and while at least two are running.
				deadline := time.Now().Add(2 * time.Minute)
				for time.Now().Before(deadline) {
					mu.Lock()
					all := !slices.Contains(done[:], 0)
					mu.Unlock()
					if all {
						break
					}
					time.Sleep(time.Millisecond)
				}
				for overlapped < 2 && time.Now().Before(deadline) {
					overlapped = inFlight.Load()
				}
				ctx.Release()
			}
			wg.Wait()
			t.Logf("completed per operation (upload, SelectSlice, Select, ScanSlice, SortPairsSlice): %v; %d running at Release", done, overlapped)
			for _, err := range errs {
				if !release || !errors.Is(err, vk.ErrReleased) {
					t.Error(err)
				}
			}
			if release {
				if slices.Contains(done[:], 0) {
					t.Errorf("completed per operation %v: Release came before every kind had run", done)
				}
				if overlapped < 2 {
					t.Errorf("%d operations running at Release: want at least 2 overlapping it", overlapped)
				}
				for g, err := range ended {
					if !errors.Is(err, vk.ErrReleased) {
						t.Errorf("goroutine %d ended with %v, want ErrReleased", g, err)
					}
				}
				if n := ctx.AllocatedBytes(); n != 0 {
					t.Errorf("%d bytes allocated after Release", n)
				}
			}
		})
	}
}

// concurrentOp runs one operation of TestReliabilityConcurrent and checks
// its result against Go.
func concurrentOp(ctx *vk.Context, shared *compact.Plan, rng *rand.Rand, op int) error {
	n := 1 + rng.IntN(3000)
	data := make([]uint32, n)
	for i := range data {
		data[i] = rng.Uint32()
	}
	odd := slices.DeleteFunc(slices.Clone(data), func(v uint32) bool { return v&1 == 0 })
	switch op {
	case 0: // upload and download
		b, err := ctx.NewBuffer(uint64(4*n), vk.DeviceLocal)
		if err != nil {
			return err
		}
		defer b.Release()
		got := make([]uint32, n)
		if err := vk.Upload(b.All(), data); err != nil {
			return err
		}
		if err := vk.Download(b.All(), got); err != nil {
			return err
		}
		if !slices.Equal(got, data) {
			return errors.New("round trip differs")
		}
	case 1: // SelectSlice
		got, _, err := compact.SelectSlice(ctx, data, compact.Selection{Elem: vkcompact.Plain(vkcompact.Uint32), Keep: compact.KeepMask(1)})
		if err != nil {
			return err
		}
		if !slices.Equal(got, odd) {
			return errors.New("SelectSlice differs from the reference")
		}
	case 2: // a shared plan, counted on the GPU, into buffers of this goroutine
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
		var b compact.Buffers
		var err error
		for _, x := range []struct {
			r    *vk.Range
			size uint64
		}{{&b.Src, 4 * shared.N()}, {&b.Dst, 4 * shared.N()}, {&b.Count, 16}} {
			if *x.r, err = mk(x.size); err != nil {
				return err
			}
		}
		b.Count.Size = 4
		if err := vk.Upload(b.Src.Sub(0, uint64(4*n)), data); err != nil {
			return err
		}
		if err := vk.Upload(b.Count, []uint32{uint32(n)}); err != nil {
			return err
		}
		res, err := shared.Run(b)
		if err != nil {
			return err
		}
		got := make([]uint32, res.Kept)
		if err := vk.Download(b.Dst.Sub(0, uint64(4*res.Kept)), got); err != nil {
			return err
		}
		if !slices.Equal(got, odd) {
			return errors.New("Select on a shared plan differs from the reference")
		}
	case 3: // prefix sum
		sums, total, err := scan.ScanSlice(ctx, data, scan.Scan{})
		if err != nil {
			return err
		}
		var s uint32
		for i, v := range data {
			if sums[i] != s {
				return fmt.Errorf("prefix sum %d is %d, want %d", i, sums[i], s)
			}
			s += v
		}
		if total != s {
			return errors.New("prefix sum total differs")
		}
	case 4: // sort of pairs
		vals := make([]uint32, n)
		for i := range vals {
			vals[i] = uint32(i)
		}
		keys, got, err := radix.SortPairsSlice(ctx, data, vals, radix.Sort{})
		if err != nil {
			return err
		}
		for i := range keys {
			if keys[i] != data[got[i]] || i > 0 && (keys[i-1] > keys[i] || keys[i-1] == keys[i] && got[i-1] > got[i]) {
				return fmt.Errorf("sorted pair %d wrong", i)
			}
		}
	}
	return nil
}

// soakCount is the iterations of TestReliabilitySoak: VKCOMPACT_SOAK, or
// 300 (120 in the short form, vktest.Short).
func soakCount(t *testing.T) int {
	if s := os.Getenv("VKCOMPACT_SOAK"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("VKCOMPACT_SOAK=%q: want a positive count", s)
		}
		return n
	}
	if vktest.Short() {
		return 120
	}
	return 300
}

// soakSlot is a plan of soakMax elements reused with GPU counts, with its
// buffers.
type soakSlot struct {
	sel                                    compact.Selection
	plan                                   *compact.Plan
	src, dst, flags, result, scratch, cntb *vk.Buffer
}

const soakMax = 20000

var soakElems = []vkcompact.Elem{
	vkcompact.Plain(vkcompact.Uint32), vkcompact.Plain(vkcompact.Int32), vkcompact.Plain(vkcompact.Float32),
	vkcompact.Plain(vkcompact.Uint64), vkcompact.Plain(vkcompact.Int64), vkcompact.Plain(vkcompact.Float64),
	vkcompact.Struct(12, 4, vkcompact.Int32), vkcompact.Struct(32, 24, vkcompact.Float64), vkcompact.Struct(20, 16, vkcompact.Uint32),
}

// soakSelection draws a selection: a key or struct type, a nonzero,
// comparison or flag predicate, split or not, in place or not.
func soakSelection(rng *rand.Rand) (compact.Selection, refConst) {
	e := soakElems[rng.IntN(len(soakElems))]
	sel := compact.Selection{Elem: e, Split: rng.IntN(3) == 0, InPlace: rng.IntN(3) == 0}
	var c refConst
	switch rng.IntN(3) {
	case 0:
		sel.Keep = compact.KeepNonZero()
	case 1:
		cs := constants(e.Key)
		c = cs[rng.IntN(len(cs))]
		sel.Keep = compact.KeepIf(compact.Op(1+rng.IntN(6)), c.value(e.Key))
	default:
		sel.Keep = compact.KeepFlagged([]uint32{1, 4}[rng.IntN(2)])
	}
	return sel, c
}

// soakInput draws n elements for sel, about ratio of them kept where the
// predicate is nonzero or flags, and their flags as uploaded.
func soakInput(rng *rand.Rand, sel compact.Selection, n int, ratio float64) (data []byte, flags []uint32, rawFlags []byte) {
	e := sel.Elem
	size := int(e.Size())
	data = make([]byte, n*size+8)
	for i := 0; i < len(data)-8; i += 8 {
		binary.LittleEndian.PutUint64(data[i:], rng.Uint64())
	}
	data = data[:n*size]
	switch sel.Keep.Op {
	case compact.NonZero:
		for i := 0; i < n; i++ {
			if rng.Float64() >= ratio {
				setKey(data, e, i, 0)
			}
		}
	case compact.Flagged:
		flags = make([]uint32, n)
		for i := range flags {
			if rng.Float64() < ratio {
				flags[i] = 1 + rng.Uint32N(255)
			}
			if sel.Keep.FlagBytes == 1 {
				rawFlags = append(rawFlags, byte(flags[i]))
			} else {
				rawFlags = binary.LittleEndian.AppendUint32(rawFlags, flags[i])
			}
		}
	}
	return data, flags, rawFlags
}

// TestReliabilitySoak runs VKCOMPACT_SOAK compactions of random sizes (0
// to 20000 elements), types, predicates and ratios: mostly on a few
// reused plans with GPU counts, one in ten on a new plan through Select.
// Every iteration poisons the whole output buffer first and checks all of
// it against the Go reference: the kept (or split) elements, and poison
// past them (in place: past the count). From the end of a warm-up to the
// end of the run: the context's device memory and its Vulkan objects
// (buffers, timers, retired objects, command pools, fences, descriptor
// sets and pools) must not change, the Go heap (after a collection) may
// grow by at most 1 MiB, and the pipeline cache by at most four pipelines
// per distinct plan (count, scan, move and copy-back, or the single pass
// and its fill), so that a pipeline made per call, not per plan, fails.
// The last third of the run uses the reused plans only, so that no driver
// compiles anything there: the process's resident memory may grow by at
// most 16 MiB over it (a CPU driver keeps megabytes of machine code per
// new pipeline, which the earlier part makes).
func TestReliabilitySoak(t *testing.T) {
	iters := soakCount(t)
	ctx := vktest.Open(t)
	rng := vktest.Rand(t)
	start := time.Now()

	slots := make([]*soakSlot, 6)
	for i := range slots {
		sel, _ := soakSelection(rng)
		p, err := compact.NewPlan(ctx, soakMax, sel)
		if err != nil {
			t.Fatal(err)
		}
		bytes := uint64(soakMax) * uint64(sel.Elem.Size())
		s := &soakSlot{sel: sel, plan: p, src: vktest.NewPoisoned(t, ctx, bytes), dst: vktest.NewPoisoned(t, ctx, bytes), flags: vktest.NewPoisoned(t, ctx, 4*soakMax),
			result: vktest.NewPoisoned(t, ctx, compact.ResultSize), scratch: vktest.NewPoisoned(t, ctx, p.ScratchSize()), cntb: vktest.NewPoisoned(t, ctx, 16)}
		slots[i] = s
	}
	type sample struct {
		heap, rss, device uint64
		objects           vk.ObjectCounts
		pipelines         int
	}
	var ms runtime.MemStats
	measure := func() sample {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return sample{ms.HeapAlloc, residentBytes(t), ctx.AllocatedBytes(), ctx.Objects(), pipeline.For(ctx).Len()}
	}
	const mib = 1 << 20
	log := func(what string, s sample) {
		t.Logf("%s: Go heap %.2f MiB, resident %.1f MiB, device memory %d bytes, %d pipelines, objects %+v",
			what, float64(s.heap)/mib, float64(s.rss)/mib, s.device, s.pipelines, s.objects)
	}
	var s0, steady sample
	plans := map[string]bool{} // the distinct plans run since the warm-up
	warm := min(50, iters/5)
	steadyFrom := iters - iters/3
	every := max(iters/10, 1)
	var kept, total, fresh int
	for i := 0; i < iters; i++ {
		if i == warm {
			s0 = measure()
			log(fmt.Sprintf("soak start (after %d warm-up iterations)", warm), s0)
		}
		if i == steadyFrom {
			steady = measure()
			log("reused plans only from here", steady)
		}
		n := rng.IntN(soakMax + 1)
		ratio := rng.Float64()
		var sel compact.Selection
		var c refConst
		var slot *soakSlot
		if i < steadyFrom && rng.IntN(10) == 0 {
			sel, c = soakSelection(rng)
			fresh++
		} else {
			slot = slots[rng.IntN(len(slots))]
			sel = slot.sel
			if sel.Keep.Op != compact.NonZero && sel.Keep.Op != compact.Flagged {
				c = refConstOf(sel)
			}
		}
		data, flags, rawFlags := soakInput(rng, sel, n, ratio)
		want, k := reference(data, flags, sel.Elem, sel.Keep.Op, c, n, sel.Split)
		var res compact.Result
		var out vk.Range
		var err error
		var temps []*vk.Buffer
		if slot == nil {
			res, out, temps, err = soakSelect(ctx, sel, data, rawFlags, n)
			if p, perr := compact.NewPlan(ctx, uint64(n), sel); perr == nil && i >= warm {
				plans[fmt.Sprintf("%+v %+v n=%d", sel, p.Tuning(), n)] = true
			}
		} else {
			res, out, err = soakSlotRun(ctx, slot, data, rawFlags, n)
			if i >= warm {
				plans[fmt.Sprintf("slot %p", slot)] = true
			}
		}
		if err != nil {
			t.Fatalf("iteration %d (n=%d %v keep=%v split=%v inplace=%v): %v", i, n, sel.Elem, sel.Keep, sel.Split, sel.InPlace, err)
		}
		if int(res.Kept) != k || int(res.Total) != n || int(res.Rejected) != n-k {
			t.Fatalf("iteration %d: kept/rejected/total %d/%d/%d, want %d/%d/%d", i, res.Kept, res.Rejected, res.Total, k, n-k, n)
		}
		got := make([]byte, out.Size)
		if err := vk.Download(out, got); err != nil {
			t.Fatal(err)
		}
		// Past the output: poison, but, in place, the input past the
		// count (which the upload wrote over the poison).
		from := uint64(len(want))
		if sel.InPlace {
			from = uint64(len(data))
		}
		if !bytes.Equal(got[:len(want)], want) || !bytes.Equal(got[from:], vktest.PoisonBytes(out.Size)[from:]) {
			t.Fatalf("iteration %d (n=%d %v keep=%v split=%v inplace=%v): output differs from the reference", i, n, sel.Elem, sel.Keep, sel.Split, sel.InPlace)
		}
		for _, b := range temps {
			b.Release()
		}
		kept += k
		total += n
		if i > warm && (i-warm)%every == 0 {
			s := measure()
			log(fmt.Sprintf("soak %6d", i), s)
			if s.device != s0.device {
				t.Errorf("device memory %d bytes at iteration %d, %d at the start", s.device, i, s0.device)
			}
		}
	}
	s := measure()
	if iters <= warm {
		s0 = s
	}
	if steadyFrom >= iters {
		steady = s
	}
	log(fmt.Sprintf("soak end after %d compactions (%d on new plans; %d of %d elements kept) in %v",
		iters, fresh, kept, total, time.Since(start).Round(time.Millisecond)), s)
	if s.device != s0.device {
		t.Errorf("device memory grew from %d to %d bytes", s0.device, s.device)
	}
	// Pipelines and descriptor sets come with each new plan, so they are
	// checked over the reused plans' iterations (and pipelines per plan)
	// below; every other object count must stay as it was after warm-up.
	o0, o := s0.objects, s.objects
	o0.Pipelines, o.Pipelines = 0, 0
	o0.Vulkan.DescriptorSets, o.Vulkan.DescriptorSets = 0, 0
	o0.Vulkan.Pipelines, o.Vulkan.Pipelines = 0, 0 // and their shader modules and layouts, with each new plan
	o0.Vulkan.ShaderModules, o.Vulkan.ShaderModules = 0, 0
	o0.Vulkan.PipelineLayouts, o.Vulkan.PipelineLayouts = 0, 0
	o0.Vulkan.SetLayouts, o.Vulkan.SetLayouts = 0, 0
	if o != o0 {
		t.Errorf("Vulkan objects changed from %+v to %+v", s0.objects, s.objects)
	}
	if s.objects.Vulkan.DescriptorSets != steady.objects.Vulkan.DescriptorSets {
		t.Errorf("descriptor sets went from %d to %d over the reused plans' iterations", steady.objects.Vulkan.DescriptorSets, s.objects.Vulkan.DescriptorSets)
	}
	if s.heap > s0.heap+mib {
		t.Errorf("Go heap grew from %.2f to %.2f MiB (at most 1 MiB)", float64(s0.heap)/mib, float64(s.heap)/mib)
	}
	if s.rss > steady.rss+16*mib {
		t.Errorf("resident memory grew from %.1f to %.1f MiB over the reused plans' iterations (at most 16 MiB)", float64(steady.rss)/mib, float64(s.rss)/mib)
	}
	if s.pipelines != steady.pipelines {
		t.Errorf("%d pipelines made over the reused plans' iterations", s.pipelines-steady.pipelines)
	}
	newPipelines := s.pipelines - s0.pipelines
	if newPipelines > 4*len(plans) {
		t.Errorf("%d pipelines made for %d distinct plans: at most 4 each", newPipelines, len(plans))
	}
}

// residentBytes reads the process's resident set size: 0 where the
// platform gives none (vktest.ResidentBytes), so that the check passes.
func residentBytes(t *testing.T) uint64 {
	rss, _ := vktest.ResidentBytes()
	return rss
}

// refConstOf recovers a comparison's constant for the reference.
func refConstOf(sel compact.Selection) refConst {
	for _, c := range constants(sel.Elem.Key) {
		if c.value(sel.Elem.Key) == sel.Keep.Value {
			return c
		}
	}
	panic("soak: unknown constant")
}

// soakSlotRun runs n elements through a reused plan, the count given on
// the GPU, and returns the output range.
func soakSlotRun(ctx *vk.Context, s *soakSlot, data, rawFlags []byte, n int) (compact.Result, vk.Range, error) {
	size := uint64(s.sel.Elem.Size())
	b := compact.Buffers{Src: s.src.Range(0, soakMax*size), Result: s.result.Range(0, compact.ResultSize),
		Scratch: s.scratch.Range(0, s.plan.ScratchSize()), Count: s.cntb.Range(0, 4)}
	out := b.Src
	if !s.sel.InPlace {
		b.Dst = s.dst.Range(0, soakMax*size)
		out = b.Dst
	}
	if err := vk.Upload(out, vktest.PoisonBytes(out.Size)); err != nil {
		return compact.Result{}, out, err
	}
	if err := vk.Upload(b.Src.Sub(0, uint64(len(data))), data); err != nil {
		return compact.Result{}, out, err
	}
	if s.sel.Keep.Op == compact.Flagged {
		b.Flags = s.flags.Range(0, soakMax*uint64(s.sel.Keep.FlagBytes))
		if err := vk.Upload(b.Flags.Sub(0, uint64(len(rawFlags))), rawFlags); err != nil {
			return compact.Result{}, out, err
		}
	}
	if err := vk.Upload(b.Count, []uint32{uint32(n)}); err != nil {
		return compact.Result{}, out, err
	}
	if err := pipeline.Run(ctx, func(r *pipeline.Recorder) { s.plan.Record(r, b) }); err != nil {
		return compact.Result{}, out, err
	}
	res, err := compact.ReadResult(b.Result)
	return res, out, err
}

// soakSelect runs n elements through Select, on a new plan and new
// buffers, which the caller releases.
func soakSelect(ctx *vk.Context, sel compact.Selection, data, rawFlags []byte, n int) (compact.Result, vk.Range, []*vk.Buffer, error) {
	var bufs []*vk.Buffer
	mk := func(size uint64) (vk.Range, error) {
		b, err := ctx.NewBuffer(max(alignUp4(size)+4, 16), vk.DeviceLocal)
		if err != nil {
			return vk.Range{}, err
		}
		bufs = append(bufs, b)
		return b.Range(0, size), nil
	}
	var b compact.Buffers
	var err error
	if b.Src, err = mk(uint64(len(data))); err != nil {
		return compact.Result{}, vk.Range{}, bufs, err
	}
	if err := vk.Upload(b.Src, data); err != nil {
		return compact.Result{}, vk.Range{}, bufs, err
	}
	out := b.Src
	if !sel.InPlace {
		if b.Dst, err = mk(uint64(len(data))); err != nil {
			return compact.Result{}, vk.Range{}, bufs, err
		}
		if err := vk.Upload(b.Dst, vktest.PoisonBytes(b.Dst.Size)); err != nil {
			return compact.Result{}, vk.Range{}, bufs, err
		}
		out = b.Dst
	}
	if sel.Keep.Op == compact.Flagged {
		if b.Flags, err = mk(uint64(len(rawFlags))); err != nil {
			return compact.Result{}, vk.Range{}, bufs, err
		}
		if err := vk.Upload(b.Flags, rawFlags); err != nil {
			return compact.Result{}, vk.Range{}, bufs, err
		}
	}
	res, err := compact.Select(ctx, uint64(n), sel, b)
	return res, out, bufs, err
}

func alignUp4(n uint64) uint64 { return (n + 3) &^ 3 }
