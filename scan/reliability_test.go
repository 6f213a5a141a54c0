package scan_test

import (
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/badinput"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/vk"
)

// TestReliabilityBadInput tries every public entry point of scan with bad
// arguments: each returns an error wrapping vk.ErrInvalid (or
// vk.ErrReleased) that names the problem, nothing panics, and the
// caller's buffers, all poisoned, are left as they were.
func TestReliabilityBadInput(t *testing.T) {
	ctx := vktest.Open(t)
	other := vktest.Open(t)
	info := ctx.Info()
	align := info.MinStorageBufferOffsetAlignment
	prefix, err := scan.NewPlan(ctx, 100, scan.Scan{})
	if err != nil {
		t.Fatal(err)
	}
	foreignScan, err := scan.NewPlan(other, 100, scan.Scan{})
	if err != nil {
		t.Fatal(err)
	}
	a := vktest.NewPoisoned(t, ctx, 4096)
	s := vktest.NewPoisoned(t, ctx, prefix.ScratchSize()+256)
	foreign := vktest.NewPoisoned(t, other, 4096)
	watched := map[*vk.Buffer][]byte{a: vktest.PoisonBytes(a.Size()), s: vktest.PoisonBytes(s.Size())}
	rng := vktest.Rand(t)
	data := make([]uint32, 100)
	for i := range data {
		data[i] = rng.Uint32()
	}
	dataCopy := slices.Clone(data)
	goodScan := scan.Buffers{Src: a.Range(0, 400), Dst: a.Range(1024, 400), Total: a.Range(2048, 4),
		Scratch: s.Range(0, prefix.ScratchSize())}
	scanRec := func(p *scan.Plan, edit func(b *scan.Buffers)) func() error {
		return func() error {
			b := goodScan
			edit(&b)
			return pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) })
		}
	}
	scanOpts := func(s scan.Scan) func() error {
		return func() error { _, _, err := scan.ScanSlice(ctx, data, s); return err }
	}
	var nilScan *scan.Plan
	var nilRec *pipeline.Recorder
	bigWG := info.MaxWorkgroupInvocations + info.MaxSubgroupSize
	inval := vk.ErrInvalid
	badinput.CheckAll(t, []badinput.Case{
		{Entry: "scan.NewPlan", Input: "nil context", Want: inval, Msg: "nil context", Call: func() error { _, err := scan.NewPlan(nil, 10, scan.Scan{}); return err }},
		{Entry: "scan.NewPlan", Input: "u64 elements", Want: inval, Msg: "must be u32, i32 or f32", Call: func() error {
			_, err := scan.NewPlan(ctx, 10, scan.Scan{Elem: vkcompact.Plain(vkcompact.Uint64)})
			return err
		}},
		{Entry: "scan.NewPlan", Input: "n = 2^32", Want: inval, Msg: "4294967296 elements", Call: func() error { _, err := scan.NewPlan(ctx, 1<<32, scan.Scan{}); return err }},
		{Entry: "scan.ScanSlice", Input: "workgroup not a multiple of the subgroup size", Want: inval, Msg: "not a multiple of the largest subgroup size", Call: scanOpts(scan.Scan{Options: scan.Options{WorkgroupSize: info.MaxSubgroupSize + 1}})},
		{Entry: "scan.ScanSlice", Input: "workgroup above maxComputeWorkGroupInvocations", Want: inval, Msg: "outside 1..", Call: scanOpts(scan.Scan{Options: scan.Options{WorkgroupSize: bigWG}})},
		{Entry: "scan.ScanSlice", Input: "5 loads per lane", Want: inval, Msg: "5 loads per lane", Call: scanOpts(scan.Scan{Options: scan.Options{LoadsPerLane: 5}})},
		{Entry: "scan.ScanSlice", Input: "nil context", Want: inval, Msg: "nil context", Call: func() error { _, _, err := scan.ScanSlice(nil, data, scan.Scan{}); return err }},
		{Entry: "scan.Plan.Record", Input: "no source", Want: inval, Msg: "no source buffer", Call: scanRec(prefix, func(b *scan.Buffers) { b.Src = vk.Range{} })},
		{Entry: "scan.Plan.Record", Input: "destination too small", Want: inval, Msg: "destination range of 396 bytes", Call: scanRec(prefix, func(b *scan.Buffers) { b.Dst.Size = 396 })},
		{Entry: "scan.Plan.Record", Input: "no total", Want: inval, Msg: "no total buffer", Call: scanRec(prefix, func(b *scan.Buffers) { b.Total = vk.Range{} })},
		{Entry: "scan.Plan.Record", Input: "total of 2 bytes", Want: inval, Msg: "total range of 2 bytes", Call: scanRec(prefix, func(b *scan.Buffers) { b.Total.Size = 2 })},
		{Entry: "scan.Plan.Record", Input: "scratch too small", Want: inval, Msg: "scratch range of 4 bytes", Call: scanRec(prefix, func(b *scan.Buffers) { b.Scratch.Size = 4 })},
		{Entry: "scan.Plan.Record", Input: "source and destination overlap", Want: inval, Msg: "source and destination ranges overlap", Call: scanRec(prefix, func(b *scan.Buffers) { b.Dst = a.Range(align, 400) })},
		{Entry: "scan.Plan.Record", Input: "total inside the destination", Want: inval, Msg: "total and destination ranges overlap", Call: scanRec(prefix, func(b *scan.Buffers) { b.Total = a.Range(1024+align, 4) })},
		{Entry: "scan.Plan.Record", Input: "count inside the total", Want: inval, Msg: "total and count ranges overlap", Call: scanRec(prefix, func(b *scan.Buffers) { b.Count = b.Total })},
		{Entry: "scan.Plan.Record", Input: "destination offset not aligned", Want: inval, Msg: "not a multiple of minStorageBufferOffsetAlignment", Call: scanRec(prefix, func(b *scan.Buffers) { b.Dst = a.Range(1028, 400) })},
		{Entry: "scan.Plan.Record", Input: "in place plan with a separate destination", Want: inval, Msg: "in place, the destination must be the source or left empty", Call: func() error {
			p, err := scan.NewPlan(ctx, 100, scan.Scan{InPlace: true})
			if err != nil {
				return err
			}
			return scanRec(p, func(*scan.Buffers) {})()
		}},
		{Entry: "scan.Plan.Record", Input: "plan of another context", Want: inval, Msg: "the plan was made for another context", Call: scanRec(foreignScan, func(*scan.Buffers) {})},
		{Entry: "scan.Plan.Record", Input: "nil plan", Want: inval, Msg: "scan: nil Plan", Call: scanRec(nilScan, func(*scan.Buffers) {})},
		{Entry: "scan.Plan.Record", Input: "nil Recorder", Want: inval, Msg: "nil Recorder", Call: func() error {
			prefix.Record(nilRec, goodScan)
			return nilRec.Err()
		}},
		{Entry: "scan.Plan.Run", Input: "nil plan", Want: inval, Msg: "scan: nil Plan", Call: func() error { _, err := nilScan.Run(goodScan); return err }},
		{Entry: "scan.Plan.Run", Input: "source in another context", Want: inval, Msg: "source: the buffer belongs to another context", Call: func() error {
			_, err := prefix.Run(scan.Buffers{Src: foreign.Range(0, 400), Dst: a.Range(1024, 400)})
			return err
		}},
	}, watched, align)
	if !slices.Equal(data, dataCopy) {
		t.Error("ScanSlice modified the caller's slice")
	}
	// The good buffers work, so the failures were the edits'.
	if _, err := prefix.Run(goodScan); err != nil {
		t.Fatalf("the good buffers: %v", err)
	}

	// After the context's Release.
	other.Release()
	for _, c := range []badinput.Case{
		{Entry: "scan.Plan.Run", Input: "plan of a released context", Want: vk.ErrReleased, Msg: "after Release", Call: func() error {
			_, err := foreignScan.Run(scan.Buffers{Src: foreign.Range(0, 400), Dst: foreign.Range(1024, 400)})
			return err
		}},
		{Entry: "scan.ScanSlice", Input: "released context", Want: vk.ErrReleased, Msg: "after Release", Call: func() error { _, _, err := scan.ScanSlice(other, data, scan.Scan{}); return err }},
	} {
		badinput.Check(t, c)
	}
	_ = vkcompact.Uint32
}
