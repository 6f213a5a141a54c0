package radix_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

// TestLaneSerialSort sorts inputs a CPU device's PathAuto sorts
// lane-serially (Tuning.LaneSerial): every key type, keys and pairs,
// both directions, bit ranges (an odd number of passes among them, in
// place: the copy back), GPU counts below, at and past n (a lane's run
// cut inside, lanes left empty), sizes just past the one-workgroup sort,
// at a lane's edge and past it; each output checked against Go's stable
// sort with the slots past the count unwritten. In short runs too: odd
// GPU counts that leave the lanes after the count's empty (a lane's run
// ending on an odd key, where the 64-bit kernels load 32-bit keys two at
// a time), and pairs sorted in one pass of 8 bits or fewer (the 64-bit
// scatter's unpacked pairs: packing needs two passes). On a GPU the plans
// must not take it.
func TestLaneSerialSort(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	info := ctx.Info()
	// Where the plans move 64-bit words (Tuning.Words64: shaderInt64,
	// narrow subgroups, aligned offsets), the 32-bit kernels run too, as
	// on a device without them.
	words := []bool{radix.LanesWords64(ctx)}
	if words[0] && info.CPU() {
		words = append(words, false)
	}
	for _, words64 := range words {
		t.Run(fmt.Sprintf("words64=%v", words64), func(t *testing.T) {
			was := radix.SetLanesWords64(words64)
			if radix.LanesWords64(ctx) != words64 {
				t.Fatalf("64-bit words %v after setting them %v", radix.LanesWords64(ctx), words64)
			}
			defer radix.SetLanesWords64(was)
			laneSerialSorts(t, ctx, rng, words64)
		})
	}
}

func laneSerialSorts(t *testing.T, ctx *vk.Context, rng *rand.Rand, words64 bool) {
	info := ctx.Info()
	i := 0
	for _, typ := range keyTypes {
		for _, values := range []bool{false, true} {
			first := int(radix.SegmentCapacity(info, radix.SegmentedSort{Elem: vkcompact.Plain(typ), Values: values})) + 1
			sizes := []int{first, 65536 + 3, 3 * 65536}
			if vktest.Short() {
				sizes = []int{[]int{first, 20000, 65536 + 3}[i%3]}
			}
			for _, n := range sizes {
				s := radix.Sort{Elem: vkcompact.Plain(typ), Values: values, Descending: i%3 == 1}
				switch i % 4 {
				case 2:
					s.BeginBit, s.EndBit = 3, 19 // 2 passes of 8
				case 3:
					s.BeginBit, s.EndBit, s.InPlace = 1, 22, true // 3 passes of 7: in place, a copy back
				}
				p, err := radix.NewPlan(ctx, uint64(n), s)
				if err != nil {
					t.Fatal(err)
				}
				tu := p.Tuning()
				if tu.LaneSerial != info.CPU() {
					t.Fatalf("%v n=%d %+v: lane-serial %v on a %s device", typ, n, s, tu.LaneSerial, info.Type)
				}
				if tu.LaneSerial && (uint64(tu.Processors)*uint64(tu.WorkgroupSize)*uint64(tu.KeysPerLane) < uint64(n) || tu.Path != vkcompact.PathAuto) {
					t.Fatalf("%v n=%d: %+v does not cover the keys", typ, n, tu)
				}
				if tu.Words64 != (tu.LaneSerial && words64) {
					t.Fatalf("%v n=%d: 64-bit words %v, want %v (shaderInt64 %v)", typ, n, tu.Words64, tu.LaneSerial && words64, ctx.ShaderInt64())
				}
				c := sortCase{sort: s, keys: keyData(rng, typ, n, []string{"random", "few", "sorted"}[i%3])}
				if i%2 == 0 {
					c.gpuCount, c.count = true, []uint32{0, uint32(n/2 + 7), uint32(n), uint32(n + 9)}[i/2%4]
				}
				t.Run(fmt.Sprint(c), func(t *testing.T) { runSort(t, ctx, c) })
				i++
			}
		}
	}
	laneSerialEdges(t, ctx, rng, words64)
}

// laneSerialEdges sorts, lane-serially, odd GPU counts that leave lanes
// empty and pairs in one pass of at most 8 bits.
func laneSerialEdges(t *testing.T, ctx *vk.Context, rng *rand.Rand, words64 bool) {
	info := ctx.Info()
	for k, e := range []struct {
		sort   radix.Sort
		n      int
		count  uint32 // 0: no GPU count
		passes uint32
	}{
		{radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32)}, 65536 + 3, 20001, 4},
		{radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true, BeginBit: 3, EndBit: 11}, 20000, 0, 1},
		{radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint32), Values: true, EndBit: 5, Descending: true}, 65536 + 3, 30001, 1},
		{radix.Sort{Elem: vkcompact.Plain(vkcompact.Int32), Values: true, BeginBit: 24, EndBit: 32}, 3 * 65536, 12345, 1},
		{radix.Sort{Elem: vkcompact.Plain(vkcompact.Float32), BeginBit: 9, EndBit: 17}, 20000, 9999, 1},
		{radix.Sort{Elem: vkcompact.Plain(vkcompact.Uint64), Values: true, BeginBit: 60, EndBit: 64}, 20000, 7777, 1},
	} {
		if int(radix.SegmentCapacity(info, radix.SegmentedSort{Elem: vkcompact.Plain(e.sort.Elem.Key), Values: e.sort.Values})) >= e.n {
			t.Fatalf("%d keys fit the one-workgroup sort", e.n)
		}
		p, err := radix.NewPlan(ctx, uint64(e.n), e.sort)
		if err != nil {
			t.Fatal(err)
		}
		tu := p.Tuning()
		if tu.LaneSerial != info.CPU() {
			t.Fatalf("%+v n=%d: lane-serial %v on a %s device", e.sort, e.n, tu.LaneSerial, info.Type)
		}
		if !tu.LaneSerial {
			continue
		}
		if tu.Passes != e.passes || tu.Words64 != words64 {
			t.Fatalf("%+v n=%d: %d passes, 64-bit words %v; want %d, %v", e.sort, e.n, tu.Passes, tu.Words64, e.passes, words64)
		}
		lanes := uint64(tu.Processors) * uint64(tu.WorkgroupSize)
		if e.count != 0 && (e.count%2 == 0 || uint64(e.count)+uint64(tu.KeysPerLane) > lanes*uint64(tu.KeysPerLane)) {
			t.Fatalf("%+v n=%d: count %d is even or leaves no lane empty (%d lanes of %d keys)", e.sort, e.n, e.count, lanes, tu.KeysPerLane)
		}
		c := sortCase{sort: e.sort, keys: keyData(rng, e.sort.Elem.Key, e.n, []string{"random", "few"}[k%2]), gpuCount: e.count != 0, count: e.count}
		t.Run(fmt.Sprint(c), func(t *testing.T) { runSort(t, ctx, c) })
	}
}
