package compact_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/faults"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/vk"
)

// TestPartition3FaultAllocation makes every vkAllocateMemory in the middle
// of Partition3Slice and Partition3Plan.Run fail in turn (the
// internal/faults seam), each run otherwise checked against the Go
// reference, and each failure leaving the caller's slice and buffers as
// they were.
func TestPartition3FaultAllocation(t *testing.T) {
	ctx := vktest.Open(t)
	rng := vktest.Rand(t)
	const n = 3001
	data := make([]uint32, n)
	var want [3][]uint32
	for i := range data {
		data[i] = rng.Uint32()
		g := 2
		if data[i] < 0x55555555 {
			g = 0
		} else if data[i] < 0xaaaaaaaa {
			g = 1
		}
		want[g] = append(want[g], data[i])
	}
	original := slices.Clone(data)
	part := part3Anchor()
	plan, err := compact.NewPartition3Plan(ctx, n, part)
	if err != nil {
		t.Fatal(err)
	}
	src := vktest.NewPoisoned(t, ctx, 4*n)
	outs := [3]*vk.Buffer{vktest.NewPoisoned(t, ctx, 4*n), vktest.NewPoisoned(t, ctx, 4*n), vktest.NewPoisoned(t, ctx, 4*n)}
	if err := vk.Upload(src.All(), data); err != nil {
		t.Fatal(err)
	}
	poison := vktest.PoisonWords(n)
	download := func(b *vk.Buffer) []uint32 {
		out := make([]uint32, n)
		if err := vk.Download(b.All(), out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, op := range []vktest.FaultOp{
		{Name: "compact.Partition3Slice", Run: func() error {
			f, s, r, _, err := compact.Partition3Slice(ctx, data, part)
			if err == nil && (!slices.Equal(f, want[0]) || !slices.Equal(s, want[1]) || !slices.Equal(r, want[2])) {
				return errors.New("the groups differ from the reference")
			}
			return err
		}, Untouched: func() error {
			if !slices.Equal(data, original) {
				return errors.New("the input slice changed")
			}
			return nil
		}},
		{Name: "compact.Partition3Plan.Run", Before: func() {
			for _, o := range outs {
				if err := vk.Upload(o.All(), poison); err != nil {
					t.Fatal(err)
				}
			}
		}, Run: func() error {
			res, err := plan.Run(compact.Partition3Buffers{Src: src.All(), First: outs[0].All(), Second: outs[1].All(), Rest: outs[2].All()})
			if err != nil {
				return err
			}
			for g, o := range outs {
				if k := []uint32{res.First, res.Second, res.Rest}[g]; int(k) != len(want[g]) || !slices.Equal(download(o)[:k], want[g]) {
					return fmt.Errorf("group %d: %d elements, want %d, or they differ", g, k, len(want[g]))
				}
			}
			return nil
		}, Untouched: func() error {
			if !slices.Equal(download(src), original) {
				return errors.New("the source buffer changed")
			}
			for g, o := range outs {
				if !slices.Equal(download(o), poison) {
					return fmt.Errorf("output %d was written", g)
				}
			}
			return nil
		}},
	} {
		vktest.FailEach(t, ctx, "vkAllocateMemory", faults.ErrorOutOfDeviceMemory, vk.ErrOutOfDeviceMemory, op)
	}
}
