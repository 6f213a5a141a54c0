package compact_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/faults"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/scan"
	"github.com/vkcompact/vkcompact/vk"
)

// TestFaultAllocation makes every vkAllocateMemory in the middle of
// SelectSlice, Plan.Run and ScanSlice fail in turn (through the internal/faults
// seam at the Vulkan call), each run otherwise checked against the Go
// reference; vktest checks at Release that the layer saw nothing wrong.
func TestFaultAllocation(t *testing.T) {
	ctx := vktest.Open(t)
	rng := vktest.Rand(t)
	const n = 3001
	data := make([]uint32, n)
	for i := range data {
		data[i] = rng.Uint32() & 7 // 1 in 8 zero
	}
	original := slices.Clone(data)
	kept := slices.DeleteFunc(slices.Clone(data), func(v uint32) bool { return v == 0 })
	sel := compact.Selection{Keep: compact.KeepNonZero()}
	plan, err := compact.NewPlan(ctx, n, sel)
	if err != nil {
		t.Fatal(err)
	}
	src, dst := vktest.NewPoisoned(t, ctx, 4*n), vktest.NewPoisoned(t, ctx, 4*n)
	if err := vk.Upload(src.All(), data); err != nil {
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
	inputIntact := func() error {
		if !slices.Equal(data, original) {
			return errors.New("the input slice changed")
		}
		return nil
	}
	sums := make([]uint32, n)
	var total uint32
	for i, v := range data {
		sums[i] = total
		total += v
	}
	for _, op := range []vktest.FaultOp{
		{Name: "compact.SelectSlice", Run: func() error {
			got, res, err := compact.SelectSlice(ctx, data, sel)
			if err == nil && (!slices.Equal(got, kept) || int(res.Kept) != len(kept)) {
				return fmt.Errorf("%d kept, want %d, or they differ", res.Kept, len(kept))
			}
			return err
		}, Untouched: inputIntact},
		{Name: "compact.Plan.Run", Before: func() {
			if err := vk.Upload(dst.All(), poison); err != nil {
				t.Fatal(err)
			}
		}, Run: func() error {
			res, err := plan.Run(compact.Buffers{Src: src.All(), Dst: dst.All()}) // Result and Scratch allocated for the call
			if err == nil && (int(res.Kept) != len(kept) || !slices.Equal(download(dst)[:len(kept)], kept)) {
				return fmt.Errorf("%d kept, want %d, or they differ", res.Kept, len(kept))
			}
			return err
		}, Untouched: func() error {
			if !slices.Equal(download(src), original) {
				return errors.New("the source buffer changed")
			}
			if !slices.Equal(download(dst), poison) {
				return errors.New("the destination buffer was written")
			}
			return nil
		}},
		{Name: "scan.ScanSlice", Run: func() error {
			got, sum, err := scan.ScanSlice(ctx, data, scan.Scan{})
			if err == nil && (!slices.Equal(got, sums) || sum != total) {
				return errors.New("the sums differ from the reference")
			}
			return err
		}, Untouched: inputIntact},
	} {
		vktest.FailEach(t, ctx, "vkAllocateMemory", faults.ErrorOutOfDeviceMemory, vk.ErrOutOfDeviceMemory, op)
	}
}
