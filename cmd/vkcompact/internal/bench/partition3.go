package bench

import (
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/vk"
)

// benchPartition3 times the three-way partition's anchor, partition3_u32: a three-way
// partition of n random uint32 keys by x < 0x55555555, then
// x < 0xaaaaaaaa, into three outputs (as CUB's DevicePartition::If with
// two selectors), each checked against a Go reference. keep is ignored:
// the row's keep_ratio is 1.
func benchPartition3(ctx *vk.Context, n uint64, _ float64, cfg benchConfig) (Row, error) {
	const op = "partition3_u32"
	part := compact.Partition3{Elem: vkcompact.Plain(vkcompact.Uint32),
		First: compact.KeepIf(compact.Less, compact.Uint(0x55555555)), Second: compact.KeepIf(compact.Less, compact.Uint(0xaaaaaaaa)),
		Options: compact.Options{Spins: cfg.selectOpts.Spins, WorkgroupSize: cfg.selectOpts.WorkgroupSize, LoadsPerLane: cfg.selectOpts.LoadsPerLane}}
	plan, err := compact.NewPartition3Plan(ctx, n, part)
	if err != nil {
		return Row{}, err
	}
	rng := rand.New(rand.NewPCG(38, n))
	in := make([]uint32, n)
	var want [3][]uint32
	for i := range in {
		x := rng.Uint32()
		in[i] = x
		switch {
		case x < 0x55555555:
			want[0] = append(want[0], x)
		case x < 0xaaaaaaaa:
			want[1] = append(want[1], x)
		default:
			want[2] = append(want[2], x)
		}
	}
	return setBench[compact.Partition3Buffers]{
		op: op, n: n, keep: 1, sets: setsFor(8 * n), stamps: uint32(len(plan.Phases()) + 1),
		prepare: func(s *bufferSets, b *compact.Partition3Buffers) error {
			if err := s.inOut(ctx, in, &b.Src, &b.First, bufSize{&b.Result, compact.Partition3ResultSize}, bufSize{&b.Scratch, plan.ScratchSize()},
				bufSize{&b.Second, 4 * n}, bufSize{&b.Rest, 4 * n}); err != nil {
				return err
			}
			if err := poison(ctx, b.Second); err != nil {
				return err
			}
			return poison(ctx, b.Rest)
		},
		record: plan.RecordTimed,
		check: func(b *compact.Partition3Buffers) error {
			res, err := compact.ReadPartition3Result(b.Result)
			if err != nil {
				return err
			}
			if int(res.First) != len(want[0]) || int(res.Second) != len(want[1]) || int(res.Rest) != len(want[2]) || uint64(res.Total) != n {
				return fmt.Errorf("%s: %d, %d and %d of %d, want %d, %d and %d of %d", op, res.First, res.Second, res.Rest, res.Total,
					len(want[0]), len(want[1]), len(want[2]), n)
			}
			for g, r := range []vk.Range{b.First, b.Second, b.Rest} {
				if err := checkWords(r, want[g], fmt.Sprintf("%s group %d", op, g+1)); err != nil {
					return err
				}
			}
			return nil
		},
		printPhases: func(w io.Writer, phases [][]float64) {
			printSelectPhases(w, fmt.Sprintf("%s n=%d", op, n), plan.Tuning(), phases)
		},
	}.run(ctx, cfg)
}
