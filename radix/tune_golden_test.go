package radix

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/fakedev"
	"github.com/vkcompact/vkcompact/vk"
)

// The golden tunings: every choice tune makes (or its refusal) over a
// grid of fake devices, key counts, sorts and binding limits, rendered
// field by field and hashed per device, sort and limit into
// testdata/tune_golden.txt. The tuning is data and a pure function:
// a refactor of it must leave every line alike. Set
// VKCOMPACT_TUNE_GOLDEN=update to rewrite the file, and
// VKCOMPACT_TUNE_DUMP=path to write the rendered tunings in full (to
// diff a change).

const goldenPath = "testdata/tune_golden.txt"

// goldenSizes are the key counts: 0, every power of two to 2^30, odd
// sizes around the tuning's bounds, and sizes past one binding.
func goldenSizes() []uint64 {
	sizes := []uint64{0, 3, 1000, 4097, 100003, 150001, 1<<20 - 1, 1<<21 + 1, 1<<22 + 1, 1<<25 + 1, 1<<28 + 12345, 1<<31 + 1, 4294517760, 1 << 32}
	for e := range 31 {
		sizes = append(sizes, 1<<e)
	}
	return sizes
}

// goldenSorts are the sorts: key types and bit ranges as they are, and
// 32- and 64-bit keys alone and with values under each option.
func goldenSorts() []Sort {
	sorts := []Sort{
		{}, {Elem: vkcompact.Plain(vkcompact.Int32), Descending: true, InPlace: true}, {Elem: vkcompact.Plain(vkcompact.Float32), Values: true},
		{Elem: vkcompact.Plain(vkcompact.Uint32), BeginBit: 4, EndBit: 20}, {Elem: vkcompact.Plain(vkcompact.Int32), Values: true, BeginBit: 8, EndBit: 8},
		{Elem: vkcompact.Plain(vkcompact.Uint64), Values: true, BeginBit: 3, EndBit: 61}, {Elem: vkcompact.Plain(vkcompact.Int64)},
	}
	single, three := vkcompact.PathSinglePass, vkcompact.PathThreePhase
	for _, o := range []Options{
		{}, {Path: three}, {Path: single}, {DigitBits: 4}, {DigitBits: 5}, {DigitBits: 6}, {DigitBits: 7}, {DigitBits: 8},
		{KeysPerLane: 1}, {KeysPerLane: 8}, {KeysPerLane: 16}, {KeysPerLane: 32},
		{Counts: CountsFused}, {Counts: CountsSeparate}, {Tails: TailsHold}, {Tails: TailsWrite},
		{WorkgroupSize: 64}, {WorkgroupSize: 128}, {WorkgroupSize: 512}, {Processors: 17}, {Processors: 1000},
		{Path: single, Spins: -1}, {Path: single, Spins: 5, DigitBits: 6}, {Path: single, DigitBits: 4, KeysPerLane: 3},
		{Path: single, KeysPerLane: 16}, {Path: three, DigitBits: 7, KeysPerLane: 16},
		{Counts: CountsFused, DigitBits: 3, KeysPerLane: 1, WorkgroupSize: 64}, {Tails: TailsHold, Counts: CountsFused, DigitBits: 5},
	} {
		for _, s := range []Sort{keys32, pairs32, keys64, {Elem: vkcompact.Plain(vkcompact.Uint64), Values: true}} {
			sorts = append(sorts, with(s, o))
		}
	}
	return sorts
}

// renderTuning writes everything a plan's recording takes from its
// tuning, or the refusal.
func renderTuning(info vk.DeviceInfo, n uint64, s Sort, limit uint64) string {
	c, err := tuneWithin(info, n, s, limit)
	if err != nil {
		return "refused: " + err.Error()
	}
	out := renderConfig(c)
	// A CPU device's small sorts: one workgroup instead (Plan.one).
	if spec, ok := oneGroupShape(info, n, s); ok && c.passes > 0 {
		out += fmt.Sprintf(" oneGroup=%+v", spec)
	} else if sh, ok := lanesShapeFor(info, n, s); ok && c.passes > 0 {
		// The lane-serial sort instead (Plan.lanes).
		out += fmt.Sprintf(" lanes=%+v", sh)
	}
	return out
}

// renderConfig writes a tuning field by field.
func renderConfig(c config) string {
	var b strings.Builder
	procs, chunk, layout := c.procsChunkLayout()
	fmt.Fprintf(&b, "sort=%+v n=%d keyBytes=%d code=%d digits=%+v wg=%d kpl=%d subgroups=%d procs=%d chunk=%d layout=%+v tuning=%+v",
		c.sort, c.n, c.keyBytes, c.code, c.digits, c.wg, c.kpl, c.subgroups, procs, chunk, layout, c.tuning())
	if w := c.sweep; w != nil {
		fmt.Fprintf(&b, " onesweep spins=%d selfReset=%v status=%+v passes=[", w.spins, w.selfReset, w.status)
		for i := range c.passes {
			shift, width := c.sweepDigit(i)
			fmt.Fprintf(&b, " %d+%d", shift, width)
		}
	} else {
		t := c.three
		fmt.Fprintf(&b, " three-phase carry=%v fused=%v windows=%d/%d/%d passes=[", t.carry, t.fused, t.winProcs, t.winSlots, t.outWindows)
		for i := range c.passes {
			fmt.Fprintf(&b, " %d+%d counted=%v fuses=%v", c.shift(i), c.width(i), c.counted(i), c.fuses(i))
		}
	}
	b.WriteString(" ]")
	return b.String()
}

// TestTuneGolden checks the tunings against testdata/tune_golden.txt.
func TestTuneGolden(t *testing.T) {
	var dump *bufio.Writer
	if path := os.Getenv("VKCOMPACT_TUNE_DUMP"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		dump = bufio.NewWriter(f)
		defer dump.Flush()
	}
	var got strings.Builder
	sizes, sorts := goldenSizes(), goldenSorts()
	for di, info := range fakedev.All {
		for _, limit := range []uint64{0, 256 << 10} {
			for si, s := range sorts {
				h := sha256.New()
				for _, n := range sizes {
					line := fmt.Sprintf("%s limit=%d n=%d %s\n", info.Name, limit, n, renderTuning(info, n, s, limit))
					h.Write([]byte(line))
					if dump != nil {
						dump.WriteString(line)
					}
				}
				fmt.Fprintf(&got, "dev%d limit=%d sort%d %x\n", di, limit, si, h.Sum(nil)[:12])
			}
		}
	}
	if os.Getenv("VKCOMPACT_TUNE_GOLDEN") == "update" {
		if err := os.WriteFile(goldenPath, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	gotLines, wantLines := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
	if len(gotLines) != len(wantLines) {
		t.Fatalf("%d golden lines, want %d", len(gotLines), len(wantLines))
	}
	for i := range gotLines {
		if gotLines[i] != wantLines[i] {
			t.Errorf("tunings differ from the golden file: got %q, want %q (VKCOMPACT_TUNE_DUMP writes them in full)", gotLines[i], wantLines[i])
		}
	}
}
