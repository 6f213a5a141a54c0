package radix_test

import (
	"fmt"
	"github.com/vkcompact/vkcompact"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/radix"
)

// TestOneWorkgroupSort sorts inputs a CPU device's PathAuto sorts in one
// workgroup (Tuning.OneWorkgroup): every key type, keys and pairs, both
// directions, bit ranges, GPU counts below, at and past n, at the
// capacity's edge and one key past it (the three phases again); each
// output checked against Go with the slots past the count unwritten. On a
// GPU, and on SwiftShader past 2048 keys (the lane-serial sort's), the
// plans must not take it.
func TestOneWorkgroupSort(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	info := ctx.Info()
	i := 0
	for _, typ := range keyTypes {
		for _, values := range []bool{false, true} {
			capacity := radix.SegmentCapacity(info, radix.SegmentedSort{Elem: vkcompact.Plain(typ), Values: values})
			sizes := []int{1, 2, 37, int(capacity), int(capacity) + 1}
			if vktest.Short() && i%2 == 1 {
				sizes = []int{5, int(capacity)}
			}
			for _, n := range sizes {
				s := radix.Sort{Elem: vkcompact.Plain(typ), Values: values, Descending: i%3 == 1}
				if i%4 == 2 {
					s.BeginBit, s.EndBit = 3, 19
				}
				p, err := radix.NewPlan(ctx, uint64(n), s)
				if err != nil {
					t.Fatal(err)
				}
				want := info.CPU() && n <= int(capacity) && (n <= 2048 || !strings.HasPrefix(info.Name, "SwiftShader")) // SwiftShader: lane-serial past 2048
				if tu := p.Tuning(); tu.OneWorkgroup != want || want && p.ScratchSize() != 0 {
					t.Fatalf("%v n=%d %+v: one workgroup %v (scratch %d), want %v", typ, n, s, tu.OneWorkgroup, p.ScratchSize(), want)
				}
				c := sortCase{sort: s, keys: keyData(rng, typ, n, []string{"random", "few", "sorted"}[i%3])}
				if i%2 == 0 {
					c.gpuCount, c.count = true, []uint32{0, uint32(n / 2), uint32(n), uint32(n + 9)}[i/2%4]
				}
				t.Run(fmt.Sprint(c), func(t *testing.T) { runSort(t, ctx, c) })
				i++
			}
		}
	}
}
