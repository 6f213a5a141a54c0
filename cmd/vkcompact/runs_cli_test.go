package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/bench"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// runsRef returns the runs of data (size-byte elements whose key, of
// keySize bytes at keyOff, compares by eq: "keys" as the type does, with
// float32 keys when isF32, "bits", or "elements"): each run's first
// index and length.
func runsRef(data []byte, size, keyOff, keySize int, isF32 bool, eq string) (starts, lengths []uint32) {
	el := func(i int) []byte { return data[i*size : (i+1)*size] }
	same := func(i, j int) bool {
		a, b := el(i)[keyOff:keyOff+keySize], el(j)[keyOff:keyOff+keySize]
		switch {
		case eq == "elements":
			return bytes.Equal(el(i), el(j))
		case eq == "keys" && isF32:
			return math.Float32frombits(binary.LittleEndian.Uint32(a)) == math.Float32frombits(binary.LittleEndian.Uint32(b))
		}
		return bytes.Equal(a, b)
	}
	for i := 0; i < len(data)/size; i++ {
		if i == 0 || !same(i, i-1) {
			starts, lengths = append(starts, uint32(i)), append(lengths, 0)
		}
		lengths[len(lengths)-1]++
	}
	return starts, lengths
}

// TestUniqueRLE runs unique, rle and rle -nontrivial on sorted uint32
// keys (.npy), float32 keys with NaNs and both zeros (raw), 12-byte
// structs by a key at byte 4 (raw), and empty inputs of both kinds, under
// each equality, and checks the outputs and the JSON against runsRef.
func TestUniqueRLE(t *testing.T) {
	requireDevice(t)
	rng := vktest.Rand(t)
	dir := vktest.TempDir(t)
	type input struct {
		name, descr          string
		data                 []byte
		size, keyOff, keySiz int
		isF32                bool
		args                 []string
	}
	var u32, f32, st []byte
	v := uint32(0)
	for i := range 5000 {
		if i == 0 || rng.IntN(8) == 0 {
			v += 1 + rng.Uint32N(8)
		}
		u32 = binary.LittleEndian.AppendUint32(u32, v)
	}
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), 1.5}
	for range 3001 {
		f32 = binary.LittleEndian.AppendUint32(f32, math.Float32bits(specials[rng.IntN(len(specials))]))
	}
	for i := range 2000 {
		key := uint32(i / 3)
		st = binary.LittleEndian.AppendUint32(st, rng.Uint32N(2))
		st = binary.LittleEndian.AppendUint32(st, key)
		st = binary.LittleEndian.AppendUint32(st, 7)
	}
	inputs := []input{
		{"sorted.npy", "<u4", u32, 4, 0, 4, false, nil},
		{"f32.raw", "", f32, 4, 0, 4, true, []string{"-type", "f32"}},
		{"structs.raw", "", st, 12, 4, 4, false, []string{"-stride", "12", "-key", "4:u32"}},
		{"empty.npy", "<u4", nil, 4, 0, 4, false, nil},
		{"empty-structs.raw", "", nil, 12, 4, 4, false, []string{"-stride", "12", "-key", "4:u32"}},
	}
	for _, in := range inputs {
		path := cliInput(t, dir, in.name, "<u4", in.data, in.size)
		for _, eq := range []string{"keys", "bits", "elements"} {
			starts, lengths := runsRef(in.data, in.size, in.keyOff, in.keySiz, in.isF32, eq)
			var keys, offs, lens, ntLens []byte
			for j, s := range starts {
				keys = append(keys, in.data[int(s)*in.size:(int(s)+1)*in.size]...)
				lens = binary.LittleEndian.AppendUint32(lens, lengths[j])
				if lengths[j] > 1 {
					offs = binary.LittleEndian.AppendUint32(offs, s)
					ntLens = binary.LittleEndian.AppendUint32(ntLens, lengths[j])
				}
			}
			ext, descr, u4 := ".raw", "", ""
			if in.descr != "" {
				ext, descr, u4 = ".npy", in.descr, "<u4"
			}
			out, lenOut := filepath.Join(dir, "out"+ext), filepath.Join(dir, "len"+ext)
			for _, c := range []struct {
				cmd     string
				extra   []string
				want    [][]byte
				descrs  []string
				runs, n int
			}{
				{"unique", nil, [][]byte{keys}, []string{descr}, len(starts), in.size},
				{"rle", []string{"-lengths", lenOut}, [][]byte{keys, lens}, []string{descr, u4}, len(starts), in.size},
				{"rle", []string{"-lengths", lenOut, "-nontrivial"}, [][]byte{offs, ntLens}, []string{u4, u4}, len(offs) / 4, 4},
			} {
				name := fmt.Sprintf("%s %v %s -equal %s", c.cmd, c.extra, in.name, eq)
				args := append([]string{c.cmd, "-in", path, "-out", out, "-equal", eq, "-json"}, append(in.args, c.extra...)...)
				code, stdout, stderr := runCLI(t, args...)
				if code != 0 {
					t.Fatalf("%s: exit %d: %s", name, code, stderr)
				}
				js := cliJSON(t, name, stdout)
				if fmt.Sprint(js["runs"]) != fmt.Sprint(c.runs) || fmt.Sprint(js["total"]) != fmt.Sprint(len(in.data)/in.size) {
					t.Errorf("%s: JSON %s, want %d runs", name, stdout, c.runs)
				}
				for k, p := range []string{out, lenOut}[:len(c.want)] {
					osize := 4
					if k == 0 {
						osize = c.n
					}
					if got := readOutput(t, p, c.descrs[k], len(c.want[k])/osize); !bytes.Equal(got, c.want[k]) {
						t.Errorf("%s: output %d (%s): %d bytes differ from the reference's %d", name, k, p, len(got), len(c.want[k]))
					}
				}
			}
		}
	}
}

// TestRunsBadInput runs the bad invocations of unique and rle (as
// TestBadInput does the other commands'): each exits 2 naming the
// problem, leaving no output and existing outputs as they were.
func TestRunsBadInput(t *testing.T) {
	dir := vktest.TempDir(t)
	p, _ := badInputFiles(t, dir)
	good := p["good.u32"]
	var cases []badCase
	for _, cmd := range []string{"unique", "rle"} {
		extra := []string{}
		if cmd == "rle" {
			extra = []string{"-lengths", "$VOUT"}
		}
		with := func(args ...string) []string { return append(append([]string{}, args...), extra...) }
		in := func(args ...string) []string { return with(append([]string{"-in", good, "-out", "$OUT"}, args...)...) }
		for _, c := range []badCase{
			{name: "missing -in", args: with("-out", "$OUT", "-type", "u32"), want: "missing -in FILE"},
			{name: "missing -out", args: with("-in", good, "-type", "u32"), want: "missing -out FILE"},
			{name: "unknown flag", args: in("-type", "u32", "-bogus"), want: "flag provided but not defined: -bogus"},
			{name: "unknown equality", args: in("-type", "u32", "-equal", "fuzzy"), want: `-equal: unknown equality "fuzzy" (want keys, bits or elements)`},
			{name: "no element type", args: in(), want: "missing -type T, or -stride BYTES and -key OFFSET:T"},
			{name: "unknown type", args: in("-type", "u16"), want: `-type: unknown type "u16"`},
			{name: "stride not a multiple of 4", args: in("-stride", "30", "-key", "0:u32"), want: "-stride 30: want a multiple of 4"},
			{name: "key past the stride", args: in("-stride", "8", "-key", "8:u32"), want: "does not fit in a 8-byte element"},
			{name: "input not whole elements", args: with("-in", p["odd.raw"], "-out", "$OUT", "-type", "u32"), want: "10 bytes is not a whole number of 4-byte elements"},
			{name: "npy wrong dtype", args: with("-in", p["f32.npy"], "-out", "$OUT", "-type", "u32"), want: "dtype '<f4' does not match -type u32"},
			{name: "-key a name on a plain array", args: with("-in", p["f32.npy"], "-out", "$OUT", "-key", "foo"), want: "-key foo names a field: -key FIELD needs a record array (a .npy of a structured dtype), and -in " + p["f32.npy"] + " is a plain array (dtype '<f4')"},
			{name: "device index out of range", args: in("-type", "u32", "-device", "99"), want: "device index 99 is out of range", late: true},
		} {
			c.cmd = cmd
			cases = append(cases, c)
		}
	}
	cases = append(cases,
		badCase{cmd: "rle", name: "missing -lengths", args: []string{"-in", good, "-out", "$OUT", "-type", "u32"}, want: "missing -lengths FILE"},
		badCase{cmd: "rle", name: "-out and -lengths the same", args: []string{"-in", good, "-out", "$OUT", "-lengths", "$OUT", "-type", "u32"}, want: "-out and -lengths name the same file"},
		badCase{cmd: "unique", name: "-lengths is rle's", args: []string{"-in", good, "-out", "$OUT", "-lengths", "$VOUT", "-type", "u32"}, want: "flag provided but not defined: -lengths"},
	)
	for _, c := range cases {
		checkBadCase(t, c, false)
		if c.late {
			checkBadCase(t, c, true)
		}
	}
}

// TestBenchRuns runs bench's unique_u32 and rle_u32, which check their
// outputs against Go themselves, once per keep ratio, with -phases.
func TestBenchRuns(t *testing.T) {
	requireDevice(t)
	code, out, errOut := runCLI(t, "bench", "-ops", "unique_u32,rle_u32", "-n", "8,13", "-keep", "0,0.5,1", "-reps", "2", "-warmup-ms", "0", "-json", "-phases")
	var rows []bench.Row
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 12 {
		t.Fatalf("bench -json: exit %d, %s %s", code, out, errOut)
	}
	ops := map[string]int{}
	for _, r := range rows {
		ops[r.Op]++
		if r.MsMedian <= 0 || (r.N != 256 && r.N != 8192) {
			t.Errorf("row %+v", r)
		}
	}
	if ops["unique_u32"] != 6 || ops["rle_u32"] != 6 {
		t.Errorf("rows by operation %v", ops)
	}
	if !strings.Contains(errOut, "# rle_u32 n=8192 keep=0.500: select ") {
		t.Errorf("no phases of rle_u32 in %q", errOut)
	}
}
