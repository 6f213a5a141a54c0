package vkcompact_test

import (
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/badinput"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// TestReliabilityBadInput tries the copy and fill with bad arguments: each
// returns an error wrapping vk.ErrInvalid (or vk.ErrReleased) that names
// the problem, nothing panics, and the caller's buffers, all poisoned,
// are left as they were.
func TestReliabilityBadInput(t *testing.T) {
	ctx := vktest.Open(t)
	other := vktest.Open(t)
	info := ctx.Info()
	align := info.MinStorageBufferOffsetAlignment
	a := vktest.NewPoisoned(t, ctx, 4096)
	foreign := vktest.NewPoisoned(t, other, 4096)
	released := vktest.NewPoisoned(t, ctx, 4096)
	released.Release()
	watched := map[*vk.Buffer][]byte{a: vktest.PoisonBytes(a.Size())}
	copyRec := func(dst, src vk.Range, o transfer.CopyOptions) func() error {
		return func() error { return transfer.Copy(ctx, dst, src, o) }
	}
	copyCount := func(dst, src, count vk.Range, elemBytes uint32) func() error {
		return func() error {
			return pipeline.Run(ctx, func(r *pipeline.Recorder) {
				transfer.RecordCopyCount(r, dst, src, count, elemBytes, transfer.CopyOptions{})
			})
		}
	}
	fill := func(dst vk.Range) func() error {
		return func() error {
			return pipeline.Run(ctx, func(r *pipeline.Recorder) { transfer.RecordFill(r, dst, 7) })
		}
	}
	var nilRec *pipeline.Recorder
	bigWG := info.MaxWorkgroupInvocations + info.MaxSubgroupSize
	inval := vk.ErrInvalid
	badinput.CheckAll(t, []badinput.Case{
		{Entry: "vkcompact.Elem.Check", Input: "stride 6", Want: inval, Msg: "element stride 6 bytes", Call: vkcompact.Struct(6, 0, vkcompact.Uint32).Check},
		{Entry: "vkcompact.ParseType", Input: `"u16"`, Want: inval, Msg: `unknown type "u16"`, Call: func() error { _, err := vkcompact.ParseType("u16"); return err }},
		{Entry: "transfer.Copy", Input: "6 bytes (not whole words)", Want: inval, Msg: "not a whole number of 32-bit words", Call: copyRec(a.Range(1024, 6), a.Range(0, 6), transfer.CopyOptions{})},
		{Entry: "transfer.Copy", Input: "sizes differ", Want: inval, Msg: "copy of 400 bytes into a 396-byte destination", Call: copyRec(a.Range(1024, 396), a.Range(0, 400), transfer.CopyOptions{})},
		{Entry: "transfer.Copy", Input: "overlapping ranges", Want: inval, Msg: "and destination [256, 656) overlap", Call: copyRec(a.Range(256, 400), a.Range(0, 400), transfer.CopyOptions{})},
		{Entry: "transfer.Copy", Input: "source offset of 2 bytes", Want: inval, Msg: "copy from offset 2 to offset 1024: both must be multiples of 4", Call: copyRec(a.Range(1024, 400), a.Range(2, 400), transfer.CopyOptions{})},
		{Entry: "transfer.Copy", Input: "nil source buffer", Want: inval, Msg: "vkcompact: copy source: nil buffer", Call: copyRec(a.Range(1024, 400), vk.Range{Size: 400}, transfer.CopyOptions{})},
		{Entry: "transfer.Copy", Input: "released destination", Want: vk.ErrReleased, Msg: "vkcompact: copy destination: buffer used after Release", Call: copyRec(released.Range(0, 400), a.Range(0, 400), transfer.CopyOptions{})},
		{Entry: "transfer.Copy", Input: "destination in another context", Want: inval, Msg: "another context", Call: copyRec(foreign.Range(0, 400), a.Range(0, 400), transfer.CopyOptions{})},
		{Entry: "transfer.Copy", Input: "17 vectors per thread", Want: inval, Msg: "17 uvec4 per invocation", Call: copyRec(a.Range(1024, 400), a.Range(0, 400), transfer.CopyOptions{LoadsPerLane: 17})},
		{Entry: "transfer.Copy", Input: "workgroup above maxComputeWorkGroupInvocations", Want: inval, Msg: "outside 1..", Call: copyRec(a.Range(1024, 400), a.Range(0, 400), transfer.CopyOptions{WorkgroupSize: bigWG})},
		{Entry: "transfer.Copy", Input: "nil context", Want: inval, Msg: "one is nil", Call: func() error { return transfer.Copy(nil, a.Range(1024, 400), a.Range(0, 400), transfer.CopyOptions{}) }},
		{Entry: "transfer.CheckCopyOptions", Input: "nil context", Want: inval, Msg: "nil context", Call: func() error { return transfer.CheckCopyOptions(nil, transfer.CopyOptions{}) }},
		{Entry: "transfer.CheckCopyOptions", Input: "17 vectors per thread", Want: inval, Msg: "17 uvec4 per invocation", Call: func() error { return transfer.CheckCopyOptions(ctx, transfer.CopyOptions{LoadsPerLane: 17}) }},
		{Entry: "transfer.RecordCopy", Input: "nil Recorder", Want: inval, Msg: "nil Recorder", Call: func() error {
			transfer.RecordCopy(nilRec, a.Range(1024, 400), a.Range(0, 400), transfer.CopyOptions{})
			return nilRec.Err()
		}},
		{Entry: "transfer.RecordCopyCount", Input: "0-byte elements", Want: inval, Msg: "0-byte elements", Call: copyCount(a.Range(1024, 400), a.Range(0, 400), a.Range(3072, 4), 0)},
		{Entry: "transfer.RecordCopyCount", Input: "6-byte elements", Want: inval, Msg: "6-byte elements", Call: copyCount(a.Range(1024, 396), a.Range(0, 396), a.Range(3072, 4), 6)},
		{Entry: "transfer.RecordCopyCount", Input: "count of 2 bytes", Want: inval, Msg: "count range has 2 bytes", Call: copyCount(a.Range(1024, 400), a.Range(0, 400), a.Range(3072, 2), 4)},
		{Entry: "transfer.RecordCopyCount", Input: "count offset of 3074 bytes", Want: inval, Msg: "the count's offset 3074 is not a multiple of 4", Call: copyCount(a.Range(1024, 400), a.Range(0, 400), a.Range(3074, 4), 4)},
		{Entry: "transfer.RecordCopyCount", Input: "nil count buffer", Want: inval, Msg: "vkcompact: counted copy: count: nil buffer", Call: copyCount(a.Range(1024, 400), a.Range(0, 400), vk.Range{Size: 4}, 4)},
		{Entry: "transfer.RecordCopyCount", Input: "400 bytes of 12-byte elements", Want: inval, Msg: "not a whole number of 12-byte elements", Call: copyCount(a.Range(1024, 400), a.Range(0, 400), a.Range(3072, 4), 12)},
		{Entry: "transfer.RecordFill", Input: "6 bytes", Want: inval, Msg: "fill of 6 bytes: not a whole number", Call: fill(a.Range(0, 6))},
		{Entry: "transfer.RecordFill", Input: "nil buffer", Want: inval, Msg: "vkcompact: fill: nil buffer", Call: fill(vk.Range{Size: 4})},
		{Entry: "transfer.RecordFill", Input: "released buffer", Want: vk.ErrReleased, Msg: "vkcompact: fill: buffer used after Release", Call: fill(released.Range(0, 4))},
		{Entry: "transfer.RecordFill", Input: "offset not aligned", Want: inval, Msg: "not a multiple of minStorageBufferOffsetAlignment", Call: fill(a.Range(4, 4))},
	}, watched, align)

	// After the context's Release.
	other.Release()
	for _, c := range []badinput.Case{
		{Entry: "transfer.Copy", Input: "released context", Want: vk.ErrReleased, Msg: "after Release", Call: func() error {
			return transfer.Copy(other, foreign.Range(1024, 400), foreign.Range(0, 400), transfer.CopyOptions{})
		}},
		{Entry: "transfer.CheckCopyOptions", Input: "released context", Want: vk.ErrReleased, Msg: "after Release", Call: func() error {
			return transfer.CheckCopyOptions(other, transfer.CopyOptions{WorkgroupSize: 64})
		}},
	} {
		badinput.Check(t, c)
	}
}
