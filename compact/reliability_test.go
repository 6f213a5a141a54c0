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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
	"github.com/vkcompact/vkcompact/vk/vktest"
)

// badCase is one bad input to a public entry point: call must return an
// error matching want (any error when want is nil) whose message contains
// msg, or one of its |-separated alternatives, and must not panic.
type badCase struct {
	entry, input string
	want         error
	msg          string
	call         func() error
}

// checkBad runs c and reports what is wrong with its outcome. Each case is
// logged as "case | entry | input | error" for the reliability report.
func checkBad(t *testing.T, c badCase) {
	t.Helper()
	var err error
	var problem string
	func() {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v", p)
				problem = "panicked"
			}
		}()
		err = c.call()
	}()
	t.Logf("case | %s | %s | %v", c.entry, c.input, err)
	switch {
	case problem != "":
	case err == nil:
		problem = "no error"
	case c.want != nil && !errors.Is(err, c.want):
		problem = fmt.Sprintf("%v, want an error matching %v", err, c.want)
	case !slices.ContainsFunc(strings.Split(c.msg, "|"), func(m string) bool { return strings.Contains(err.Error(), m) }):
		problem = fmt.Sprintf("%q does not mention %q", err, c.msg)
	}
	if problem != "" {
		t.Errorf("%s: %s: %s (%v)", c.entry, c.input, problem, err)
	}
}

// unchanged fails t when a buffer no longer holds what it held.
func unchanged(t *testing.T, what string, bufs map[*vk.Buffer][]byte) {
	t.Helper()
	for b, want := range bufs {
		got := make([]byte, len(want))
		if err := vk.Download(b.All(), got); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: a caller's buffer was modified", what)
		}
	}
}

// TestReliabilityBadInput tries every public entry point of compact with
// bad arguments: each returns an error wrapping vk.ErrInvalid (or
// vk.ErrReleased) that names the problem, nothing panics, and the caller's
// buffers, all poisoned, are left as they were.
func TestReliabilityBadInput(t *testing.T) {
	ctx := vktest.Open(t)
	other := vktest.Open(t)
	info := ctx.Info()
	align := info.MinStorageBufferOffsetAlignment
	u32 := compact.Selection{Elem: compact.Plain(compact.Uint32)}
	plan, err := compact.NewPlan(ctx, 100, u32)
	if err != nil {
		t.Fatal(err)
	}
	flagged, err := compact.NewPlan(ctx, 10, compact.Selection{Elem: compact.Plain(compact.Uint32), Keep: compact.KeepFlagged(1)})
	if err != nil {
		t.Fatal(err)
	}
	inPlace, err := compact.NewPlan(ctx, 100, compact.Selection{Elem: compact.Plain(compact.Uint32), InPlace: true})
	if err != nil {
		t.Fatal(err)
	}
	foreignPlan, err := compact.NewPlan(other, 100, u32)
	if err != nil {
		t.Fatal(err)
	}
	scan, err := compact.NewScanPlan(ctx, 100, compact.Scan{})
	if err != nil {
		t.Fatal(err)
	}
	foreignScan, err := compact.NewScanPlan(other, 100, compact.Scan{})
	if err != nil {
		t.Fatal(err)
	}
	a := newBuf(t, ctx, 4096)
	s := newBuf(t, ctx, max(plan.ScratchSize(), scan.ScratchSize())+256)
	flags := newBuf(t, ctx, 26) // 10 uint8 flags at 16 lack their padding
	foreign := newBuf(t, other, 4096)
	released := newBuf(t, ctx, 4096)
	released.Release()
	watched := map[*vk.Buffer][]byte{a: poisonBytes(a.Size()), s: poisonBytes(s.Size()), flags: poisonBytes(flags.Size())}
	rng := newRand(t)
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
	goodScan := compact.ScanBuffers{Src: a.Range(0, 400), Dst: a.Range(1024, 400), Total: a.Range(2048, 4),
		Scratch: s.Range(0, scan.ScratchSize())}
	scanRec := func(p *compact.ScanPlan, edit func(b *compact.ScanBuffers)) func() error {
		return func() error {
			b := goodScan
			edit(&b)
			return pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) })
		}
	}
	newPlan := func(n uint64, sel compact.Selection) func() error {
		return func() error { _, err := compact.NewPlan(ctx, n, sel); return err }
	}
	opts := func(o compact.Options) compact.Selection {
		return compact.Selection{Elem: compact.Plain(compact.Uint32), Options: o}
	}
	elem := func(e compact.Elem) compact.Selection { return compact.Selection{Elem: e} }
	keep := func(t compact.Type, k compact.Keep) compact.Selection {
		return compact.Selection{Elem: compact.Plain(t), Keep: k}
	}
	scanOpts := func(s compact.Scan) func() error {
		return func() error { _, _, err := compact.ScanSlice(ctx, data, s); return err }
	}
	copyRec := func(dst, src vk.Range, o compact.CopyOptions) func() error {
		return func() error { return compact.Copy(ctx, dst, src, o) }
	}
	copyCount := func(dst, src, count vk.Range, elemBytes uint32) func() error {
		return func() error {
			return pipeline.Run(ctx, func(r *pipeline.Recorder) {
				compact.RecordCopyCount(r, dst, src, count, elemBytes, compact.CopyOptions{})
			})
		}
	}
	var nilPlan *compact.Plan
	var nilScan *compact.ScanPlan
	var nilRec *pipeline.Recorder
	bigWG := info.MaxWorkgroupInvocations + info.MaxSubgroupSize
	inval := vk.ErrInvalid
	cases := []badCase{
		// Plans: elements, predicates, counts and options.
		{entry: "compact.NewPlan", input: "nil context", want: inval, msg: "nil context", call: func() error { _, err := compact.NewPlan(nil, 10, u32); return err }},
		{entry: "compact.NewPlan", input: "stride 10 (not a multiple of 4)", want: inval, msg: "stride 10", call: newPlan(10, elem(compact.Struct(10, 0, compact.Uint32)))},
		{entry: "compact.NewPlan", input: "stride 2", want: inval, msg: "stride 2", call: newPlan(10, elem(compact.Struct(2, 0, compact.Uint32)))},
		{entry: "compact.NewPlan", input: "stride 260 (above MaxStride)", want: inval, msg: "stride 260", call: newPlan(10, elem(compact.Struct(260, 0, compact.Uint32)))},
		{entry: "compact.NewPlan", input: "key offset 8 in an 8-byte element", want: inval, msg: "does not fit", call: newPlan(10, elem(compact.Struct(8, 8, compact.Uint32)))},
		{entry: "compact.NewPlan", input: "u64 key at 8 in a 12-byte element", want: inval, msg: "does not fit", call: newPlan(10, elem(compact.Struct(12, 8, compact.Uint64)))},
		{entry: "compact.NewPlan", input: "key offset 2 (unaligned)", want: inval, msg: "key offset 2", call: newPlan(10, elem(compact.Struct(12, 2, compact.Uint32)))},
		{entry: "compact.NewPlan", input: "key offset 0xfffffffc (wraps)", want: inval, msg: "does not fit", call: newPlan(10, elem(compact.Struct(16, 0xfffffffc, compact.Uint64)))},
		{entry: "compact.NewPlan", input: "unknown key type 9", want: inval, msg: "unknown key type 9", call: newPlan(10, elem(compact.Plain(compact.Type(9))))},
		{entry: "compact.NewPlan", input: "n = 2^32 (above MaxElements)", want: inval, msg: "4294967296 elements", call: newPlan(1<<32, u32)},
		{entry: "compact.NewPlan", input: "n = 2^64-1", want: inval, msg: "18446744073709551615 elements", call: newPlan(^uint64(0), u32)},
		{entry: "compact.NewPlan", input: "u32 constant -5", want: inval, msg: "out of range for u32", call: newPlan(10, keep(compact.Uint32, compact.KeepIf(compact.Less, compact.Int(-5))))},
		{entry: "compact.NewPlan", input: "i32 constant 2^31", want: inval, msg: "out of range for i32", call: newPlan(10, keep(compact.Int32, compact.KeepIf(compact.Less, compact.Uint(1<<31))))},
		{entry: "compact.NewPlan", input: "i64 key, constant 0.5", want: inval, msg: "not an integer", call: newPlan(10, keep(compact.Int64, compact.KeepIf(compact.Less, compact.Float(0.5))))},
		{entry: "compact.NewPlan", input: "f32 key, constant 2^24+1", want: inval, msg: "not exactly representable", call: newPlan(10, keep(compact.Float32, compact.KeepIf(compact.Less, compact.Uint(1<<24+1))))},
		{entry: "compact.NewPlan", input: "f32 key, constant 1e39", want: inval, msg: "out of range for f32", call: newPlan(10, keep(compact.Float32, compact.KeepIf(compact.Less, compact.Float(1e39))))},
		{entry: "compact.NewPlan", input: "mask on an f32 key", want: inval, msg: "needs an integer key", call: newPlan(10, keep(compact.Float32, compact.KeepMask(1)))},
		{entry: "compact.NewPlan", input: "mask 2^32 on a u32 key", want: inval, msg: "wider than u32", call: newPlan(10, keep(compact.Uint32, compact.KeepMask(1<<32)))},
		{entry: "compact.NewPlan", input: "2-byte flags", want: inval, msg: "flags of 2 bytes", call: newPlan(10, keep(compact.Uint32, compact.KeepFlagged(2)))},
		{entry: "compact.NewPlan", input: "unknown operator 42", want: inval, msg: "unknown keep operator 42", call: newPlan(10, keep(compact.Uint32, compact.Keep{Op: 42}))},
		{entry: "compact.NewPlan", input: "workgroup not a multiple of the subgroup size", want: inval, msg: "not a multiple of the largest subgroup size", call: newPlan(10, opts(compact.Options{WorkgroupSize: info.MaxSubgroupSize + 1}))},
		{entry: "compact.NewPlan", input: "workgroup above maxComputeWorkGroupInvocations", want: inval, msg: "outside 1..", call: newPlan(10, opts(compact.Options{WorkgroupSize: bigWG}))},
		{entry: "compact.NewPlan", input: "5 loads per lane", want: inval, msg: "5 loads per lane", call: newPlan(10, opts(compact.Options{LoadsPerLane: 5}))},
		{entry: "compact.NewPlan", input: "write strategy 7", want: inval, msg: "unknown write strategy 7", call: newPlan(10, opts(compact.Options{Write: 7}))},
		{entry: "compact.NewPlan", input: "staged write that does not fit shared memory", want: inval, msg: "bytes of shared memory", call: newPlan(10, compact.Selection{
			Elem: compact.Struct(256, 0, compact.Uint32), Options: compact.Options{WorkgroupSize: 1024, LoadsPerLane: 4, Write: compact.WriteStaged}})},
		{entry: "compact.NewPlan", input: "Processors 2^32-1 (counts overflow the scratch size)", want: inval, msg: "processors", call: newPlan(100, opts(compact.Options{Processors: 0xffffffff}))},
		{entry: "compact.NewPlan", input: "Processors 2^30 (scratch of 4 GiB)", want: inval, msg: "processors", call: newPlan(100, opts(compact.Options{Processors: 1 << 30}))},
		{entry: "compact.Elem.Check", input: "stride 6", msg: "stride 6", call: compact.Struct(6, 0, compact.Uint32).Check},
		{entry: "compact.ParseType", input: `"u16"`, msg: `unknown type "u16"`, call: func() error { _, err := compact.ParseType("u16"); return err }},
		{entry: "compact.ParseKeep", input: `"x ~ 3"`, msg: "want nonzero", call: func() error { _, err := compact.ParseKeep("x ~ 3", compact.Uint32); return err }},
		{entry: "compact.ParseKeep", input: `"x < 1.5" for u32`, msg: "not an integer", call: func() error { _, err := compact.ParseKeep("x < 1.5", compact.Uint32); return err }},
		{entry: "compact.ParseKeep", input: `"x < 5000000000" for u32`, msg: "out of range", call: func() error { _, err := compact.ParseKeep("x < 5000000000", compact.Uint32); return err }},
		{entry: "compact.ParseKeep", input: `"x & 1.5" for f32`, msg: "not an integer|integer key", call: func() error { _, err := compact.ParseKeep("x & 1.5", compact.Float32); return err }},

		// Plan.Record: buffers that do not fit the plan.
		{entry: "compact.Plan.Record", input: "no source", want: inval, msg: "no source buffer", call: record(func(b *compact.Buffers) { b.Src = vk.Range{} })},
		{entry: "compact.Plan.Record", input: "source 4 bytes short", want: inval, msg: "source range of 396 bytes: 400 needed", call: record(func(b *compact.Buffers) { b.Src.Size = 396 })},
		{entry: "compact.Plan.Record", input: "no destination", want: inval, msg: "no destination buffer", call: record(func(b *compact.Buffers) { b.Dst = vk.Range{} })},
		{entry: "compact.Plan.Record", input: "destination too small for the output", want: inval, msg: "destination range of 100 bytes", call: record(func(b *compact.Buffers) { b.Dst.Size = 100 })},
		{entry: "compact.Plan.Record", input: "no result", want: inval, msg: "no result buffer", call: record(func(b *compact.Buffers) { b.Result = vk.Range{} })},
		{entry: "compact.Plan.Record", input: "result of 47 bytes", want: inval, msg: "result range of 47 bytes", call: record(func(b *compact.Buffers) { b.Result.Size = 47 })},
		{entry: "compact.Plan.Record", input: "no scratch", want: inval, msg: "no scratch buffer", call: record(func(b *compact.Buffers) { b.Scratch = vk.Range{} })},
		{entry: "compact.Plan.Record", input: "scratch too small", want: inval, msg: "scratch range of 16 bytes", call: record(func(b *compact.Buffers) { b.Scratch.Size = 16 })},
		{entry: "compact.Plan.Record", input: "source and destination overlap", want: inval, msg: "source and destination ranges overlap; to work in place", call: record(func(b *compact.Buffers) { b.Dst = a.Range(256, 400) })},
		{entry: "compact.Plan.Record", input: "destination = source without InPlace", want: inval, msg: "ranges overlap", call: record(func(b *compact.Buffers) { b.Dst = b.Src })},
		{entry: "compact.Plan.Record", input: "result inside the destination", want: inval, msg: "result and destination ranges overlap", call: record(func(b *compact.Buffers) { b.Result = a.Range(1024, 48) })},
		{entry: "compact.Plan.Record", input: "result inside the scratch", want: inval, msg: "result and scratch ranges overlap", call: record(func(b *compact.Buffers) { b.Result = s.Range(0, compact.ResultSize) })},
		{entry: "compact.Plan.Record", input: "count inside the result block", want: inval, msg: "result and count ranges overlap", call: record(func(b *compact.Buffers) { b.Count = a.Range(2048, 4) })},
		{entry: "compact.Plan.Record", input: "count inside the destination", want: inval, msg: "destination and count ranges overlap", call: record(func(b *compact.Buffers) { b.Count = a.Range(1024, 4) })},
		{entry: "compact.Plan.Record", input: "count of 2 bytes", want: inval, msg: "count range of 2 bytes", call: record(func(b *compact.Buffers) { b.Count = a.Range(3072, 2) })},
		{entry: "compact.Plan.Record", input: "count in another context", want: inval, msg: "count: the buffer belongs to another context", call: record(func(b *compact.Buffers) { b.Count = foreign.Range(0, 4) })},
		{entry: "compact.Plan.Record", input: "source past the end of its buffer", want: inval, msg: "exceeds the 4096-byte buffer", call: record(func(b *compact.Buffers) { b.Src = a.Range(3840, 400) })},
		{entry: "compact.Plan.Record", input: "source in another context", want: inval, msg: "source: the buffer belongs to another context", call: record(func(b *compact.Buffers) { b.Src = foreign.Range(0, 400) })},
		{entry: "compact.Plan.Record", input: "released source", want: vk.ErrReleased, msg: "source: vk: used after Release", call: record(func(b *compact.Buffers) { b.Src = released.Range(0, 400) })},
		{entry: "compact.Plan.Record", input: "zero Buffer value as destination", want: inval, msg: "destination: vk: invalid argument: nil buffer", call: record(func(b *compact.Buffers) { b.Dst = (&vk.Buffer{}).Range(0, 400) })},
		{entry: "compact.Plan.Record", input: "destination offset not aligned", want: inval, msg: "destination offset 1028 is not a multiple of minStorageBufferOffsetAlignment", call: record(func(b *compact.Buffers) { b.Dst = a.Range(1028, 400) })},
		{entry: "compact.Plan.Record", input: "result offset not aligned", want: inval, msg: "result offset 2052 is not a multiple", call: record(func(b *compact.Buffers) { b.Result = a.Range(2052, 48) })},
		{entry: "compact.Plan.Record", input: "count offset not aligned", want: inval, msg: "count offset 3076 is not a multiple", call: record(func(b *compact.Buffers) { b.Count = a.Range(3076, 4) })},
		{entry: "compact.Plan.Record", input: "in place with a separate destination", want: inval, msg: "in place, the destination must be the source or left empty", call: sel(inPlace, func(b *compact.Buffers) {
			b.Scratch = s.Range(0, inPlace.ScratchSize())
		})},
		{entry: "compact.Plan.Record", input: "flagged without flags", want: inval, msg: "no flags buffer", call: sel(flagged, func(b *compact.Buffers) {})},
		{entry: "compact.Plan.Record", input: "uint8 flags without their padding word", want: inval, msg: "uint8 flags are read in 4-byte words", call: sel(flagged, func(b *compact.Buffers) {
			b.Flags = flags.Range(16, 10)
		})},
		{entry: "compact.Plan.Record", input: "plan of another context", want: inval, msg: "the plan was made for another context", call: sel(foreignPlan, func(b *compact.Buffers) {})},
		{entry: "compact.Plan.Record", input: "nil Recorder", want: inval, msg: "nil Recorder", call: func() error {
			plan.Record(nilRec, good)
			return nilRec.Err()
		}},
		{entry: "compact.Plan.Record", input: "nil plan", want: inval, msg: "nil", call: sel(nilPlan, func(b *compact.Buffers) {})},
		{entry: "compact.Plan.RecordTimed", input: "nil timer", want: inval, msg: "timer", call: func() error {
			return pipeline.Run(ctx, func(r *pipeline.Recorder) { plan.RecordTimed(r, good, nil) })
		}},

		// Plan.Run and Select: the same checks, with Result and Scratch allocated.
		{entry: "compact.Plan.Run", input: "destination too small", want: inval, msg: "destination range of 8 bytes", call: func() error {
			_, err := plan.Run(compact.Buffers{Src: a.Range(0, 400), Dst: a.Range(1024, 8)})
			return err
		}},
		{entry: "compact.Plan.Run", input: "nil plan", want: inval, msg: "nil", call: func() error { _, err := nilPlan.Run(good); return err }},
		{entry: "compact.Select", input: "nil context", want: inval, msg: "nil context", call: func() error { _, err := compact.Select(nil, 100, u32, good); return err }},
		{entry: "compact.Select", input: "source overlapping the destination", want: inval, msg: "ranges overlap", call: func() error {
			_, err := compact.Select(ctx, 100, u32, compact.Buffers{Src: a.Range(0, 400), Dst: a.Range(256, 400)})
			return err
		}},
		{entry: "compact.Select", input: "n above the buffers", want: inval, msg: "source range of 400 bytes: 4000 needed", call: func() error {
			_, err := compact.Select(ctx, 1000, u32, good)
			return err
		}},
		{entry: "compact.ReadResult", input: "nil buffer", want: inval, msg: "nil buffer", call: func() error { _, err := compact.ReadResult(vk.Range{}); return err }},
		{entry: "compact.ReadResult", input: "range past the end", want: inval, msg: "exceeds", call: func() error { _, err := compact.ReadResult(a.Range(4092, 48)); return err }},
		{entry: "compact.ReadResult", input: "range of 8 bytes (shorter than the 12 read)", want: inval, msg: "bytes", call: func() error { _, err := compact.ReadResult(a.Range(0, 8)); return err }},

		// Slice helpers.
		{entry: "compact.Slice", input: "nil context", want: inval, msg: "nil context", call: func() error { _, _, err := compact.Slice(nil, data, u32); return err }},
		{entry: "compact.Slice", input: "stride 8 for []uint32", want: inval, msg: "elements of 8 bytes in a slice of 4-byte uint32", call: func() error {
			_, _, err := compact.Slice(ctx, data, compact.Selection{Elem: compact.Struct(8, 0, compact.Uint32)})
			return err
		}},
		{entry: "compact.Slice", input: "u64 key for []uint32", want: inval, msg: "u64 key at byte 0 does not fit in a 4-byte element", call: func() error {
			_, _, err := compact.Slice(ctx, data, compact.Selection{Elem: compact.Plain(compact.Uint64)})
			return err
		}},
		{entry: "compact.Slice", input: "flagged selection", want: inval, msg: "use SliceFlagged", call: func() error {
			_, _, err := compact.Slice(ctx, data, keep(compact.Uint32, compact.KeepFlagged(4)))
			return err
		}},
		{entry: "compact.Slice", input: "[]*int (pointers)", want: inval, msg: "holds pointers", call: func() error {
			_, _, err := compact.Slice(ctx, []*int{nil}, compact.Selection{Elem: compact.Plain(compact.Uint64)})
			return err
		}},
		{entry: "compact.Slice", input: "5 loads per lane", want: inval, msg: "5 loads per lane", call: func() error {
			_, _, err := compact.Slice(ctx, data, opts(compact.Options{LoadsPerLane: 5}))
			return err
		}},
		{entry: "compact.SliceFlagged", input: "99 flags for 100 elements", want: inval, msg: "99 flags for 100 elements", call: func() error {
			_, _, err := compact.SliceFlagged(ctx, data, make([]uint8, 99), u32)
			return err
		}},
		{entry: "compact.SliceFlagged", input: "nil context", want: inval, msg: "nil context", call: func() error {
			_, _, err := compact.SliceFlagged(nil, data, make([]uint32, 100), u32)
			return err
		}},

		// Prefix sums.
		{entry: "compact.NewScanPlan", input: "nil context", want: inval, msg: "nil context", call: func() error { _, err := compact.NewScanPlan(nil, 10, compact.Scan{}); return err }},
		{entry: "compact.NewScanPlan", input: "u64 elements", want: inval, msg: "must be u32, i32 or f32", call: func() error {
			_, err := compact.NewScanPlan(ctx, 10, compact.Scan{Type: compact.Uint64})
			return err
		}},
		{entry: "compact.NewScanPlan", input: "n = 2^32", want: inval, msg: "4294967296 elements", call: func() error { _, err := compact.NewScanPlan(ctx, 1<<32, compact.Scan{}); return err }},
		{entry: "compact.ScanSlice", input: "Options.Write set", want: inval, msg: "do not apply to a prefix sum", call: scanOpts(compact.Scan{Options: compact.Options{Write: compact.WriteStaged}})},
		{entry: "compact.ScanSlice", input: "Options.GroupSize set", want: inval, msg: "do not apply to a prefix sum", call: scanOpts(compact.Scan{Options: compact.Options{GroupSize: 64}})},
		{entry: "compact.ScanSlice", input: "workgroup not a multiple of the subgroup size", want: inval, msg: "not a multiple of the largest subgroup size", call: scanOpts(compact.Scan{Options: compact.Options{WorkgroupSize: info.MaxSubgroupSize + 1}})},
		{entry: "compact.ScanSlice", input: "workgroup above maxComputeWorkGroupInvocations", want: inval, msg: "outside 1..", call: scanOpts(compact.Scan{Options: compact.Options{WorkgroupSize: bigWG}})},
		{entry: "compact.ScanSlice", input: "5 loads per lane", want: inval, msg: "5 loads per lane", call: scanOpts(compact.Scan{Options: compact.Options{LoadsPerLane: 5}})},
		{entry: "compact.ScanSlice", input: "nil context", want: inval, msg: "nil context", call: func() error { _, _, err := compact.ScanSlice(nil, data, compact.Scan{}); return err }},
		{entry: "compact.ScanPlan.Record", input: "no source", want: inval, msg: "no source buffer", call: scanRec(scan, func(b *compact.ScanBuffers) { b.Src = vk.Range{} })},
		{entry: "compact.ScanPlan.Record", input: "destination too small", want: inval, msg: "destination range of 396 bytes", call: scanRec(scan, func(b *compact.ScanBuffers) { b.Dst.Size = 396 })},
		{entry: "compact.ScanPlan.Record", input: "no total", want: inval, msg: "no total buffer", call: scanRec(scan, func(b *compact.ScanBuffers) { b.Total = vk.Range{} })},
		{entry: "compact.ScanPlan.Record", input: "total of 2 bytes", want: inval, msg: "total range of 2 bytes", call: scanRec(scan, func(b *compact.ScanBuffers) { b.Total.Size = 2 })},
		{entry: "compact.ScanPlan.Record", input: "scratch too small", want: inval, msg: "scratch range of 4 bytes", call: scanRec(scan, func(b *compact.ScanBuffers) { b.Scratch.Size = 4 })},
		{entry: "compact.ScanPlan.Record", input: "source and destination overlap", want: inval, msg: "source and destination ranges overlap", call: scanRec(scan, func(b *compact.ScanBuffers) { b.Dst = a.Range(16, 400) })},
		{entry: "compact.ScanPlan.Record", input: "total inside the destination", want: inval, msg: "total and destination ranges overlap", call: scanRec(scan, func(b *compact.ScanBuffers) { b.Total = a.Range(1040, 4) })},
		{entry: "compact.ScanPlan.Record", input: "count inside the total", want: inval, msg: "total and count ranges overlap", call: scanRec(scan, func(b *compact.ScanBuffers) { b.Count = b.Total })},
		{entry: "compact.ScanPlan.Record", input: "destination offset not aligned", want: inval, msg: "not a multiple of minStorageBufferOffsetAlignment", call: scanRec(scan, func(b *compact.ScanBuffers) { b.Dst = a.Range(1028, 400) })},
		{entry: "compact.ScanPlan.Record", input: "in place plan with a separate destination", want: inval, msg: "in place, the destination must be the source or left empty", call: func() error {
			p, err := compact.NewScanPlan(ctx, 100, compact.Scan{InPlace: true})
			if err != nil {
				return err
			}
			return scanRec(p, func(*compact.ScanBuffers) {})()
		}},
		{entry: "compact.ScanPlan.Record", input: "plan of another context", want: inval, msg: "the plan was made for another context", call: scanRec(foreignScan, func(*compact.ScanBuffers) {})},
		{entry: "compact.ScanPlan.Record", input: "nil plan", want: inval, msg: "nil ScanPlan", call: scanRec(nilScan, func(*compact.ScanBuffers) {})},
		{entry: "compact.ScanPlan.Record", input: "nil Recorder", want: inval, msg: "nil Recorder", call: func() error {
			scan.Record(nilRec, goodScan)
			return nilRec.Err()
		}},
		{entry: "compact.ScanPlan.Run", input: "nil plan", want: inval, msg: "nil ScanPlan", call: func() error { _, err := nilScan.Run(goodScan); return err }},
		{entry: "compact.ScanPlan.Run", input: "source in another context", want: inval, msg: "source: the buffer belongs to another context", call: func() error {
			_, err := scan.Run(compact.ScanBuffers{Src: foreign.Range(0, 400), Dst: a.Range(1024, 400)})
			return err
		}},

		// Copies.
		{entry: "compact.Copy", input: "6 bytes (not whole words)", want: inval, msg: "not a whole number of 32-bit words", call: copyRec(a.Range(1024, 6), a.Range(0, 6), compact.CopyOptions{})},
		{entry: "compact.Copy", input: "sizes differ", want: inval, msg: "copy of 400 bytes into a 396-byte destination", call: copyRec(a.Range(1024, 396), a.Range(0, 400), compact.CopyOptions{})},
		{entry: "compact.Copy", input: "overlapping ranges", want: inval, msg: "overlap", call: copyRec(a.Range(256, 400), a.Range(0, 400), compact.CopyOptions{})},
		{entry: "compact.Copy", input: "source offset not aligned", want: inval, msg: "not a multiple of minStorageBufferOffsetAlignment", call: copyRec(a.Range(1024, 400), a.Range(4, 400), compact.CopyOptions{})},
		{entry: "compact.Copy", input: "nil source buffer", want: inval, msg: "copy source: vk: invalid argument: nil buffer", call: copyRec(a.Range(1024, 400), vk.Range{Size: 400}, compact.CopyOptions{})},
		{entry: "compact.Copy", input: "released destination", want: vk.ErrReleased, msg: "copy destination: vk: used after Release", call: copyRec(released.Range(0, 400), a.Range(0, 400), compact.CopyOptions{})},
		{entry: "compact.Copy", input: "destination in another context", want: inval, msg: "another context", call: copyRec(foreign.Range(0, 400), a.Range(0, 400), compact.CopyOptions{})},
		{entry: "compact.Copy", input: "17 vectors per thread", want: inval, msg: "17 uvec4 per invocation", call: copyRec(a.Range(1024, 400), a.Range(0, 400), compact.CopyOptions{VecsPerThread: 17})},
		{entry: "compact.Copy", input: "workgroup above maxComputeWorkGroupInvocations", want: inval, msg: "outside 1..", call: copyRec(a.Range(1024, 400), a.Range(0, 400), compact.CopyOptions{WorkgroupSize: bigWG})},
		{entry: "compact.Copy", input: "nil context", want: inval, msg: "one is nil", call: func() error { return compact.Copy(nil, a.Range(1024, 400), a.Range(0, 400), compact.CopyOptions{}) }},
		{entry: "compact.CheckCopyOptions", input: "nil context", want: inval, msg: "nil context", call: func() error { return compact.CheckCopyOptions(nil, compact.CopyOptions{}) }},
		{entry: "compact.CheckCopyOptions", input: "17 vectors per thread", want: inval, msg: "17 uvec4", call: func() error { return compact.CheckCopyOptions(ctx, compact.CopyOptions{VecsPerThread: 17}) }},
		{entry: "compact.RecordCopy", input: "nil Recorder", want: inval, msg: "nil Recorder", call: func() error {
			compact.RecordCopy(nilRec, a.Range(1024, 400), a.Range(0, 400), compact.CopyOptions{})
			return nilRec.Err()
		}},
		{entry: "compact.RecordCopyCount", input: "0-byte elements", want: inval, msg: "0-byte elements", call: copyCount(a.Range(1024, 400), a.Range(0, 400), a.Range(3072, 4), 0)},
		{entry: "compact.RecordCopyCount", input: "6-byte elements", want: inval, msg: "6-byte elements", call: copyCount(a.Range(1024, 396), a.Range(0, 396), a.Range(3072, 4), 6)},
		{entry: "compact.RecordCopyCount", input: "count of 2 bytes", want: inval, msg: "count range has 2 bytes", call: copyCount(a.Range(1024, 400), a.Range(0, 400), a.Range(3072, 2), 4)},
		{entry: "compact.RecordCopyCount", input: "nil count buffer", want: inval, msg: "count: vk: invalid argument: nil buffer", call: copyCount(a.Range(1024, 400), a.Range(0, 400), vk.Range{Size: 4}, 4)},
		{entry: "compact.RecordCopyCount", input: "400 bytes of 12-byte elements", want: inval, msg: "not a whole number of 12-byte elements", call: copyCount(a.Range(1024, 400), a.Range(0, 400), a.Range(3072, 4), 12)},
	}
	for _, c := range cases {
		if align < 8 && strings.Contains(c.input, "not aligned") {
			continue
		}
		checkBad(t, c)
		unchanged(t, c.entry+": "+c.input, watched)
	}
	if !slices.Equal(data, dataCopy) {
		t.Error("a Slice helper modified the caller's slice")
	}
	// The good buffers work, so the failures were the edits'.
	if _, err := plan.Run(good); err != nil {
		t.Fatalf("the good buffers: %v", err)
	}
	if _, err := scan.Run(goodScan); err != nil {
		t.Fatalf("the good scan buffers: %v", err)
	}

	// After the context's Release.
	other.Release()
	for _, c := range []badCase{
		{entry: "compact.NewPlan", input: "released context", want: vk.ErrReleased, msg: "after Release", call: func() error { _, err := compact.NewPlan(other, 10, u32); return err }},
		{entry: "compact.Plan.Run", input: "plan of a released context", want: vk.ErrReleased, msg: "after Release", call: func() error {
			_, err := foreignPlan.Run(compact.Buffers{Src: foreign.Range(0, 400), Dst: foreign.Range(1024, 400)})
			return err
		}},
		{entry: "compact.ScanPlan.Run", input: "plan of a released context", want: vk.ErrReleased, msg: "after Release", call: func() error {
			_, err := foreignScan.Run(compact.ScanBuffers{Src: foreign.Range(0, 400), Dst: foreign.Range(1024, 400)})
			return err
		}},
		{entry: "compact.Slice", input: "released context", want: vk.ErrReleased, msg: "after Release", call: func() error { _, _, err := compact.Slice(other, data, u32); return err }},
		{entry: "compact.ScanSlice", input: "released context", want: vk.ErrReleased, msg: "after Release", call: func() error { _, _, err := compact.ScanSlice(other, data, compact.Scan{}); return err }},
		{entry: "compact.Copy", input: "released context", want: vk.ErrReleased, msg: "after Release", call: func() error {
			return compact.Copy(other, foreign.Range(1024, 400), foreign.Range(0, 400), compact.CopyOptions{})
		}},
		{entry: "compact.CheckCopyOptions", input: "released context", want: vk.ErrReleased, msg: "after Release", call: func() error {
			return compact.CheckCopyOptions(other, compact.CopyOptions{WorkgroupSize: 64})
		}},
	} {
		checkBad(t, c)
	}
}

// TestReliabilityConcurrent shares one context between goroutines that
// upload and download, compact (Slice, and Select on a shared plan), sum
// and sort at once, checking every result; then does it again while the
// context is released under them: each call then either completes with
// the right result or reports ErrReleased.
func TestReliabilityConcurrent(t *testing.T) {
	for _, release := range []bool{false, true} {
		t.Run(fmt.Sprintf("release=%v", release), func(t *testing.T) {
			ctx := vktest.Open(t)
			seed := uint64(time.Now().UnixNano())
			t.Logf("seed %d", seed)
			shared, err := compact.NewPlan(ctx, 3000, compact.Selection{Elem: compact.Plain(compact.Uint32), Keep: compact.KeepMask(1)})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			var mu sync.Mutex
			var errs []error
			var done [5]int
			for g := range 5 {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(seed, uint64(g)))
					for i := range 8 {
						op := (g + i) % 5
						err := concurrentOp(ctx, shared, rng, op)
						mu.Lock()
						if err != nil {
							errs = append(errs, fmt.Errorf("goroutine %d, op %d: %w", g, op, err))
						} else {
							done[op]++
						}
						mu.Unlock()
						if err != nil && release {
							return
						}
					}
				})
			}
			if release {
				time.Sleep(30 * time.Millisecond)
				ctx.Release()
			}
			wg.Wait()
			t.Logf("completed per operation (upload, Slice, Select, ScanSlice, SortPairs): %v", done)
			for _, err := range errs {
				if !release || !errors.Is(err, vk.ErrReleased) {
					t.Error(err)
				}
			}
			if release {
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
	case 1: // Slice
		got, _, err := compact.Slice(ctx, data, compact.Selection{Elem: compact.Plain(compact.Uint32), Keep: compact.KeepMask(1)})
		if err != nil {
			return err
		}
		if !slices.Equal(got, odd) {
			return errors.New("Slice differs from the reference")
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
		sums, total, err := compact.ScanSlice(ctx, data, compact.Scan{})
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
		keys, got, err := radix.SortPairs(ctx, data, vals, radix.Sort{})
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
// 300.
func soakCount(t *testing.T) int {
	if s := os.Getenv("VKCOMPACT_SOAK"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("VKCOMPACT_SOAK=%q: want a positive count", s)
		}
		return n
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

var soakElems = []compact.Elem{
	compact.Plain(compact.Uint32), compact.Plain(compact.Int32), compact.Plain(compact.Float32),
	compact.Plain(compact.Uint64), compact.Plain(compact.Int64), compact.Plain(compact.Float64),
	compact.Struct(12, 4, compact.Int32), compact.Struct(32, 24, compact.Float64), compact.Struct(20, 16, compact.Uint32),
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
// Each is checked against the Go reference: the result block and the first
// and last output element always, the whole output every tenth. The Go
// heap (after a collection) and the context's device memory are logged at
// the start, every tenth of the run and at the end; the device memory
// must come back to its starting value exactly, the heap may grow by at
// most 16 MiB (the pipeline cache fills as new selections appear).
func TestReliabilitySoak(t *testing.T) {
	iters := soakCount(t)
	ctx := vktest.Open(t)
	rng := newRand(t)
	start := time.Now()

	slots := make([]*soakSlot, 6)
	for i := range slots {
		sel, _ := soakSelection(rng)
		p, err := compact.NewPlan(ctx, soakMax, sel)
		if err != nil {
			t.Fatal(err)
		}
		bytes := uint64(soakMax) * uint64(sel.Elem.Size())
		s := &soakSlot{sel: sel, plan: p, src: newBuf(t, ctx, bytes), dst: newBuf(t, ctx, bytes), flags: newBuf(t, ctx, 4*soakMax),
			result: newBuf(t, ctx, compact.ResultSize), scratch: newBuf(t, ctx, p.ScratchSize()), cntb: newBuf(t, ctx, 16)}
		slots[i] = s
	}
	var ms runtime.MemStats
	measure := func() (heap, device uint64) {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc, ctx.AllocatedBytes()
	}
	const mib = 1 << 20
	var heap0, dev0 uint64
	warm := min(50, iters/5)
	every := max(iters/10, 1)
	var kept, total, fresh int
	for i := 0; i < iters; i++ {
		if i == warm {
			heap0, dev0 = measure()
			t.Logf("soak start (after %d warm-up iterations): Go heap %.2f MiB, device memory %d bytes, %d pipelines", warm, float64(heap0)/mib, dev0, pipeline.For(ctx).Len())
		}
		n := rng.IntN(soakMax + 1)
		ratio := rng.Float64()
		var sel compact.Selection
		var c refConst
		var slot *soakSlot
		if rng.IntN(10) == 0 {
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
		size := uint64(sel.Elem.Size())
		var res compact.Result
		var out vk.Range
		var err error
		var temps []*vk.Buffer
		if slot == nil {
			res, out, temps, err = soakSelect(ctx, sel, data, rawFlags, n)
		} else {
			res, out, err = soakSlotRun(ctx, slot, data, rawFlags, n)
		}
		if err != nil {
			t.Fatalf("iteration %d (n=%d %v keep=%v split=%v inplace=%v): %v", i, n, sel.Elem, sel.Keep, sel.Split, sel.InPlace, err)
		}
		if int(res.Kept) != k || int(res.Total) != n || int(res.Rejected) != n-k {
			t.Fatalf("iteration %d: kept/rejected/total %d/%d/%d, want %d/%d/%d", i, res.Kept, res.Rejected, res.Total, k, n-k, n)
		}
		outBytes := uint64(len(want))
		if i%10 == 0 {
			got := make([]byte, outBytes)
			if err := vk.Download(out.Sub(0, outBytes), got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("iteration %d (n=%d %v keep=%v split=%v inplace=%v): output differs from the reference", i, n, sel.Elem, sel.Keep, sel.Split, sel.InPlace)
			}
		} else if outBytes > 0 {
			first, last := make([]byte, size), make([]byte, size)
			if err := vk.Download(out.Sub(0, size), first); err != nil {
				t.Fatal(err)
			}
			if err := vk.Download(out.Sub(outBytes-size, size), last); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first, want[:size]) || !bytes.Equal(last, want[outBytes-size:]) {
				t.Fatalf("iteration %d (n=%d %v keep=%v): first or last output element differs", i, n, sel.Elem, sel.Keep)
			}
		}
		for _, b := range temps {
			b.Release()
		}
		kept += k
		total += n
		if i > warm && (i-warm)%every == 0 {
			heap, dev := measure()
			t.Logf("soak %6d: Go heap %.2f MiB, device memory %d bytes, %d pipelines", i, float64(heap)/mib, dev, pipeline.For(ctx).Len())
			if dev != dev0 {
				t.Errorf("device memory %d bytes at iteration %d, %d at the start", dev, i, dev0)
			}
		}
	}
	heap, dev := measure()
	if iters <= warm {
		heap0, dev0 = heap, dev
	}
	t.Logf("soak end after %d compactions (%d on new plans; %d of %d elements kept) in %v: Go heap %.2f MiB (start %.2f), device memory %d bytes (start %d), %d pipelines",
		iters, fresh, kept, total, time.Since(start).Round(time.Millisecond), float64(heap)/mib, float64(heap0)/mib, dev, dev0, pipeline.For(ctx).Len())
	if dev != dev0 {
		t.Errorf("device memory grew from %d to %d bytes", dev0, dev)
	}
	if heap > heap0+16*mib {
		t.Errorf("Go heap grew from %.2f to %.2f MiB (tolerance 16 MiB)", float64(heap0)/mib, float64(heap)/mib)
	}
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
