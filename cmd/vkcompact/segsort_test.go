package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// segsortRun is one run of segsort: the keys' type and count, the
// segments (offsets, or -segment when segment is set), the order, the
// values and the bits.
type segsortRun struct {
	typ        vkcompact.Type
	n          int
	offsets    []uint32 // nil: -segment
	segment    int
	descending bool
	values     bool
	bits       string
	npyI4      bool // the offsets as a .npy of '<i4' (else '<u4', or raw for odd runs)
}

// TestSegsort runs segsort on every key type, with offsets from files
// (raw, .npy of uint32 and of int32, empty segments and keys outside
// them) and with -segment, alone and with values, and checks the outputs
// and the JSON against a Go stable sort of each segment.
func TestSegsort(t *testing.T) {
	requireDevice(t)
	rng := rand.New(rand.NewPCG(38, 1))
	runs := []segsortRun{
		{typ: vkcompact.Uint32, n: 5000, segment: 1024},
		{typ: vkcompact.Int32, n: 3000, offsets: []uint32{7, 7, 100, 100, 1500, 2990}, values: true, npyI4: true},
		{typ: vkcompact.Float32, n: 2000, offsets: []uint32{0, 1, 2, 2000}, descending: true, values: true},
		{typ: vkcompact.Uint64, n: 1000, segment: 33, bits: "5:40", values: true},
		{typ: vkcompact.Uint32, n: 0, offsets: []uint32{0, 0}},
		{typ: vkcompact.Uint32, n: 100, offsets: []uint32{50}},
	}
	for i, r := range runs {
		name := fmt.Sprintf("%v n=%d segment=%d offsets=%d descending=%v values=%v bits=%q", r.typ, r.n, r.segment, len(r.offsets), r.descending, r.values, r.bits)
		size := int(r.typ.Size())
		keys := cliSortKeys(rng, r.typ, r.n)
		dir, outDir := vktest.TempDir(t), vktest.TempDir(t)
		in := cliInput(t, dir, "keys.npy", npy.Dtype(r.typ), cliElems(keys, size), size)
		out := filepath.Join(outDir, "sorted.npy")
		args := []string{"segsort", "-in", in, "-out", out, "-json"}
		offsets := r.offsets
		if offsets == nil {
			args = append(args, "-segment", strconv.Itoa(r.segment))
			for o := 0; o < r.n; o += r.segment {
				offsets = append(offsets, uint32(o))
			}
			offsets = append(offsets, uint32(r.n))
		} else {
			o := make([]uint64, len(offsets))
			for k, x := range offsets {
				o[k] = uint64(x)
			}
			name, descr := "offsets.npy", "<u4"
			switch {
			case r.npyI4:
				descr = "<i4"
			case i%2 == 1:
				name = "offsets.raw"
			}
			args = append(args, "-offsets", cliInput(t, dir, name, descr, cliElems(o, 4), 4))
		}
		var valuesOut string
		if r.values {
			idx := make([]uint64, r.n)
			for k := range idx {
				idx[k] = uint64(k)
			}
			valuesOut = filepath.Join(outDir, "values.raw")
			args = append(args, "-values", cliInput(t, dir, "values.raw", "<u4", cliElems(idx, 4), 4), "-values-out", valuesOut)
		}
		if r.descending {
			args = append(args, "-descending")
		}
		lo, hi := uint32(0), 8*r.typ.Size()
		if r.bits != "" {
			args = append(args, "-bits", r.bits)
			fmt.Sscanf(r.bits, "%d:%d", &lo, &hi)
		}
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		js := cliJSON(t, name, stdout)
		cliCheckJSON(t, name, js, map[string]any{"op": "segsort", "type": r.typ.String(), "n": strconv.Itoa(r.n),
			"segments": strconv.Itoa(len(offsets) - 1), "descending": r.descending, "values": r.values,
			"begin_bit": fmt.Sprint(lo), "end_bit": fmt.Sprint(hi)})
		// The reference: each segment sorted stably, the rest in place.
		perm := make([]uint32, r.n)
		for k := range perm {
			perm[k] = uint32(k)
		}
		for s := 0; s+1 < len(offsets); s++ {
			a, b := offsets[s], offsets[s+1]
			for k, p := range cliSortRef(r.typ, keys[a:b], r.descending, lo, hi) {
				perm[int(a)+k] = a + p
			}
		}
		want := make([]uint64, r.n)
		for k, p := range perm {
			want[k] = keys[p]
		}
		if got := readOutput(t, out, cliNpyDescr(out, r.typ), r.n); !bytes.Equal(got, cliElems(want, size)) {
			t.Errorf("%s: the keys differ from the reference", name)
		}
		if r.values {
			got := readOutput(t, valuesOut, "", r.n)
			for k, p := range perm {
				if v := binary.LittleEndian.Uint32(got[4*k:]); v != p {
					t.Errorf("%s: value %d is %d, want %d (not stable?)", name, k, v, p)
					break
				}
			}
		}
	}
}

// segsortBadCases are segsort's: the segments, the offsets files and the
// flags it shares with sort.
func segsortBadCases(t *testing.T, dir string, p map[string]string) []badCase {
	files := map[string][]byte{
		"offdesc.raw":  cliElems([]uint64{0, 500, 400, 1000}, 4),
		"offpast.npy":  append(npyHeaderBytes("<u4", 2), cliElems([]uint64{0, 1001}, 4)...),
		"offneg.npy":   append(npyHeaderBytes("<i4", 3), cliElems([]uint64{0, 0xffffffff, 1000}, 4)...),
		"offf4.npy":    append(npyHeaderBytes("<f4", 2), cliElems([]uint64{0, 0}, 4)...),
		"offodd.raw":   make([]byte, 6),
		"offempty.raw": nil,
	}
	for name, b := range files {
		p[name] = filepath.Join(dir, name)
		writeTestFile(t, p[name], b)
	}
	good := p["good.u32"]
	with := func(args ...string) []string { return typedArgs(p, "u32", args...) }
	off := func(name string) []string { return with("-offsets", p[name]) }
	return forCommand("segsort", []badCase{
		{name: "no segments", args: with(), want: "missing -offsets FILE or -segment N"},
		{name: "both segment flags", args: with("-offsets", p["offdesc.raw"], "-segment", "4"), want: "-offsets and -segment both give the segments"},
		{name: "-segment 0", args: with("-segment", "0"), want: "-segment 0: want 1 to 4294967295"},
		{name: "-segment too large", args: with("-segment", "4294967296"), want: "-segment 4294967296: want 1 to"},
		{name: "-segment not a number", args: with("-segment", "x"), want: `invalid value "x" for flag -segment`},
		{name: "missing -type", args: []string{"-in", good, "-out", "$OUT", "-segment", "4"}, want: "missing -type T: u32, i32, f32 or u64"},
		{name: "i64", args: typedArgs(p, "i64", "-segment", "4"), want: "-type i64: segsort takes u32, i32, f32 or u64"},
		{name: "offsets decrease", args: off("offdesc.raw"), want: "offset 2 (400) is below offset 1 (500): offsets must not decrease"},
		{name: "offset past n", args: off("offpast.npy"), want: "offset 1 is 1001, past the 1000 keys"},
		{name: "negative offset", args: off("offneg.npy"), want: "offset 1 is negative (-1)"},
		{name: "offsets of floats", args: off("offf4.npy"), want: "dtype '<f4': offsets must be uint32 ('<u4') or int32 ('<i4')"},
		{name: "offsets not whole", args: off("offodd.raw"), want: "6 bytes is not a whole number of 4-byte offsets"},
		{name: "no offsets", args: off("offempty.raw"), want: "no offsets: segments need segments+1 offsets"},
		{name: "offsets 2-D", args: off("v2d.npy"), want: "shape (10, 100): want a 1-D array"},
		{name: "offsets corrupt", args: off("trunc.npy"), want: "corrupt .npy file"},
		{name: "no such offsets file", args: with("-offsets", filepath.Join(dir, "nope")), want: "-offsets: open " + filepath.Join(dir, "nope")},
		{name: "values too few", args: with("-segment", "4", "-values", p["v999.raw"], "-values-out", "$VOUT"), want: "holds 999 values for 1000 keys"},
		{name: "-values without -values-out", args: with("-segment", "4", "-values", p["v1000.npy"]), want: "-values FILE needs -values-out FILE"},
		{name: "same output twice", args: with("-segment", "4", "-values", p["v1000.npy"], "-values-out", "$OUT"), want: "-out and -values-out name the same file"},
		{name: "-bits past the key", args: with("-segment", "4", "-bits", "4:40"), want: "-bits 4:40: want 0 <= LO <= HI <= 32 for u32 keys"},
		{name: "extra argument", args: with("-segment", "4", "extra"), want: `unexpected argument "extra"`},
	})
}
