package pipeline_test

import (
	"errors"
	"github.com/vkcompact/vkcompact/internal/badinput"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/vk"
	"github.com/vkcompact/vkcompact/vk/vktest"
)

// badCase is one bad input of the table (internal/badinput.Case; a type of
// this package, so the table may list its fields in order).
type badCase struct {
	Entry, Input string
	Want         error
	Msg          string
	Call         func() error
}

func checkBad(t *testing.T, c badCase) {
	t.Helper()
	badinput.Check(t, badinput.Case(c))
}

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
	cases := []badCase{
		{"pipeline.For(nil).Get", "nil context", vk.ErrInvalid, "nil context", func() error { _, err := pipeline.For(nil).Get(copyKernel, 64, 1); return err }},
		{"Cache.Get", "nil kernel", vk.ErrInvalid, "kernel has no SPIR-V", get(nil, 64)},
		{"Cache.Get", "kernel without SPIR-V", vk.ErrInvalid, "kernel has no SPIR-V", get(&pipeline.Kernel{Name: "empty"}, 64)},
		{"Cache.Get", "no constants", vk.ErrInvalid, "workgroup size) is missing", get(copyKernel)},
		{"Cache.Get", "workgroup size 0", vk.ErrInvalid, "workgroup size 0 outside", get(copyKernel, 0, 1)},
		{"Cache.Get", "workgroup above maxComputeWorkGroupInvocations", vk.ErrInvalid, "outside 1..", get(copyKernel, info.MaxWorkgroupInvocations+info.MaxSubgroupSize, 1)},
		{"Cache.Get", "SPIR-V without the magic", vk.ErrInvalid, "not SPIR-V", get(&pipeline.Kernel{Name: "junk", SPIRV: []uint32{1, 2, 3}}, 64)},
		{"Cache.Get", "33 bindings", vk.ErrInvalid, "33 bindings", get(&pipeline.Kernel{Name: "wide", SPIRV: copyKernel.SPIRV, Bindings: make([]pipeline.Use, 33), PushWords: 1}, 64, 1)},
		{"Cache.Get", "push words above maxPushConstantsSize", vk.ErrInvalid, "bytes of push constants", get(&pipeline.Kernel{Name: "push", SPIRV: copyKernel.SPIRV, Bindings: copyKernel.Bindings, PushWords: int(info.MaxPushConstantsSize/4 + 1)}, 64, 1)},
		{"pipeline.Run", "nil context", vk.ErrInvalid, "one is nil", func() error { return pipeline.Run(nil, good) }},
		{"pipeline.Run", "nil record function", vk.ErrInvalid, "one is nil", func() error { return pipeline.Run(ctx, nil) }},
		{"Recorder.Dispatch", "3 bindings for 4", vk.ErrInvalid, "3 bindings given", run(func(r *pipeline.Recorder) {
			r.Dispatch(p, 1, []uint32{16}, src.All(), dst.All(), src.All())
		})},
		{"Recorder.Dispatch", "no push constants for 1 word", vk.ErrInvalid, "0 push-constant words given", run(func(r *pipeline.Recorder) {
			r.Dispatch(p, 1, nil, r4(src.All())...)
		})},
		{"Recorder.Dispatch", "offset 4 (not a multiple of minStorageBufferOffsetAlignment)", vk.ErrInvalid, "offset 4 is not a multiple of minStorageBufferOffsetAlignment", dispatch(src.Range(4, 16))},
		{"Recorder.Dispatch", "range past the end", vk.ErrInvalid, "exceeds the", dispatch(src.Range(1024, 16))},
		{"Recorder.Dispatch", "empty range", vk.ErrInvalid, "empty range", dispatch(src.Range(0, 0))},
		{"Recorder.Dispatch", "released buffer", vk.ErrReleased, "after Release", dispatch(released.All())},
		{"Recorder.Dispatch", "nil buffer", vk.ErrInvalid, "nil buffer", dispatch(vk.Range{Size: 16})},
		{"Recorder.Dispatch", "zero Buffer value", vk.ErrInvalid, "nil buffer", dispatch((&vk.Buffer{}).Range(0, 16))},
		{"Recorder.Dispatch", "buffer of another context", vk.ErrInvalid, "another context", dispatch(foreign.Range(0, 16))},
		{"Recorder.Dispatch", "pipeline of another context", vk.ErrInvalid, "another context", run(func(r *pipeline.Recorder) {
			r.Dispatch(foreignPipe, 1, []uint32{16}, r4(src.All())...)
		})},
		{"Recorder.Dispatch", "nil pipeline", vk.ErrInvalid, "nil pipeline", run(func(r *pipeline.Recorder) { r.Dispatch(nil, 1, nil) })},
		{"Recorder.Dispatch", "more workgroups than the grid holds", vk.ErrInvalid, "exceed the device's", run(func(r *pipeline.Recorder) {
			r.Dispatch(p, uint64(info.MaxWorkgroupCount[0])*uint64(info.MaxWorkgroupCount[1])+1, []uint32{16}, r4(src.All())...)
		})},
		{"Recorder.DispatchIndirect", "nil argument buffer", vk.ErrInvalid, "nil buffer", indirect(vk.Range{Size: 12})},
		{"Recorder.DispatchIndirect", "arguments at offset 2", vk.ErrInvalid, "at offset 2: the offset must be a multiple of 4", indirect(src.Range(2, 12))},
		{"Recorder.DispatchIndirect", "8 bytes of arguments", vk.ErrInvalid, "of 8 bytes: a VkDispatchIndirectCommand takes 12", indirect(src.Range(0, 8))},
		{"Recorder.DispatchIndirect", "arguments in another context", vk.ErrInvalid, "indirect arguments in a buffer of another context", indirect(foreign.Range(0, 12))},
		{"Recorder.DispatchIndirect", "released argument buffer", vk.ErrReleased, "after Release", indirect(released.Range(0, 12))},
		{"Recorder.DispatchIndirect", "nil pipeline", vk.ErrInvalid, "nil pipeline", run(func(r *pipeline.Recorder) { r.DispatchIndirect(nil, src.Range(0, 12), nil) })},
		{"pipeline.Record", "zero CommandBuffer", vk.ErrInvalid, "from another context", func() error {
			r := pipeline.Record(vk.CommandBuffer{})
			r.Dispatch(p, 1, []uint32{16}, r4(src.All())...)
			return r.Err()
		}},
		{"Recorder (nil)", "Dispatch, Fail and Err on a nil Recorder", vk.ErrInvalid, "nil Recorder", func() error {
			nilRec.Dispatch(p, 1, []uint32{16}, r4(src.All())...)
			nilRec.DispatchIndirect(p, src.Range(0, 12), []uint32{16}, r4(src.All())...)
			nilRec.Fail(errors.New("x"))
			return nilRec.Err()
		}},
		{"pipeline.GridFor", "more workgroups than the grid holds", vk.ErrInvalid, "exceed the device's", func() error {
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
		cases = append(cases, badCase{"Recorder.Dispatch", "range above maxStorageBufferRange", vk.ErrInvalid, "exceed maxStorageBufferRange", dispatch(big.All())})
	}
	if ctx.FullSubgroups() && info.MaxSubgroupSize > 1 {
		cases = append(cases, badCase{"Cache.Get", "workgroup not a multiple of the subgroup size (full subgroups)", vk.ErrInvalid, "not a multiple of the largest subgroup size",
			get(copyKernel, info.MaxSubgroupSize+1, 1)})
	}
	for _, c := range cases {
		if info.MinStorageBufferOffsetAlignment <= 4 && strings.HasPrefix(c.Input, "offset 4") {
			continue
		}
		checkBad(t, c)
		if got := download(t, dst); !slices.Equal(got, poison) {
			t.Errorf("%s: %s: the destination was written", c.Entry, c.Input)
		}
	}
	if err := pipeline.Run(ctx, good); err != nil {
		t.Fatalf("the valid dispatch alone: %v", err)
	}

	// After Release.
	other.Release()
	checkBad(t, badCase{"Cache.Get", "after the context's Release", vk.ErrReleased, "after Release", func() error {
		_, err := pipeline.For(other).Get(copyKernel, 128, 1)
		return err
	}})
	checkBad(t, badCase{"pipeline.Run", "after the context's Release", vk.ErrReleased, "after Release", func() error {
		return pipeline.Run(other, func(*pipeline.Recorder) {})
	}})
}
