package pipeline_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/badinput"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
)

// TestReliabilityBadInput tries every public entry point of pipeline with
// bad arguments. Recording errors are sticky: the valid dispatch recorded
// after each bad one records nothing, and the destination it would have
// written stays poisoned.
func TestReliabilityBadInput(t *testing.T) {
	ctx := vktest.Open(t)
	other := vktest.Open(t)
	info := ctx.Info()
	cache := pipeline.For(ctx)
	p, err := cache.Get(copyKernel, 64, 1)
	if err != nil {
		t.Fatal(err)
	}
	foreignPipe, err := pipeline.For(other).Get(copyKernel, 64, 1)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := newWords(t, ctx, 256, newRand(t))
	dst, poison := newWords(t, ctx, 256, nil)
	foreign, _ := newWords(t, other, 256, nil)
	released, _ := newWords(t, ctx, 64, nil)
	released.Release()
	good := func(r *pipeline.Recorder) {
		r.Dispatch(p, 1, []uint32{256}, src.All(), dst.All(), src.All(), dst.All())
	}
	r4 := func(b vk.Range) []vk.Range { return []vk.Range{src.All(), dst.All(), b, dst.All()} }
	// run records bad, then the valid dispatch, through Run.
	run := func(bad func(r *pipeline.Recorder)) func() error {
		return func() error {
			return pipeline.Run(ctx, func(r *pipeline.Recorder) {
				bad(r)
				good(r)
				if d, _ := r.Stats(); d != 0 {
					t.Errorf("%d dispatches recorded after an error", d)
				}
			})
		}
	}
	dispatch := func(b vk.Range) func() error {
		return run(func(r *pipeline.Recorder) { r.Dispatch(p, 1, []uint32{16}, r4(b)...) })
	}
	indirect := func(args vk.Range) func() error {
		return run(func(r *pipeline.Recorder) { r.DispatchIndirect(p, args, []uint32{16}, r4(src.All())...) })
	}
	get := func(k *pipeline.Kernel, constants ...uint32) func() error {
		return func() error { _, err := cache.Get(k, constants...); return err }
	}
	var nilRec *pipeline.Recorder
	cases := []badinput.Case{
		{Entry: "pipeline.For(nil).Get", Input: "nil context", Want: vk.ErrInvalid, Msg: "nil context", Call: func() error { _, err := pipeline.For(nil).Get(copyKernel, 64, 1); return err }},
		{Entry: "Cache.Get", Input: "nil kernel", Want: vk.ErrInvalid, Msg: "kernel has no SPIR-V", Call: get(nil, 64)},
		{Entry: "Cache.Get", Input: "kernel without SPIR-V", Want: vk.ErrInvalid, Msg: "kernel has no SPIR-V", Call: get(&pipeline.Kernel{Name: "empty"}, 64)},
		{Entry: "Cache.Get", Input: "no constants", Want: vk.ErrInvalid, Msg: "workgroup size) is missing", Call: get(copyKernel)},
		{Entry: "Cache.Get", Input: "workgroup size 0", Want: vk.ErrInvalid, Msg: "workgroup size 0 outside", Call: get(copyKernel, 0, 1)},
		{Entry: "Cache.Get", Input: "workgroup above maxComputeWorkGroupInvocations", Want: vk.ErrInvalid, Msg: "outside 1..", Call: get(copyKernel, info.MaxWorkgroupInvocations+info.MaxSubgroupSize, 1)},
		{Entry: "Cache.Get", Input: "SPIR-V without the magic", Want: vk.ErrInvalid, Msg: "not SPIR-V", Call: get(&pipeline.Kernel{Name: "junk", SPIRV: []uint32{1, 2, 3}}, 64)},
		{Entry: "Cache.Get", Input: "33 bindings", Want: vk.ErrInvalid, Msg: "33 bindings", Call: get(&pipeline.Kernel{Name: "wide", SPIRV: copyKernel.SPIRV, Bindings: make([]pipeline.Use, 33), PushWords: 1}, 64, 1)},
		{Entry: "Cache.Get", Input: "push words above maxPushConstantsSize", Want: vk.ErrInvalid, Msg: "bytes of push constants", Call: get(&pipeline.Kernel{Name: "push", SPIRV: copyKernel.SPIRV, Bindings: copyKernel.Bindings, PushWords: int(info.MaxPushConstantsSize/4 + 1)}, 64, 1)},
		{Entry: "pipeline.Run", Input: "nil context", Want: vk.ErrInvalid, Msg: "one is nil", Call: func() error { return pipeline.Run(nil, good) }},
		{Entry: "pipeline.Run", Input: "nil record function", Want: vk.ErrInvalid, Msg: "one is nil", Call: func() error { return pipeline.Run(ctx, nil) }},
		{Entry: "Recorder.Dispatch", Input: "3 bindings for 4", Want: vk.ErrInvalid, Msg: "3 bindings given", Call: run(func(r *pipeline.Recorder) {
			r.Dispatch(p, 1, []uint32{16}, src.All(), dst.All(), src.All())
		})},
		{Entry: "Recorder.Dispatch", Input: "no push constants for 1 word", Want: vk.ErrInvalid, Msg: "0 push-constant words given", Call: run(func(r *pipeline.Recorder) {
			r.Dispatch(p, 1, nil, r4(src.All())...)
		})},
		{Entry: "Recorder.Dispatch", Input: "offset 4 (not a multiple of minStorageBufferOffsetAlignment)", Want: vk.ErrInvalid, Msg: "offset 4 is not a multiple of minStorageBufferOffsetAlignment", Call: dispatch(src.Range(4, 16))},
		{Entry: "Recorder.Dispatch", Input: "range past the end", Want: vk.ErrInvalid, Msg: "exceeds the", Call: dispatch(src.Range(1024, 16))},
		{Entry: "Recorder.Dispatch", Input: "empty range", Want: vk.ErrInvalid, Msg: "empty range", Call: dispatch(src.Range(0, 0))},
		{Entry: "Recorder.Dispatch", Input: "released buffer", Want: vk.ErrReleased, Msg: "after Release", Call: dispatch(released.All())},
		{Entry: "Recorder.Dispatch", Input: "nil buffer", Want: vk.ErrInvalid, Msg: "nil buffer", Call: dispatch(vk.Range{Size: 16})},
		{Entry: "Recorder.Dispatch", Input: "zero Buffer value", Want: vk.ErrInvalid, Msg: "nil buffer", Call: dispatch((&vk.Buffer{}).Range(0, 16))},
		{Entry: "Recorder.Dispatch", Input: "buffer of another context", Want: vk.ErrInvalid, Msg: "another context", Call: dispatch(foreign.Range(0, 16))},
		{Entry: "Recorder.Dispatch", Input: "pipeline of another context", Want: vk.ErrInvalid, Msg: "another context", Call: run(func(r *pipeline.Recorder) {
			r.Dispatch(foreignPipe, 1, []uint32{16}, r4(src.All())...)
		})},
		{Entry: "Recorder.Dispatch", Input: "nil pipeline", Want: vk.ErrInvalid, Msg: "nil pipeline", Call: run(func(r *pipeline.Recorder) { r.Dispatch(nil, 1, nil) })},
		{Entry: "Recorder.Dispatch", Input: "more workgroups than the grid holds", Want: vk.ErrInvalid, Msg: "exceed the device's", Call: run(func(r *pipeline.Recorder) {
			r.Dispatch(p, uint64(info.MaxWorkgroupCount[0])*uint64(info.MaxWorkgroupCount[1])+1, []uint32{16}, r4(src.All())...)
		})},
		{Entry: "Recorder.DispatchIndirect", Input: "nil argument buffer", Want: vk.ErrInvalid, Msg: "nil buffer", Call: indirect(vk.Range{Size: 12})},
		{Entry: "Recorder.DispatchIndirect", Input: "arguments at offset 2", Want: vk.ErrInvalid, Msg: "at offset 2: the offset must be a multiple of 4", Call: indirect(src.Range(2, 12))},
		{Entry: "Recorder.DispatchIndirect", Input: "8 bytes of arguments", Want: vk.ErrInvalid, Msg: "of 8 bytes: a VkDispatchIndirectCommand takes 12", Call: indirect(src.Range(0, 8))},
		{Entry: "Recorder.DispatchIndirect", Input: "arguments in another context", Want: vk.ErrInvalid, Msg: "indirect arguments in a buffer of another context", Call: indirect(foreign.Range(0, 12))},
		{Entry: "Recorder.DispatchIndirect", Input: "released argument buffer", Want: vk.ErrReleased, Msg: "after Release", Call: indirect(released.Range(0, 12))},
		{Entry: "Recorder.DispatchIndirect", Input: "nil pipeline", Want: vk.ErrInvalid, Msg: "nil pipeline", Call: run(func(r *pipeline.Recorder) { r.DispatchIndirect(nil, src.Range(0, 12), nil) })},
		{Entry: "pipeline.Record", Input: "zero CommandBuffer", Want: vk.ErrInvalid, Msg: "a zero CommandBuffer", Call: func() error {
			r := pipeline.Record(vk.CommandBuffer{})
			r.Dispatch(p, 1, []uint32{16}, r4(src.All())...)
			return r.Err()
		}},
		{Entry: "pipeline.Record", Input: "Context.Wrap(nil)", Want: vk.ErrInvalid, Msg: "Wrap: nil VkCommandBuffer", Call: func() error {
			r := pipeline.Record(ctx.Wrap(nil))
			r.Dispatch(p, 1, []uint32{16}, r4(src.All())...)
			return r.Err()
		}},
		{Entry: "Recorder (nil)", Input: "Dispatch, Fail and Err on a nil Recorder", Want: vk.ErrInvalid, Msg: "nil Recorder", Call: func() error {
			nilRec.Dispatch(p, 1, []uint32{16}, r4(src.All())...)
			nilRec.DispatchIndirect(p, src.Range(0, 12), []uint32{16}, r4(src.All())...)
			nilRec.Fail(errors.New("x"))
			return nilRec.Err()
		}},
		{Entry: "pipeline.GridFor", Input: "more workgroups than the grid holds", Want: vk.ErrInvalid, Msg: "exceed the device's", Call: func() error {
			_, err := pipeline.GridFor(info, uint64(info.MaxWorkgroupCount[0])*uint64(info.MaxWorkgroupCount[1])+1)
			return err
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
		cases = append(cases, badinput.Case{Entry: "Recorder.Dispatch", Input: "range above maxStorageBufferRange", Want: vk.ErrInvalid, Msg: "exceed maxStorageBufferRange", Call: dispatch(big.All())})
	}
	if ctx.FullSubgroups() && info.MaxSubgroupSize > 1 {
		cases = append(cases, badinput.Case{Entry: "Cache.Get", Input: "workgroup not a multiple of the subgroup size (full subgroups)", Want: vk.ErrInvalid, Msg: "not a multiple of the largest subgroup size", Call: get(copyKernel, info.MaxSubgroupSize+1, 1)})
	}
	for _, c := range cases {
		if info.MinStorageBufferOffsetAlignment <= 4 && strings.HasPrefix(c.Input, "offset 4") {
			continue
		}
		badinput.Check(t, c)
		if got := download(t, dst); !slices.Equal(got, poison) {
			t.Errorf("%s: %s: the destination was written", c.Entry, c.Input)
		}
	}
	if err := pipeline.Run(ctx, good); err != nil {
		t.Fatalf("the valid dispatch alone: %v", err)
	}

	// After Release.
	other.Release()
	badinput.Check(t, badinput.Case{Entry: "Cache.Get", Input: "after the context's Release", Want: vk.ErrReleased, Msg: "after Release", Call: func() error {
		_, err := pipeline.For(other).Get(copyKernel, 128, 1)
		return err
	}})
	badinput.Check(t, badinput.Case{Entry: "pipeline.Run", Input: "after the context's Release", Want: vk.ErrReleased, Msg: "after Release", Call: func() error {
		return pipeline.Run(other, func(*pipeline.Recorder) {})
	}})
}
