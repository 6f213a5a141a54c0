package radix_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact/internal/faults"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// TestFaultAllocation makes every vkAllocateMemory in the middle of
// SortSlice, SortPairsSlice and Plan.Run fail in turn (through the
// internal/faults seam at the Vulkan call): each failure is
// ErrOutOfDeviceMemory, frees what the call had allocated and leaves the
// caller's slices and buffers as they were; each run that succeeds is
// checked against the Go reference, and vktest checks the validation
// layer's silence at Release.
func TestFaultAllocation(t *testing.T) {
	ctx := vktest.Open(t)
	rng := vktest.Rand(t)
	const n = 5003
	keys := make([]uint32, n)
	vals := make([]uint32, n)
	for i := range keys {
		keys[i], vals[i] = rng.Uint32()%1000, uint32(i)
	}
	origKeys, origVals := slices.Clone(keys), slices.Clone(vals)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(keys[a]) - int(keys[b]) })
	wantKeys, wantVals := make([]uint32, n), make([]uint32, n)
	for i, j := range order {
		wantKeys[i], wantVals[i] = keys[j], vals[j]
	}
	plan, err := radix.NewPlan(ctx, n, radix.Sort{})
	if err != nil {
		t.Fatal(err)
	}
	src, dst := vktest.NewPoisoned(t, ctx, 4*n), vktest.NewPoisoned(t, ctx, 4*n)
	if err := vk.Upload(src.All(), keys); err != nil {
		t.Fatal(err)
	}
	poison := slices.Repeat([]uint32{0xDEADBEEF}, n)
	download := func(b *vk.Buffer) []uint32 {
		out := make([]uint32, n)
		if err := vk.Download(b.All(), out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	slicesIntact := func() error {
		if !slices.Equal(keys, origKeys) || !slices.Equal(vals, origVals) {
			return errors.New("the input slices changed")
		}
		return nil
	}
	for _, op := range []vktest.FaultOp{
		{Name: "radix.SortSlice", Run: func() error {
			got, err := radix.SortSlice(ctx, keys, radix.Sort{})
			if err == nil && !slices.Equal(got, wantKeys) {
				return errors.New("the sorted keys differ from the reference")
			}
			return err
		}, Untouched: slicesIntact},
		{Name: "radix.SortPairsSlice", Run: func() error {
			gotKeys, gotVals, err := radix.SortPairsSlice(ctx, keys, vals, radix.Sort{})
			if err == nil && (!slices.Equal(gotKeys, wantKeys) || !slices.Equal(gotVals, wantVals)) {
				return errors.New("the sorted pairs differ from the reference")
			}
			return err
		}, Untouched: slicesIntact},
		{Name: "radix.Plan.Run", Before: func() {
			if err := vk.Upload(dst.All(), poison); err != nil {
				t.Fatal(err)
			}
		}, Run: func() error {
			err := plan.Run(radix.Buffers{Keys: src.All(), KeysOut: dst.All()}) // Scratch allocated for the call
			if err == nil && !slices.Equal(download(dst), wantKeys) {
				return errors.New("the sorted keys differ from the reference")
			}
			return err
		}, Untouched: func() error {
			if !slices.Equal(download(src), origKeys) {
				return errors.New("the keys buffer changed")
			}
			if !slices.Equal(download(dst), poison) {
				return errors.New("the output buffer was written")
			}
			return nil
		}},
	} {
		vktest.FailEach(t, ctx, "vkAllocateMemory", faults.ErrorOutOfDeviceMemory, vk.ErrOutOfDeviceMemory, op)
	}
}
