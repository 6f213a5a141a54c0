package main

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// TestPartition3 runs partition3 on u32 keys in a .npy file and on
// 12-byte structs with an i32 key in a raw file, and checks the three
// output files and the JSON against a Go reference.
func TestPartition3(t *testing.T) {
	requireDevice(t)
	rng := vktest.Rand(t)
	for _, c := range []struct {
		name          string
		stride, key   int
		flags         []string
		npy           string // the input's dtype when it is a .npy file
		first, second func(k uint32) bool
	}{
		{"u32 npy", 4, 0, []string{"-first", "x < 0x55555555", "-second", "x < 0xaaaaaaaa"}, "<u4",
			func(k uint32) bool { return k < 0x55555555 }, func(k uint32) bool { return k < 0xaaaaaaaa }},
		{"i32 structs raw", 12, 8, []string{"-stride", "12", "-key", "8:i32", "-first", "x <= -5", "-second", "x & 1"}, "",
			func(k uint32) bool { return int32(k) <= -5 }, func(k uint32) bool { return k&1 != 0 }},
	} {
		n := 5000 + rng.IntN(5000)
		data := make([]byte, n*c.stride)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		var want [3][]byte
		for i := 0; i < n; i++ {
			el := data[i*c.stride : (i+1)*c.stride]
			k := binary.LittleEndian.Uint32(el[c.key:])
			g := 2
			if c.first(k) {
				g = 0
			} else if c.second(k) {
				g = 1
			}
			want[g] = append(want[g], el...)
		}
		dir := vktest.TempDir(t)
		in := filepath.Join(dir, "in.raw")
		file := data
		ext := ".raw"
		if c.npy != "" {
			in, ext = filepath.Join(dir, "in.npy"), ".npy"
			file = append(npyHeaderBytes(c.npy, uint64(n)), data...)
		}
		writeTestFile(t, in, file)
		outs := [3]string{filepath.Join(dir, "first"+ext), filepath.Join(dir, "second"+ext), filepath.Join(dir, "rest"+ext)}
		args := append([]string{"partition3", "-in", in, "-out-first", outs[0], "-out-second", outs[1], "-out-rest", outs[2], "-json"}, c.flags...)
		if c.npy != "" {
			args = append(args, "-type", "u32")
		}
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		var js map[string]any
		if err := json.Unmarshal([]byte(stdout), &js); err != nil {
			t.Fatalf("%s: output is not JSON: %v\n%s", c.name, err, stdout)
		}
		counts := [3]int{len(want[0]) / c.stride, len(want[1]) / c.stride, len(want[2]) / c.stride}
		if js["op"] != "partition3" || js["first_count"] != float64(counts[0]) || js["second_count"] != float64(counts[1]) ||
			js["rest_count"] != float64(counts[2]) || js["total"] != float64(n) || js["stride"] != float64(c.stride) {
			t.Errorf("%s: JSON %s; want counts %v of %d", c.name, stdout, counts, n)
		}
		for g, out := range outs {
			if got := readOutput(t, out, c.npy, counts[g]); !bytes.Equal(got, want[g]) {
				t.Errorf("%s: %s: %d bytes differ from the reference's %d", c.name, out, len(got), len(want[g]))
			}
		}
	}
	// A packed record array of the fixtures (flag u1, depth f32 at byte 1,
	// id u2 at byte 5, tag S3 at byte 7: records the command repacks for
	// the GPU and back) by its field's name, to .npy outputs of the same
	// dtype.
	const descr = "[('flag', '|u1'), ('depth', '<f4'), ('id', '<u2'), ('tag', '|S3')]"
	const size = 10
	rin := filepath.Join(fixtures, "records", "packed.npy")
	file, err := os.ReadFile(rin)
	if err != nil {
		t.Fatal(err)
	}
	h, err := readNpyBytes(file)
	if err != nil || h.Descr != descr {
		t.Fatalf("%s: %+v, %v; want records of %s", rin, h, err, descr)
	}
	var groups [3][]byte
	for i := range int(h.Count) {
		rec := file[int(h.DataOffset)+i*size:][:size]
		d := math.Float32frombits(binary.LittleEndian.Uint32(rec[1:]))
		g := 2
		if d < -1 {
			g = 0
		} else if d != 0 {
			g = 1
		}
		groups[g] = append(groups[g], rec...)
	}
	rdir := vktest.TempDir(t)
	routs := [3]string{filepath.Join(rdir, "a.npy"), filepath.Join(rdir, "b.npy"), filepath.Join(rdir, "c.npy")}
	code, stdout, stderr := runCLI(t, "partition3", "-in", rin, "-key", "depth", "-first", "x < -1", "-second", "x != 0",
		"-out-first", routs[0], "-out-second", routs[1], "-out-rest", routs[2], "-json")
	if code != 0 {
		t.Fatalf("records: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, `"field":"depth"`) || !strings.Contains(stdout, fmt.Sprintf(`"second_count":%d`, len(groups[1])/size)) {
		t.Errorf("records: JSON %s", stdout)
	}
	for g, out := range routs {
		if got := readOutput(t, out, descr, len(groups[g])/size); !bytes.Equal(got, groups[g]) {
			t.Errorf("records: group %d: %d bytes differ from the reference's %d", g, len(got), len(groups[g]))
		}
	}

	// The text summary.
	dir := vktest.TempDir(t)
	in := filepath.Join(dir, "in")
	writeTestFile(t, in, binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 1), 5), 9))
	code, stdout, stderr = runCLI(t, "partition3", "-in", in, "-type", "u32", "-first", "x < 2", "-second", "x > 6",
		"-out-first", filepath.Join(dir, "a"), "-out-second", filepath.Join(dir, "b"), "-out-rest", filepath.Join(dir, "c"))
	if code != 0 || !bytes.HasPrefix([]byte(stdout), []byte("partitioned 3: 1 first, 1 second, 1 rest in ")) {
		t.Errorf("summary: exit %d, %q, %s", code, stdout, stderr)
	}
}

// TestPartition3BadInput runs partition3's bad invocations as TestBadInput
// runs the other commands'.
func TestPartition3BadInput(t *testing.T) {
	dir := vktest.TempDir(t)
	p, _ := badInputFiles(t, dir)
	learnOSErrors(dir, p["good.u32"])
	good := p["good.u32"]
	outs := []string{"-out-first", "$OUT", "-out-second", "$VOUT", "-out-rest", "$DIR/rest.raw"}
	with := func(args ...string) []string {
		return append(append([]string{"-in", good}, outs...), args...)
	}
	tests := func(args ...string) []string {
		return with(append([]string{"-first", "x < 10", "-second", "x < 20"}, args...)...)
	}
	cases := forCommand("partition3", []badCase{
		{name: "unknown flag", args: tests("-type", "u32", "-bogus"), want: "flag provided but not defined: -bogus"},
		{name: "compact's -keep", args: tests("-type", "u32", "-keep", "nonzero"), want: "flag provided but not defined: -keep"},
		{name: "compact's -out", args: tests("-type", "u32", "-out", "$OUT"), want: "flag provided but not defined: -out"},
		{name: "missing -in", args: append(outs, "-type", "u32", "-first", "nonzero", "-second", "nonzero"), want: "missing -in FILE"},
		{name: "missing -out-rest", args: []string{"-in", good, "-out-first", "$OUT", "-out-second", "$VOUT", "-type", "u32", "-first", "nonzero", "-second", "nonzero"},
			want: "missing -out-first, -out-second or -out-rest FILE"},
		{name: "one output twice", args: []string{"-in", good, "-out-first", "$OUT", "-out-second", "$OUT", "-out-rest", "$VOUT", "-type", "u32", "-first", "nonzero", "-second", "nonzero"},
			want: "must name three different files"},
		{name: "missing -second", args: with("-type", "u32", "-first", "nonzero"), want: "missing -first EXPR or -second EXPR"},
		{name: "missing -first", args: with("-type", "u32", "-second", "nonzero"), want: "missing -first EXPR or -second EXPR"},
		{name: "no element type", args: tests(), want: "missing -type T, or -stride BYTES and -key OFFSET:T"},
		{name: "unknown type", args: tests("-type", "u16"), want: `-type: unknown type "u16"`},
		{name: "bad first expression", args: with("-type", "u32", "-first", "x <", "-second", "nonzero"), want: `-first: keep expression "x <": want nonzero`},
		{name: "second constant out of range", args: with("-type", "i32", "-first", "nonzero", "-second", "x < 4294967295"), want: `-second: keep expression "x < 4294967295": compact: constant 4294967295 is out of range for i32`},
		{name: "mask on floats", args: with("-type", "f32", "-first", "x & 1", "-second", "nonzero"), want: `-first: keep expression "x & 1"`},
		{name: "stride not a multiple of 4", args: tests("-stride", "30", "-key", "0:u32"), want: "-stride 30: want a multiple of 4"},
		{name: "input not whole elements", args: []string{"-in", p["odd.raw"], "-out-first", "$OUT", "-out-second", "$VOUT", "-out-rest", "$DIR/r", "-type", "u32", "-first", "nonzero", "-second", "nonzero"},
			want: "10 bytes is not a whole number of 4-byte elements"},
		{name: "npy wrong dtype", args: []string{"-in", p["f32.npy"], "-out-first", "$OUT", "-out-second", "$VOUT", "-out-rest", "$DIR/r", "-type", "u32", "-first", "nonzero", "-second", "nonzero"},
			want: "dtype '<f4' does not match -type u32"},
		{name: "output is a directory", args: []string{"-in", good, "-out-first", "$OUT", "-out-second", "$VOUT", "-out-rest", "$DIR", "-type", "u32", "-first", "nonzero", "-second", "nonzero"},
			want: "-out-rest $DIR: is a directory"},
		{name: "no such device", args: tests("-type", "u32", "-device", "no-such-gpu"), want: `no device name contains "no-such-gpu"`, late: true},
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkBadCase(t, tc, false)
			if tc.late {
				checkBadCase(t, tc, true)
			}
		})
	}
}

// TestBenchPartition3 runs bench's partition3_u32 (which checks its three
// outputs itself), beside select_if on the buffers the size's pool hands
// from one operation to the next, with its phases.
func TestBenchPartition3(t *testing.T) {
	requireDevice(t)
	code, out, errOut := runCLI(t, "bench", "-ops", "partition3_u32,select_if,partition3_u32", "-n", "9,14", "-keep", "0.3", "-reps", "2", "-warmup-ms", "0", "-phases")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 7 {
		t.Fatalf("%d rows, %v:\n%s", len(rows), err, out)
	}
	for _, r := range rows[1:] {
		if r[1] == "partition3_u32" && (r[3] != "1.000" || r[0] != "vkcompact") {
			t.Errorf("row %v: want keep_ratio 1.000", r)
		}
	}
	if !strings.Contains(errOut, "partition3_u32 n=512: single pass: clear ") {
		t.Errorf("-phases: %s", errOut)
	}
}
