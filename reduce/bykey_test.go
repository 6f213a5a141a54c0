package reduce_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/reduce"
	"github.com/vkcompact/vkcompact/vk"
)

// byKeyCase is one reduction by key to run and check.
type byKeyCase struct {
	b            reduce.ByKey
	keys, values []uint64 // bits
	gpuCount     bool
	count        uint32
	// zeroScratch fills the scratch with zeros instead of Poison: tile
	// records of no flags, which a kernel that reads past the counted
	// tiles takes for a run going on.
	zeroScratch bool
}

func (c byKeyCase) String() string {
	s := fmt.Sprintf("%v n=%d %+v", c.b, len(c.keys), c.b.Options)
	if c.gpuCount {
		s += fmt.Sprintf(" gpucount=%d", c.count)
	}
	return s
}

// keyEq is compact.EqualKeys on key bits: integers by value, floats as
// IEEE 754.
func keyEq(typ vkcompact.Type, a, b uint64) bool {
	if typ == vkcompact.Float32 {
		return f32(a) == f32(b)
	}
	return a == b
}

// runKeys returns n keys of typ in runs: a new run starts with
// probability keep (its key differing from the last one), and with
// special set float keys mix NaNs (each a run of its own) and zeros of
// both signs (one run), u64 keys differ in one word only.
func runKeys(rng *rand.Rand, typ vkcompact.Type, n int, keep float64, special bool) []uint64 {
	out := make([]uint64, n)
	var k uint64
	for i := range out {
		if i == 0 || rng.Float64() < keep {
			switch {
			case typ == vkcompact.Float32 && special && rng.IntN(6) == 0:
				k = []uint64{0x7fc00000, 0, 0x80000000, 0xff800000}[rng.IntN(4)]
			case typ == vkcompact.Uint64 && rng.IntN(2) == 0:
				k ^= 1 << 32 << uint(rng.IntN(32))
			case typ == vkcompact.Float32:
				k = uint64(math.Float32bits(float32(rng.IntN(1000) - 500)))
			default:
				k = rng.Uint64()
				if typ != vkcompact.Uint64 {
					k = uint64(uint32(k))
				}
			}
		}
		out[i] = k
		if typ == vkcompact.Float32 && k&0x7fffffff == 0 && rng.IntN(2) == 0 {
			out[i] = k ^ 0x80000000 // the run's zeros of both signs
		}
	}
	return out
}

// refByKey is the reference: each run's first key and its values'
// reduction, and each run's bounds (for the float bound).
func refByKey(ktyp, vtyp vkcompact.Type, op reduce.Op, keys, values []uint64) (outK, outV []uint64, starts []int) {
	for i := range keys {
		if i == 0 || !keyEq(ktyp, keys[i-1], keys[i]) {
			starts = append(starts, i)
		}
	}
	for r, s := range starts {
		e := len(keys)
		if r+1 < len(starts) {
			e = starts[r+1]
		}
		v, _ := refReduce(vtyp, op, values[s:e])
		outK, outV = append(outK, keys[s]), append(outV, v)
	}
	return outK, outV, append(starts, len(keys))
}

func runByKey(t testing.TB, ctx *vk.Context, c byKeyCase) []uint64 {
	t.Helper()
	got, err := tryByKey(t, ctx, c)
	if err != nil {
		t.Fatalf("%v: %v", c, err)
	}
	return got
}

// tryByKey runs c over poisoned outputs and scratch and checks the keys,
// the values (past the runs still poisoned) and the result block; it
// returns the values for the callers that compare runs.
func tryByKey(t testing.TB, ctx *vk.Context, c byKeyCase) ([]uint64, error) {
	ktyp, vtyp := c.b.Elem.Key.OrUint32(), c.b.Value.OrUint32()
	n := uint64(len(c.keys))
	p, err := reduce.NewByKeyPlan(ctx, n, c.b)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	ks := uint64(ktyp.Size())
	var b reduce.ByKeyBuffers
	up := func(words []uint32, size uint64) (vk.Range, error) {
		r := vktest.NewPoisoned(t, ctx, size).Range(0, size)
		if size == 0 {
			return r, nil
		}
		return r, vk.Upload(r, words)
	}
	if b.Keys, err = up(words(ktyp, c.keys), n*ks); err != nil {
		return nil, err
	}
	if b.Values, err = up(words(vtyp, c.values), n*4); err != nil {
		return nil, err
	}
	ko, vo := vktest.NewPoisoned(t, ctx, n*ks+16), vktest.NewPoisoned(t, ctx, n*4+16)
	b.KeysOut, b.ValuesOut = ko.Range(0, n*ks), vo.Range(0, n*4)
	b.Result = vktest.NewPoisoned(t, ctx, reduce.ByKeyResultSize).Range(0, reduce.ByKeyResultSize)
	b.Scratch = vktest.NewPoisoned(t, ctx, p.ScratchSize()).Range(0, p.ScratchSize())
	if c.zeroScratch {
		if err := vk.Upload(b.Scratch, make([]byte, b.Scratch.Size)); err != nil {
			return nil, err
		}
	}
	m := n
	if c.gpuCount {
		m = min(n, uint64(c.count))
		cb := vktest.NewPoisoned(t, ctx, 16)
		if err := vk.Upload(cb.Range(0, 4), []uint32{c.count}); err != nil {
			return nil, err
		}
		b.Count = cb.Range(0, 4)
	}
	if err := pipeline.Run(ctx, func(r *pipeline.Recorder) { p.Record(r, b) }); err != nil {
		return nil, err
	}
	res, err := reduce.ReadByKeyResult(b.Result)
	if err != nil {
		return nil, err
	}
	wantK, wantV, starts := refByKey(ktyp, vtyp, c.b.Op, c.keys[:m], c.values[:m])
	if res.Runs != uint32(len(wantK)) || res.Total != uint32(m) {
		return nil, fmt.Errorf("%d runs of %d, want %d of %d", res.Runs, res.Total, len(wantK), m)
	}
	if err := checkBlock(b.Result, res.Runs, uint32(m), c.b.GroupSize, ctx.Info().MaxWorkgroupCount[0]); err != nil {
		return nil, err
	}
	rawK, rawV := make([]byte, ko.Size()), make([]byte, vo.Size())
	if err := vk.Download(ko.All(), rawK); err != nil {
		return nil, err
	}
	if err := vk.Download(vo.All(), rawV); err != nil {
		return nil, err
	}
	if w := binary.LittleEndian.Uint32(rawV[4*len(wantV):]); w != vktest.Poison {
		return nil, fmt.Errorf("the value past the runs is %#x: written", w)
	}
	got := make([]uint64, len(wantV))
	for r := range wantK {
		k := uint64(binary.LittleEndian.Uint32(rawK[4*r:]))
		if ktyp == vkcompact.Uint64 {
			k = binary.LittleEndian.Uint64(rawK[8*r:])
		}
		if k != wantK[r] {
			return nil, fmt.Errorf("run %d [%d, %d): key %#x, want %#x", r, starts[r], starts[r+1], k, wantK[r])
		}
		got[r] = uint64(binary.LittleEndian.Uint32(rawV[4*r:]))
		off := []uint32{uint32(starts[r]), uint32(starts[r+1])}
		tn := p.Tuning()
		if err := checkSegment(vtyp, c.b.Op, c.values, off, 0, got[r], wantV[r], reduce.SegmentedTuning{WorkgroupSize: tn.WorkgroupSize, Tile: tn.Tile}); err != nil {
			return nil, fmt.Errorf("run %d: %w", r, err)
		}
	}
	return got, nil
}

// checkBlock checks a reduction by key's result block, laid out as
// compact's: the runs, the elements less the runs, the elements; the
// dispatch arguments covering the runs in workgroups of groupSize (64 for
// 0), spread over x and y within maxX; the draw arguments.
func checkBlock(r vk.Range, runs, total, groupSize, maxX uint32) error {
	got := make([]uint32, reduce.ByKeyResultSize/4)
	if err := vk.Download(r, got); err != nil {
		return err
	}
	if groupSize == 0 {
		groupSize = 64
	}
	groups := (runs + groupSize - 1) / groupSize
	x, y := uint32(0), uint32(1)
	if groups > 0 {
		y = (groups-1)/maxX + 1
		x = (groups-1)/y + 1
	}
	want := []uint32{runs, total - runs, total, 0, x, y, 1, 0, runs, 1, 0, 0}
	if !slices.Equal(got, want) {
		return fmt.Errorf("result block %v, want %v", got, want)
	}
	return nil
}

var valueTypes = []vkcompact.Type{vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32}

// TestByKey runs sum, min and max of every value type by every key type,
// runs short and long (past many tiles), at sizes from none to many
// tiles, default and smallest tiles, the look-back's fallback at once and
// not, on fresh random data with the special float keys and values. The
// short form runs one op per key and value type, the ops taking turns.
func TestByKey(t *testing.T) {
	ctx := vktest.Shared(t)
	rng := vktest.Rand(t)
	info := ctx.Info()
	sizes := []int{0, 1, 2, 5, 100, 1023, 4097, 65537, 1<<20 + 4321}
	keeps := []float64{0, 0.001, 0.5, 1}
	if vktest.Short() {
		sizes = []int{0, 1, 5, 4097, 65537}
	}
	i := 0
	for ki, ktyp := range types {
		for vi, vtyp := range valueTypes {
			for oi, op := range []reduce.Op{reduce.Sum, reduce.Min, reduce.Max} {
				if vktest.Short() && (ki+vi)%3 != oi {
					continue
				}
				for _, n := range sizes {
					if n > 1<<16 && op != reduce.Sum {
						continue // the largest size for sums alone: the float sums' bound is widest there
					}
					b := reduce.ByKey{Elem: vkcompact.Plain(ktyp), Value: vtyp, Op: op}
					if i%2 == 1 {
						b.WorkgroupSize, b.LoadsPerLane = info.MaxSubgroupSize, 1
					}
					if i%3 == 1 {
						b.Spins = -1
					}
					keep := keeps[i%len(keeps)]
					i++
					c := byKeyCase{b: b, keys: runKeys(rng, ktyp, n, keep, true), values: randBits(rng, vtyp, n, i%4 == 0, true)}
					runByKey(t, ctx, c)
				}
			}
		}
	}
}
