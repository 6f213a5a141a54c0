package runs_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/runs"
	"github.com/vkcompact/vkcompact/vk"
)

// FuzzEncode runs random encodings, (n, seed, repeat, key type, stride,
// mode), against the Go reference: repeat/255 is the chance that an
// element repeats the one before it. mode's bits choose: 0-1 the
// equality; 2 NonTrivial rather than Encode; 3 the three phases rather
// than the single pass; 4-5 Lengths (auto, in the selection, finish); 6
// the scattered write (three phases) or workgroups of four subgroups
// (single pass); 7 a count taken on the GPU (0, a third, all or past
// n). The plans the options rule out are legitimate refusals, which must
// name what they refuse: the lengths in the selection with NonTrivial or
// with the scattered write, and an unknown Lengths.
func FuzzEncode(f *testing.F) {
	f.Add(uint32(0), uint64(1), uint8(128), uint8(0), uint8(0), uint8(0))
	f.Add(uint32(4097), uint64(2), uint8(250), uint8(2), uint8(0), uint8(0b0001_1000))
	f.Add(uint32(5001), uint64(3), uint8(100), uint8(5), uint8(3), uint8(0b1010_0001))
	f.Add(uint32(777), uint64(5), uint8(200), uint8(1), uint8(5), uint8(0b0110_1110))
	ctx := vktest.Open(f)
	f.Fuzz(func(t *testing.T, n uint32, seed uint64, repeat, typ, stride, mode uint8) {
		n %= 1 << 16
		types := []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64, vkcompact.Int64, vkcompact.Float64}
		key := types[int(typ)%len(types)]
		size := key.Size() + 4*uint32(stride%8)
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		off := 4 * rng.Uint32N((size-key.Size())/4+1)
		enc := runs.Encoding{Elem: vkcompact.Struct(size, off, key), Equal: compact.Equality(mode & 3 % 3), Lengths: runs.Lengths(mode>>4) & 3,
			Options: compact.Options{Path: vkcompact.PathSinglePass}}
		if mode&4 != 0 {
			enc.Op = runs.NonTrivial
		}
		if mode&8 != 0 {
			enc.Path = vkcompact.PathThreePhase
			if mode&64 != 0 {
				enc.Write = compact.WriteScattered
			}
		} else if mode&64 != 0 {
			enc.WorkgroupSize = 4 * ctx.Info().MaxSubgroupSize
		}
		c := rlCase{n: int(n), enc: enc, repeat: float64(repeat) / 255}
		if mode&128 != 0 {
			c.gpuCount = true
			c.count = []uint32{0, n / 3, n, n + 5}[rng.IntN(4)]
		}
		if _, err := runs.NewPlan(ctx, uint64(n), enc); err != nil {
			legit := enc.Lengths > runs.LengthsFinish && strings.Contains(err.Error(), "unknown Lengths") ||
				enc.Lengths == runs.LengthsInSelection && enc.Op == runs.NonTrivial && strings.Contains(err.Error(), "applies to Encode") ||
				enc.Lengths == runs.LengthsInSelection && enc.Write == compact.WriteScattered && strings.Contains(err.Error(), "staged write")
			if errors.Is(err, vk.ErrInvalid) && legit {
				return
			}
			t.Fatalf("%v: %v", c, err)
		}
		if err := tryCase(t, ctx, rng, c); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
	})
}
