package main

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// badCase is one bad invocation of vkcompact. It must exit 2 with one
// "vkcompact:" line on stderr that names the problem, print nothing on
// stdout and no stack trace, create no output file, and leave an output
// file that already exists as it was.
type badCase struct {
	cmd  string   // the command; "" runs vkcompact on args alone
	name string   // what is wrong
	args []string // the flags; $OUT, $VOUT and $PNG name output files in a fresh directory $DIR
	want string   // what the message must contain
	env  []string // extra environment (NAME=VALUE)
	// usage: the message is followed by the usage text (several lines).
	usage bool
	// device: the check needs a Vulkan device; skipped without one.
	device bool
	// late: the check comes after the output files are created; the case
	// runs again with them already there, which must keep them as they
	// were.
	late bool
}

// badInputFiles writes the bad input files into dir and returns their
// paths by name. Files of 2^32 elements and more are sparse: the checks
// must refuse them from their size, before reading them.
func badInputFiles(t *testing.T, dir string) (map[string]string, bool) {
	f4 := func(n int) []byte { return make([]byte, 4*n) }
	dict := func(descr, fortran, shape string) string {
		return fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, fortran, shape)
	}
	u4 := func(shape string) string { return dict("<u4", "False", shape) }
	// rdict is dict of a structured dtype: the list of fields.
	rdict := func(fields, fortran, shape string) string {
		return fmt.Sprintf("{'descr': %s, 'fortran_order': %s, 'shape': %s, }", fields, fortran, shape)
	}
	badMagic := npyFile(u4("(3,)"), f4(3))
	badMagic[5] = 'Z' // \x93NUMPZ: a whole number of elements if read as raw
	v2huge := []byte("\x93NUMPY\x02\x00\x00\x00\x00\x80  ")
	deep := "{'descr': '<u4', 'fortran_order': False, 'shape': " + strings.Repeat("(", 20) + "3," + strings.Repeat(")", 20) + ", }"
	files := map[string][]byte{
		"good.u32":         f4(1000),
		"odd.raw":          make([]byte, 10),
		"twelve.raw":       make([]byte, 12),
		"empty.raw":        nil,
		"f32.npy":          append(npyHeaderBytes("<f4", 1000), f4(1000)...),
		"u64.npy":          append(npyHeaderBytes("<u8", 500), f4(1000)...),
		"v1000.npy":        append(npyHeaderBytes("<u4", 1000), f4(1000)...),
		"badmagic.npy":     badMagic,
		"rawnamed.npy":     f4(1000),
		"tiny.npy":         []byte("\x93NUMPY\x01"),
		"trunc.npy":        npyHeaderBytes("<u4", 3)[:50],
		"v9.npy":           []byte("\x93NUMPY\x09\x00\x00\x00\x00\x00"),
		"v1_1.npy":         npyFile(u4("(3,)"), f4(3)),
		"v2short.npy":      []byte("\x93NUMPY\x02\x00\x00\x00\x00"),
		"v2huge.npy":       v2huge,
		"garbage.npy":      npyFile("{'descr': <u4}", nil),
		"notdict.npy":      npyFile("[1, 2]", nil),
		"nokey.npy":        npyFile("{'descr': '<u4', 'shape': (3,), }", f4(3)),
		"extrakey.npy":     npyFile("{'descr': '<u4', 'fortran_order': False, 'shape': (3,), 'x': 1}", f4(3)),
		"dupkey.npy":       npyFile("{'descr': '<u4', 'descr': '<u4', 'fortran_order': False, 'shape': (3,), }", f4(3)),
		"descrint.npy":     npyFile("{'descr': 4, 'fortran_order': False, 'shape': (3,), }", f4(3)),
		"fortranstr.npy":   npyFile("{'descr': '<u4', 'fortran_order': 'no', 'shape': (3,), }", f4(3)),
		"shapelist.npy":    npyFile("{'descr': '<u4', 'fortran_order': False, 'shape': [3], }", f4(3)),
		"shapeneg.npy":     npyFile(u4("(-3,)"), f4(3)),
		"shapestr.npy":     npyFile(u4("('3',)"), f4(3)),
		"shapebig.npy":     npyFile(u4("(99999999999999999999,)"), f4(3)),
		"shapeover.npy":    npyFile(u4("(4294967296, 4294967296, 2)"), f4(3)),
		"deep.npy":         npyFile(deep, f4(3)),
		"unterminated.npy": npyFile("{'descr': '<u4", nil),
		"escape.npy":       npyFile(`{'descr': '<u\4', 'fortran_order': False, 'shape': (3,), }`, f4(3)),
		"dtypebad.npy":     npyFile(dict("<x4", "False", "(3,)"), f4(3)),
		"dtypezero.npy":    npyFile(dict("<u0", "False", "(3,)"), nil),
		"be.npy":           npyFile(dict(">u4", "False", "(3,)"), f4(3)),
		"fortran.npy":      npyFile(dict("<u4", "True", "(3,)"), f4(3)),
		"2d.npy":           npyFile(u4("(2, 3)"), f4(6)),
		"0d.npy":           npyFile(u4("()"), f4(1)),
		"short.npy":        npyFile(u4("(3,)"), f4(2)),
		"long.npy":         npyFile(u4("(3,)"), f4(4)),
		"structured.npy":   npyFile("{'descr': [('a', '<u4')], 'fortran_order': False, 'shape': (3,), }", f4(3)),
		"unicode1.npy":     npyFile(dict("<U1", "False", "(3,)"), f4(3)),
		"unicode3.npy":     npyFile(dict("<U3", "False", "(3,)"), f4(9)),
		"unicodeshort.npy": npyFile(dict("<U1", "False", "(3,)"), make([]byte, 3)),
		"bytes4.npy":       npyFile(dict("|S4", "False", "(3,)"), f4(3)),
		"void12.npy":       npyFile(dict("|V12", "False", "(3,)"), f4(9)),
		"complex.npy":      npyFile(dict("<c8", "False", "(3,)"), f4(6)),
		"datetime.npy":     npyFile(dict("<M8[ns]", "False", "(3,)"), f4(6)),
		"object.npy":       npyFile(dict("|O", "False", "(3,)"), []byte("\x80\x02cnumpy.core.multiarray\n_reconstruct\nq\x00.")),
		"bef4.npy":         npyFile(dict(">f4", "False", "(3,)"), f4(3)),
		"dtypeu3.npy":      npyFile(dict("<u3", "False", "(3,)"), make([]byte, 9)),
		"v16.npy":          npyFile(dict("|V16", "False", "(2,)"), f4(8)),
		"rows31.npy":       npyFile(dict("|u1", "False", "(2, 31)"), make([]byte, 62)),
		"bytes33.npy":      npyFile(dict("|u1", "False", "(33,)"), make([]byte, 33)),
		"flags999.raw":     make([]byte, 999),
		"flags4000.raw":    make([]byte, 4000),
		"flags999.npy":     npyFile(dict("|b1", "False", "(999,)"), make([]byte, 999)),
		"flags2d.npy":      npyFile(dict("|u1", "False", "(10, 100)"), make([]byte, 1000)),
		"flagsf.npy":       npyFile(dict("|b1", "True", "(1000,)"), make([]byte, 1000)),
		"v999.raw":         f4(999),
		"v1001.npy":        npyFile(u4("(1001,)"), f4(1001)),
		"v2d.npy":          npyFile(u4("(10, 100)"), f4(1000)),
		"vfortran.npy":     npyFile(dict("<u4", "True", "(1000,)"), f4(1000)),
		"rec.npy":          npyFile(rdict("[('x', '<f4'), ('y', '<f4'), ('z', '<f4'), ('life', '<f4')]", "False", "(3,)"), f4(12)),
		"recmixed.npy":     npyFile(rdict(recMixed, "False", "(2,)"), make([]byte, 2*recMixedSize)),
		"recobject.npy":    npyFile(rdict("[('o', '|O'), ('x', '<f4')]", "False", "(3,)"), []byte("\x80\x02cnumpy.core.multiarray\n_reconstruct\nq\x00.")),
		"recwide.npy":      npyFile(rdict("[('a', '|V256'), ('k', '<u4')]", "False", "(1,)"), f4(65)),
		"recpadwide.npy":   npyFile(rdict("[('a', '|u1'), ('k', '<f4'), ('b', '|V251')]", "False", "(1,)"), f4(64)),
		"rec2d.npy":        npyFile(rdict("[('k', '<u4')]", "False", "(3, 1)"), f4(3)),
		"recfortran.npy":   npyFile(rdict("[('k', '<u4')]", "True", "(3,)"), f4(3)),
		"f64.npy":          npyFile(dict("<f8", "False", "(3,)"), f4(6)),
		"bad.csv":          []byte("cub,select_if,x,0.5,1,2\n"),
		"cols.csv":         []byte("a,b,c\n"),
		"sel.csv":          []byte("impl,op,n,keep_ratio,ms_median,gelem_per_s\ncub,select_if,1024,0.5,1,2\n"),
	}
	v1_1 := files["v1_1.npy"]
	v1_1[7] = 1 // version 1.1
	paths := map[string]string{}
	for name, b := range files {
		paths[name] = filepath.Join(dir, name)
		writeTestFile(t, paths[name], b)
	}
	// Sparse files: 2^32 elements raw and as .npy, 2^32-1 (too many for
	// one binding, for sort), and 2^32 flags.
	sparse := true
	for name, size := range map[string]int64{"huge.u32": 4 << 32, "huge.npy": 4 << 32, "max.u32": 4 * (1<<32 - 1), "hugeflags.raw": 1 << 32} {
		p := filepath.Join(dir, name)
		var head []byte
		if name == "huge.npy" {
			head = npyHeaderBytes("<u4", 1<<32)
		}
		err := os.WriteFile(p, head, 0o644)
		if err == nil {
			err = os.Truncate(p, int64(len(head))+size)
		}
		if err != nil {
			t.Logf("no sparse file for the cases of 2^32 elements: %v", err)
			sparse = false
		}
		paths[name] = p
	}
	return paths, sparse
}

// recMixed is a record of every kind of field a key cannot be: a struct,
// a sub-array, bytes, a half float, a 64-bit integer (which sort does not
// take), a big-endian float; recMixedSize is its itemsize.
const (
	recMixed     = "[('pos', [('x', '<f4'), ('y', '<f4')]), ('v', '<f4', (3,)), ('s', '|S4'), ('h', '<f2'), ('', '|V2'), ('id', '<i8'), ('be', '>f4'), ('k', '<u4')]"
	recMixedSize = 8 + 12 + 4 + 2 + 2 + 8 + 4 + 4
)

// badInputCases returns every bad invocation: for each command, unknown
// and malformed flags, missing ones, bad sizes and counts, strides and
// key offsets, malformed .npy files, keep expressions and bit ranges,
// devices, and output paths.
func badInputCases(t *testing.T, dir string) []badCase {
	p, sparse := badInputFiles(t, dir)
	learnOSErrors(dir, p["good.u32"])
	return slices.Concat(commandBadCases(dir, p), fileBadCases(dir, p, sparse), selectBadCases(dir, p, sparse),
		scanBadCases(p), sortBadCases(dir, p, sparse), recordBadCases(p), demoBadCases(p["good.u32"]), raytraceBadCases(p["good.u32"]),
		segsortBadCases(t, dir, p), reduceBadCases(t, dir, p), histogramBadCases(t, dir, p), permuteBadCases(t, dir, p), argsortBadCases(p),
		scanOpsBadCases(t, dir, p), uniqueValuesBadCases(t, dir, p))
}

// forCommand sets the command of each case to cmd.
func forCommand(cmd string, cases []badCase) []badCase {
	for i := range cases {
		cases[i].cmd = cmd
	}
	return cases
}

// commandBadCases are the bad invocations of vkcompact itself, of devices
// and of bench.
func commandBadCases(dir string, p map[string]string) []badCase {
	return []badCase{
		{cmd: "", name: "no command", want: "usage: vkcompact COMMAND", usage: true},
		{cmd: "", name: "unknown command", args: []string{"frobnicate"}, want: `unknown command "frobnicate"`, usage: true},
		{cmd: "", name: "a flag for a command", args: []string{"-json"}, want: `unknown command "-json"`, usage: true},
		{cmd: "", name: "command in capitals", args: []string{"COMPACT"}, want: `unknown command "COMPACT"`, usage: true},

		{cmd: "devices", name: "extra argument", args: []string{"extra"}, want: `unexpected argument "extra"`},
		{cmd: "devices", name: "unknown flag", args: []string{"-bogus"}, want: "flag provided but not defined: -bogus"},
		{cmd: "devices", name: "-device is not a flag of devices", args: []string{"-device", "0"}, want: "flag provided but not defined: -device"},
		{cmd: "devices", name: "bad boolean", args: []string{"-json=maybe"}, want: `invalid boolean value "maybe" for -json`},

		{cmd: "bench", name: "-n not an exponent", args: []string{"-n", "x"}, want: `-n: "x" is not an exponent from 0 to 31`},
		{cmd: "bench", name: "-n too large", args: []string{"-n", "40"}, want: `-n: "40" is not an exponent`},
		{cmd: "bench", name: "-n a count above 2^32-1", args: []string{"-n", "4294967296"}, want: `-n: "4294967296" is not an exponent`},
		{cmd: "bench", name: "-n negative", args: []string{"-n", "-1"}, want: `-n: "-1" is not an exponent`},
		{cmd: "bench", name: "-n empty", args: []string{"-n", ""}, want: `-n: "" is not an exponent`},
		{cmd: "bench", name: "-select-path unknown", args: []string{"-select-path", "fast"}, want: `-select-path: "fast" is not auto, three-phase or single-pass`},
		{cmd: "bench", name: "-scan-path unknown", args: []string{"-scan-path", "onepass"}, want: `-scan-path: "onepass" is not auto, three-phase or single-pass`},
		{cmd: "bench", name: "-sort-path unknown", args: []string{"-sort-path", "onesweep"}, want: `-sort-path: "onesweep" is not auto, three-phase or single-pass`},
		{cmd: "bench", name: "-scan-wg too large", args: []string{"-scan-wg", "70000"}, want: `-scan-wg`},
		{cmd: "bench", name: "-n empty item", args: []string{"-n", "4,,8"}, want: `-n: "" is not an exponent`},
		{cmd: "bench", name: "unknown operation", args: []string{"-ops", "nope"}, want: `-ops: unknown operation "nope"`},
		{cmd: "bench", name: "-ops empty", args: []string{"-ops", ""}, want: `-ops: unknown operation ""`},
		{cmd: "bench", name: "-keep above 1", args: []string{"-keep", "1.5"}, want: `-keep: "1.5" is not a ratio between 0 and 1`},
		{cmd: "bench", name: "-keep negative", args: []string{"-keep", "-0.1"}, want: `-keep: "-0.1" is not a ratio`},
		{cmd: "bench", name: "-keep garbage", args: []string{"-keep", "half"}, want: `-keep: "half" is not a ratio`},
		{cmd: "bench", name: "-keep NaN", args: []string{"-keep", "NaN"}, want: `-keep: "NaN" is not a ratio`},
		{cmd: "bench", name: "-reps 0", args: []string{"-reps", "0"}, want: "-reps must be at least 1"},
		{cmd: "bench", name: "-reps negative", args: []string{"-reps", "-3"}, want: "-reps must be at least 1"},
		{cmd: "bench", name: "-warmup negative", args: []string{"-warmup", "-1"}, want: "-warmup at least 0"},
		{cmd: "bench", name: "-warmup-ms negative", args: []string{"-warmup-ms", "-1"}, want: "-warmup-ms -1: 0 to 600000"},
		{cmd: "bench", name: "-warmup-ms above ten minutes", args: []string{"-warmup-ms", "600001"}, want: "-warmup-ms 600001: 0 to 600000"},
		{cmd: "bench", name: "-plot not svg or png", args: []string{"-plot", filepath.Join(dir, "out.pdf")}, want: "out.pdf: want a .svg or .png file"},
		{cmd: "bench", name: "-kernel-stats a directory", args: []string{"-ops", "copy", "-n", "4", "-kernel-stats", dir}, want: "is a directory"},
		{cmd: "bench", name: "-plot-only without -plot-with", args: []string{"-plot-only", "-plot", filepath.Join(dir, "out.svg")}, want: "-plot-only needs -plot FILE and -plot-with CSV"},
		{cmd: "bench", name: "-plot-with no such file", args: []string{"-plot-only", "-plot", filepath.Join(dir, "out.svg"), "-plot-with", filepath.Join(dir, "nope.csv")}, want: "-plot-with: open"},
		{cmd: "bench", name: "-plot-with malformed row", args: []string{"-plot-only", "-plot", filepath.Join(dir, "out.svg"), "-plot-with", p["bad.csv"]}, want: "want impl,op,n,keep_ratio,ms_median,gelem_per_s"},
		{cmd: "bench", name: "-plot-with wrong columns", args: []string{"-plot-only", "-plot", filepath.Join(dir, "out.svg"), "-plot-with", p["cols.csv"]}, want: "wrong number of fields"},
		{cmd: "bench", name: "-plot-only with no rows of the ops", args: []string{"-plot-only", "-plot", filepath.Join(dir, "out.svg"), "-ops", "copy", "-plot-with", p["sel.csv"]}, want: "-plot: no rows of copy to draw"},
		{cmd: "bench", name: "-alloc unknown", args: []string{"-alloc", "frame"}, want: `-alloc: "frame" is not size or op`},
		{cmd: "bench", name: "-reps not a number", args: []string{"-reps", "many"}, want: `invalid value "many" for flag -reps`},
		{cmd: "bench", name: "-select-write unknown", args: []string{"-select-write", "fast"}, want: `-select-write: "fast" is not auto, scattered or staged`},
		{cmd: "bench", name: "-select-procs too large", args: []string{"-select-procs", "16777217"}, want: "-select-procs, -select-loads or -select-wg out of range"},
		{cmd: "bench", name: "-select-loads too large", args: []string{"-select-loads", "17"}, want: "-select-procs, -select-loads or -select-wg out of range"},
		{cmd: "bench", name: "-select-wg too large", args: []string{"-select-wg", "65537"}, want: "-select-procs, -select-loads or -select-wg out of range"},
		{cmd: "bench", name: "-select-procs negative", args: []string{"-select-procs", "-1"}, want: `invalid value "-1" for flag -select-procs`},
		{cmd: "bench", name: "-scan-loads too large", args: []string{"-scan-loads", "17"}, want: "-scan-procs, -scan-loads, -scan-wg, -sort-procs, -sort-wg, -sort-bits or -sort-kpl out of range"},
		{cmd: "bench", name: "-sort-bits 9", args: []string{"-sort-bits", "9"}, want: "-sort-bits or -sort-kpl out of range"},
		{cmd: "bench", name: "-sort-kpl too large", args: []string{"-sort-kpl", "1000"}, want: "-sort-bits or -sort-kpl out of range"},
		{cmd: "bench", name: "-sort-counts unknown", args: []string{"-sort-counts", "both"}, want: `-sort-counts: "both" is not auto, separate or fused`},
		{cmd: "bench", name: "-sort-tails unknown", args: []string{"-sort-tails", "keep"}, want: `-sort-tails: "keep" is not auto, write or hold`},
		{cmd: "bench", name: "-sort-wg above 2^64", args: []string{"-sort-wg", "99999999999999999999"}, want: `invalid value "99999999999999999999" for flag -sort-wg: value out of range`},
		{cmd: "bench", name: "-copy-vecs too large", args: []string{"-n", "4", "-copy-vecs", "2000"}, want: "-copy-vecs 2000: at most"},
		{cmd: "bench", name: "-copy-wg above 2^32", args: []string{"-n", "4", "-copy-wg", "4294967304"}, want: "-copy-wg 4294967304: beyond any device's workgroup size"},
		{cmd: "bench", name: "-copy-wg above the device's", args: []string{"-n", "4", "-copy-wg", "4096"}, want: "workgroup size", device: true},
		{cmd: "bench", name: "device index out of range", args: []string{"-n", "4", "-device", "99"}, want: "device index 99 is out of range"},
		{cmd: "bench", name: "negative device index", args: []string{"-n", "4", "-device", "-1"}, want: "device index -1 is out of range"},
		{cmd: "bench", name: "no such device", args: []string{"-n", "4", "-device", "no-such-gpu"}, want: `no device name contains "no-such-gpu"`},
		{cmd: "bench", name: "VKCOMPACT_DEVICE names no device", args: []string{"-n", "4"}, env: []string{"VKCOMPACT_DEVICE=no-such-gpu"}, want: `no device name contains "no-such-gpu"`},
		{cmd: "bench", name: "unknown flag", args: []string{"-bogus"}, want: "flag provided but not defined: -bogus"},
		{cmd: "bench", name: "extra argument", args: []string{"extra"}, want: `unexpected argument "extra"`},
		{cmd: "bench", name: "flag without its value", args: []string{"-n"}, want: "flag needs an argument: -n"},
	}
}

// osSays holds the operating system's words for the failures the bad
// inputs provoke, as the commands quote them: the text of the error a
// file operation returns, without the operation and the path ("no such
// file or directory" on Linux; "The system cannot find the file
// specified." on Windows, "File not found." under Wine). Set by
// badInputCases.
var osSays struct{ noFile, noName, noDir, notDir string }

// osErrText returns err's text, without the *PathError's operation and path.
func osErrText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	if err == nil {
		return "(no error)"
	}
	return err.Error()
}

// learnOSErrors fills osSays from the operations themselves, in dir, beside
// the regular file good.
func learnOSErrors(dir, good string) {
	_, err := os.Open(filepath.Join(dir, "no-such-file"))
	osSays.noFile = osErrText(err)
	_, err = os.Open("")
	osSays.noName = osErrText(err)
	_, err = os.OpenFile(filepath.Join(dir, "no-such-dir", "x"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	osSays.noDir = osErrText(err)
	_, err = os.OpenFile(filepath.Join(good, "x"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	osSays.notDir = osErrText(err)
}

// fileBadCases are the bad invocations every file command shares: compact
// and split (u32 keys, keeping nonzero ones), scan and sort (u32).
func fileBadCases(dir string, p map[string]string, sparse bool) []badCase {
	good := p["good.u32"]
	var cases []badCase
	for _, cmd := range []string{"compact", "split", "scan", "sort"} {
		typ := []string{"-type", "u32"}
		if cmd == "compact" || cmd == "split" {
			typ = append(typ, "-keep", "nonzero")
		}
		with := func(args ...string) []string { return append(slices.Clone(args), typ...) }
		in := func(file string) []string { return with("-in", p[file], "-out", "$OUT") }
		shared := []badCase{
			{name: "unknown flag", args: append(in("good.u32"), "-bogus"), want: "flag provided but not defined: -bogus"},
			{name: "extra argument", args: append(in("good.u32"), "extra"), want: `unexpected argument "extra"`},
			{name: "flag without its value", args: append(in("good.u32"), "-in"), want: "flag needs an argument: -in"},
			{name: "bad boolean", args: append(in("good.u32"), "-json=maybe"), want: `invalid boolean value "maybe" for -json`},
			{name: "missing -in", args: with("-out", "$OUT"), want: "missing -in FILE"},
			{name: "empty -in", args: with("-in", "", "-out", "$OUT"), want: "missing -in FILE"},
			{name: "missing -out", args: with("-in", good), want: "missing -out FILE"},
			{name: "empty -out", args: with("-in", good, "-out", ""), want: "missing -out FILE"},
			{name: "no such input", args: with("-in", filepath.Join(dir, "nope"), "-out", "$OUT"), want: "-in: open " + filepath.Join(dir, "nope") + ": " + osSays.noFile},
			{name: "input is a directory", args: with("-in", dir, "-out", "$OUT"), want: "-in " + dir + ": not a regular file"},
			{name: "input is a device", args: with("-in", os.DevNull, "-out", "$OUT"), want: "-in " + os.DevNull + ": not a regular file"},
			{name: "input not whole elements", args: in("odd.raw"), want: "10 bytes is not a whole number of 4-byte elements"},
			{name: "npy bad magic", args: in("badmagic.npy"), want: `not a .npy file: no \x93NUMPY magic string`},
			{name: "raw data named .npy", args: in("rawnamed.npy"), want: "not a .npy file"},
			{name: "npy shorter than a header", args: in("tiny.npy"), want: "corrupt .npy file: too short for a header"},
			{name: "npy truncated header", args: in("trunc.npy"), want: "corrupt .npy file: a header of 118 bytes in a file of 50"},
			{name: "npy version 9.0", args: in("v9.npy"), want: ".npy format version 9.0: only 1.0, 2.0 and 3.0"},
			{name: "npy version 1.1", args: in("v1_1.npy"), want: ".npy format version 1.1"},
			{name: "npy 2.0 truncated header length", args: in("v2short.npy"), want: "corrupt .npy file: truncated header length"},
			{name: "npy 2.0 header of 2 GiB", args: in("v2huge.npy"), want: "a header of 2147483648 bytes (at most 1048576 accepted)"},
			{name: "npy garbage header", args: in("garbage.npy"), want: "corrupt .npy header: unexpected"},
			{name: "npy header not a dict", args: in("notdict.npy"), want: "the header is not a dict"},
			{name: "npy header without fortran_order", args: in("nokey.npy"), want: "keys are not exactly descr, fortran_order and shape"},
			{name: "npy header with an extra key", args: in("extrakey.npy"), want: "keys are not exactly descr, fortran_order and shape"},
			{name: "npy header with a key twice", args: in("dupkey.npy"), want: `key "descr" appears twice`},
			{name: "npy descr not a string", args: in("descrint.npy"), want: "descr is not a string"},
			{name: "npy fortran_order not a boolean", args: in("fortranstr.npy"), want: "fortran_order is not True or False"},
			{name: "npy shape a list", args: in("shapelist.npy"), want: "shape is not a tuple"},
			{name: "npy negative shape", args: in("shapeneg.npy"), want: `corrupt .npy header: unexpected "-3,)`},
			{name: "npy shape of strings", args: in("shapestr.npy"), want: "shape holds something other than integers"},
			{name: "npy shape above 2^64", args: in("shapebig.npy"), want: "integer 99999999999999999999 is too large"},
			{name: "npy shape product above 2^64", args: in("shapeover.npy"), want: "shape (4294967296, 4294967296, 2): too many items"},
			{name: "npy nested too deeply", args: in("deep.npy"), want: "nested too deeply"},
			{name: "npy unterminated string", args: in("unterminated.npy"), want: "unterminated string"},
			{name: "npy string escape", args: in("escape.npy"), want: "escapes are not supported"},
			{name: "npy unknown dtype", args: in("dtypebad.npy"), want: "dtype '<x4' is not supported"},
			{name: "npy dtype of 0 bytes", args: in("dtypezero.npy"), want: "dtype '<u0' is not supported"},
			{name: "npy big-endian", args: in("be.npy"), want: "big-endian dtype '>u4' is not supported: want '<u4' (save the array little-endian"},
			{name: "npy big-endian of another type", args: in("bef4.npy"), want: "dtype '>f4' does not match -type u32 (want '<u4')"},
			{name: "npy dtype NumPy has no size for", args: in("dtypeu3.npy"), want: "dtype '<u3' is not supported: not a dtype as NumPy writes one"},
			{name: "npy strings of 1 character", args: in("unicode1.npy"), want: "dtype '<U1' does not match -type u32 (want '<u4')"},
			{name: "npy strings of 3 characters", args: in("unicode3.npy"), want: "dtype '<U3' does not match -type u32 (want '<u4')"},
			{name: "npy strings shorter than the shape", args: in("unicodeshort.npy"), want: "corrupt .npy file: shape (3,) of '<U1' is 3 items of 4 bytes; the file has 3 bytes after its header"},
			{name: "npy bytes strings", args: in("bytes4.npy"), want: "dtype '|S4' does not match -type u32 (want '<u4')"},
			{name: "npy void items for plain elements", args: in("void12.npy"), want: "dtype '|V12' does not match -type u32 (want '<u4')"},
			{name: "npy complex numbers", args: in("complex.npy"), want: "dtype '<c8' does not match -type u32 (want '<u4')"},
			{name: "npy datetimes", args: in("datetime.npy"), want: "dtype '<M8[ns]' does not match -type u32 (want '<u4')"},
			{name: "npy Python objects", args: in("object.npy"), want: "dtype '|O' does not match -type u32 (want '<u4')"},
			{name: "npy wrong dtype", args: in("f32.npy"), want: "dtype '<f4' does not match -type u32 (want '<u4')"},
			{name: "npy wrong dtype size", args: in("u64.npy"), want: "dtype '<u8' does not match -type u32"},
			{name: "npy fortran order", args: in("fortran.npy"), want: "fortran_order is True: save a C-order array"},
			{name: "npy 2-D", args: in("2d.npy"), want: "shape (2, 3): want a 1-D array"},
			{name: "npy 0-D", args: in("0d.npy"), want: "shape (): want a 1-D array"},
			{name: "npy shape longer than the data", args: in("short.npy"), want: "shape (3,) of '<u4' is 3 items of 4 bytes; the file has 8 bytes after its header"},
			{name: "npy shape shorter than the data", args: in("long.npy"), want: "the file has 16 bytes after its header"},
			{name: "npy records without -key", args: in("structured.npy"), want: "a record array"},
			{name: "output directory missing", args: with("-in", good, "-out", "$DIR/no/out"), want: "-out $DIR/no/out: cannot create a file in " + filepath.FromSlash("$DIR/no") + ": " + osSays.noDir},
			{name: "output in a regular file", args: with("-in", good, "-out", good+"/out"), want: "-out " + good + "/out: cannot create a file in " + good + ": " + osSays.notDir},
			{name: "output is a directory", args: with("-in", good, "-out", "$DIR"), want: "-out $DIR: is a directory"},
			{name: "device index out of range", args: append(in("good.u32"), "-device", "99"), want: "device index 99 is out of range", late: true},
			{name: "negative device index", args: append(in("good.u32"), "-device", "-1"), want: "device index -1 is out of range", late: true},
			{name: "no such device", args: append(in("good.u32"), "-device", "no-such-gpu"), want: `no device name contains "no-such-gpu"`, late: true},
			{name: "VKCOMPACT_DEVICE names no device", args: in("good.u32"), env: []string{"VKCOMPACT_DEVICE=no-such-gpu"}, want: `no device name contains "no-such-gpu"`, late: true},
		}
		if sparse {
			shared = append(shared,
				badCase{name: "2^32 elements (raw)", args: in("huge.u32"), want: "4294967296 elements: at most 4294967295"},
				badCase{name: "2^32 elements (.npy)", args: in("huge.npy"), want: "4294967296 elements: at most 4294967295"})
		}
		cases = append(cases, forCommand(cmd, shared)...)
	}
	return cases
}

// selectBadCases are compact's and split's: element types, strides, key
// offsets, keep expressions and flags.
func selectBadCases(dir string, p map[string]string, sparse bool) []badCase {
	good, f32npy := p["good.u32"], p["f32.npy"]
	var cases []badCase
	for _, cmd := range []string{"compact", "split"} {
		with := func(args ...string) []string { return append([]string{"-in", good, "-out", "$OUT"}, args...) }
		keep := func(typ, expr string) []string { return with("-type", typ, "-keep", expr) }
		st := func(stride, key string) []string { return with("-stride", stride, "-key", key, "-keep", "nonzero") }
		fl := func(file string) []string { return with("-type", "u32", "-flags", p[file]) }
		cases = append(cases, forCommand(cmd, slices.Concat([]badCase{
			{name: "no -keep or -flags", args: with("-type", "u32"), want: "missing -keep EXPR or -flags FILE"},
			{name: "-keep and -flags", args: with("-type", "u32", "-keep", "nonzero", "-flags", p["flags4000.raw"]), want: "give -keep EXPR or -flags FILE, not both"},
			{name: "no element type", args: with("-keep", "nonzero"), want: "missing -type T, or -stride BYTES and -key OFFSET:T"},
			{name: "-type and -stride", args: with("-type", "u32", "-stride", "8", "-key", "0:u32", "-keep", "nonzero"), want: "not both"},
			{name: "-type and -key", args: with("-type", "u32", "-key", "0:u32", "-keep", "nonzero"), want: "not both"},
			{name: "-stride without -key", args: with("-stride", "8", "-keep", "nonzero"), want: "struct elements need both -stride BYTES and -key OFFSET:T"},
			{name: "-key without -stride", args: with("-key", "0:u32", "-keep", "nonzero"), want: "struct elements need both"},
			{name: "empty -type", args: keep("", "nonzero"), want: `-type: unknown type ""`},
			{name: "unknown type", args: keep("u16", "nonzero"), want: `-type: unknown type "u16" (want one of u32, i32, f32, u64, i64, f64)`},
			{name: "type in capitals", args: keep("U32", "nonzero"), want: `unknown type "U32"`},
			{name: "stride not a multiple of 4", args: st("30", "0:u32"), want: "-stride 30: want a multiple of 4 from 4 to 256"},
			{name: "stride 6", args: st("6", "0:u32"), want: "-stride 6: want a multiple of 4"},
			{name: "stride 0", args: st("0", "0:u32"), want: "-stride 0: want a multiple of 4"},
			{name: "stride 2", args: st("2", "0:u32"), want: "-stride 2: want a multiple of 4"},
			{name: "stride too large", args: st("512", "0:u32"), want: "-stride 512: want a multiple of 4 from 4 to 256"},
			{name: "stride above 2^32", args: st("4294967300", "0:u32"), want: "-stride 4294967300: want a multiple of 4"},
			{name: "stride negative", args: st("-4", "0:u32"), want: `invalid value "-4" for flag -stride`},
			{name: "key without a type", args: st("8", "4"), want: `-key "4": want OFFSET:T`},
			{name: "key without an offset", args: st("8", ":u32"), want: `-key ":u32": want OFFSET:T`},
			{name: "key offset not a number", args: st("8", "a:u32"), want: `-key "a:u32": want OFFSET:T`},
			{name: "key offset negative", args: st("8", "-4:u32"), want: `-key "-4:u32": want OFFSET:T`},
			{name: "key offset above 2^32", args: st("8", "4294967296:u32"), want: `-key "4294967296:u32": want OFFSET:T`},
			{name: "key of unknown type", args: st("8", "0:f16"), want: `-key "0:f16": unknown type "f16"`},
			{name: "key of no type", args: st("8", "0:"), want: `-key "0:": unknown type ""`},
			{name: "key offset misaligned", args: st("8", "2:u32"), want: "key offset 2 is not a multiple of 4"},
			{name: "wide key offset misaligned", args: st("16", "6:u64"), want: "key offset 6 is not a multiple of 4"},
			{name: "key at the end of the stride", args: st("32", "32:f32"), want: "a f32 key at byte 32 does not fit in a 32-byte element"},
			{name: "wide key past the end", args: st("32", "28:f64"), want: "a f64 key at byte 28 does not fit in a 32-byte element"},
			{name: "wide key in a 4-byte stride", args: st("4", "0:u64"), want: "a u64 key at byte 0 does not fit in a 4-byte element"},
			{name: "key offset that wraps uint32", args: st("8", "4294967292:u32"), want: "a u32 key at byte 4294967292 does not fit in a 8-byte element"},
			{name: "structs not whole elements", args: st("12", "0:u32"), want: "4000 bytes is not a whole number of 12-byte elements"},
			{name: "npy void of another stride", args: []string{"-in", p["v16.npy"], "-out", "$OUT", "-stride", "32", "-key", "0:f32", "-keep", "nonzero"}, want: "dtype '|V16' does not match -stride 32 (want '|V32', or bytes '|u1')"},
			{name: "npy byte rows of another stride", args: []string{"-in", p["rows31.npy"], "-out", "$OUT", "-stride", "32", "-key", "0:f32", "-keep", "nonzero"}, want: "shape (2, 31) of '|u1' is not 32-byte structs"},
			{name: "npy bytes not whole structs", args: []string{"-in", p["bytes33.npy"], "-out", "$OUT", "-stride", "32", "-key", "0:f32", "-keep", "nonzero"}, want: "shape (33,) of '|u1' is not 32-byte structs"},
			{name: "npy typed array for structs", args: []string{"-in", f32npy, "-out", "$OUT", "-stride", "4", "-key", "0:f32", "-keep", "nonzero"}, want: "dtype '<f4' does not match -stride 4"},
			{name: "npy void of another size for structs", args: []string{"-in", p["void12.npy"], "-out", "$OUT", "-stride", "32", "-key", "0:f32", "-keep", "nonzero"}, want: "dtype '|V12' does not match -stride 32 (want '|V32', or bytes '|u1')"},
			{name: "npy strings for structs", args: []string{"-in", p["unicode3.npy"], "-out", "$OUT", "-stride", "12", "-key", "0:u32", "-keep", "nonzero"}, want: "dtype '<U3' does not match -stride 12 (want '|V12', or bytes '|u1')"},
			{name: "npy records, -key OFFSET:T of no field", args: []string{"-in", p["structured.npy"], "-out", "$OUT", "-stride", "4", "-key", "0:f32", "-keep", "nonzero"},
				want: "-key 0:f32: -in " + p["structured.npy"] + " has no f32 field ('<f4') at byte 0; its fields: 'a': '<u4' at 0"},
			{name: "npy records, -key of a field of i64 keys and -keep of another type", args: []string{"-in", p["recmixed.npy"], "-out", "$OUT", "-key", "id", "-keep", "x > 0.5"},
				want: `"0.5" is not an integer, and the key is i64`},
		}, keepBadCases(good), []badCase{
			{name: "flags too few", args: fl("flags999.raw"), want: "-flags " + p["flags999.raw"] + " holds 999 flags for 1000 elements"},
			{name: "flags too many", args: fl("flags4000.raw"), want: "holds 4000 flags for 1000 elements"},
			{name: "flags empty", args: fl("empty.raw"), want: "holds 0 flags for 1000 elements"},
			{name: "flags npy count", args: fl("flags999.npy"), want: "holds 999 flags for 1000 elements"},
			{name: "flags npy dtype", args: fl("f32.npy"), want: "dtype '<f4': flags must be bool ('|b1'), uint8 ('|u1') or uint32 ('<u4')"},
			{name: "flags npy strings", args: fl("unicode1.npy"), want: "dtype '<U1': flags must be bool ('|b1'), uint8 ('|u1') or uint32 ('<u4')"},
			{name: "flags npy Python objects", args: fl("object.npy"), want: "dtype '|O': flags must be bool ('|b1'), uint8 ('|u1') or uint32 ('<u4')"},
			{name: "flags npy big-endian", args: fl("be.npy"), want: "-flags " + p["be.npy"] + ": big-endian dtype '>u4' is not supported: want '<u4'"},
			{name: "flags npy 2-D", args: fl("flags2d.npy"), want: "shape (10, 100): want a 1-D array"},
			{name: "flags npy fortran order", args: fl("flagsf.npy"), want: "fortran_order is True"},
			{name: "flags npy corrupt", args: fl("trunc.npy"), want: "-flags " + p["trunc.npy"] + ": corrupt .npy file"},
			{name: "flags named .npy, raw", args: fl("rawnamed.npy"), want: "-flags " + p["rawnamed.npy"] + ": not a .npy file"},
			{name: "no such flags file", args: with("-type", "u32", "-flags", filepath.Join(dir, "nope")), want: "-flags: open " + filepath.Join(dir, "nope") + ": " + osSays.noFile},
			{name: "flags is a directory", args: with("-type", "u32", "-flags", dir), want: "-flags " + dir + ": not a regular file"},
			{name: "empty -flags", args: with("-type", "u32", "-flags", ""), want: "-flags: open : " + osSays.noName},
			{name: "bad -inplace", args: append(keep("u32", "nonzero"), "-inplace=2"), want: `invalid boolean value "2" for -inplace`},
			{name: "scan's flag", args: append(keep("u32", "nonzero"), "-inclusive"), want: "flag provided but not defined: -inclusive"},
		}))...)
		if sparse {
			cases = append(cases, badCase{cmd: cmd, name: "2^32 flags", args: fl("hugeflags.raw"), want: "holds 4294967296 flags for 1000 elements"})
		}
	}
	return cases
}

// keepBadCases are compact's and split's bad keep expressions, of the
// good input's elements.
func keepBadCases(good string) []badCase {
	keep := func(typ, expr string) []string {
		return []string{"-in", good, "-out", "$OUT", "-type", typ, "-keep", expr}
	}
	return []badCase{
		{name: "empty expression", args: keep("u32", ""), want: `keep expression "": want nonzero, x OP VALUE`},
		{name: "blank expression", args: keep("u32", "   "), want: `keep expression "   ": want nonzero`},
		{name: "no value", args: keep("u32", "x >"), want: `keep expression "x >": want nonzero, x OP VALUE`},
		{name: "no operator", args: keep("u32", "x 3"), want: `keep expression "x 3": want nonzero`},
		{name: "unknown operator", args: keep("u32", "x = 1"), want: `keep expression "x = 1": want nonzero`},
		{name: "operator reversed", args: keep("u32", "x => 1"), want: `keep expression "x => 1": want nonzero`},
		{name: "another variable", args: keep("u32", "y > 3"), want: `keep expression "y > 3": want nonzero`},
		{name: "constant first", args: keep("u32", "3 < x"), want: `keep expression "3 < x": want nonzero`},
		{name: "garbage", args: keep("u32", "!!!"), want: `keep expression "!!!": want nonzero`},
		{name: "nonzero with more", args: keep("u32", "nonzero x"), want: `keep expression "nonzero x": want nonzero`},
		{name: "two values", args: keep("u32", "x > 1 2"), want: `keep expression "x > 1 2": "1 2" is not an integer`},
		{name: "value not a number", args: keep("u32", "x > abc"), want: `"abc" is not an integer`},
		{name: "negative garbage value", args: keep("u32", "x > -abc"), want: `"-abc" is not an integer`},
		{name: "float value, integer key", args: keep("i32", "x == 1.5"), want: `"1.5" is not an integer, and the key is i32`},
		{name: "exponent value, integer key", args: keep("u32", "x == 1e3"), want: `"1e3" is not an integer, and the key is u32`},
		{name: "nan, integer key", args: keep("i64", "x != nan"), want: `"nan" is not an integer, and the key is i64`},
		{name: "negative constant, u32 key", args: keep("u32", "x < -5"), want: "constant -5 is out of range for u32"},
		{name: "constant above u32", args: keep("u32", "x < 4294967296"), want: "constant 4294967296 is out of range for u32"},
		{name: "constant above i32", args: keep("i32", "x > 2147483648"), want: "constant 2147483648 is out of range for i32"},
		{name: "constant below i32", args: keep("i32", "x > -2147483649"), want: "constant -2147483649 is out of range for i32"},
		{name: "constant above 2^64, u32 key", args: keep("u32", "x < 99999999999999999999"), want: `"99999999999999999999" is out of range for u32`},
		{name: "constant above 2^64, u64 key", args: keep("u64", "x < 18446744073709551616"), want: `"18446744073709551616" is out of range for u64`},
		{name: "constant below -2^63, i64 key", args: keep("i64", "x > -9223372036854775809"), want: `"-9223372036854775809" is out of range for i64`},
		{name: "hex constant above 2^64", args: keep("u64", "x == 0x10000000000000000"), want: `"0x10000000000000000" is out of range for u64`},
		{name: "negative constant, u64 key", args: keep("u64", "x >= -1"), want: "constant -1 is out of range for u64"},
		{name: "constant above f32", args: keep("f32", "x > 3.5e38"), want: "constant 3.5e+38 is out of range for f32"},
		{name: "constant above f64", args: keep("f64", "x > 1e400"), want: `"1e400" is out of range for f64`},
		{name: "hex constant above 2^64, float key", args: keep("f64", "x > 0x10000000000000000"), want: `"0x10000000000000000" is out of range for f64`},
		{name: "integer not exact in f32", args: keep("f32", "x > 16777217"), want: "constant 16777217 is not exactly representable as f32"},
		{name: "integer not exact in f64", args: keep("f64", "x > 9007199254740993"), want: "constant 9007199254740993 is not exactly representable as f64"},
		{name: "hex float", args: keep("f32", "x == 0x1p3"), want: `"0x1p3" is not a number`},
		{name: "negative hex float", args: keep("f64", "x == -0x1p3"), want: `"-0x1p3" is not a number`},
		{name: "float garbage", args: keep("f32", "x < 1.5.5"), want: `"1.5.5" is not a number`},
		{name: "mask on a float key", args: keep("f32", "x & 1"), want: "a mask (x & 1) needs an integer key, not f32"},
		{name: "float mask", args: keep("u32", "x & 1.5"), want: `"1.5" is not an integer`},
		{name: "mask wider than u32", args: keep("u32", "x & 0x100000000"), want: "mask 4294967296 is wider than u32"},
		{name: "negative mask wider than i32", args: keep("i32", "x & -2147483649"), want: "mask -2147483649 is wider than i32"},
		{name: "mask above 2^64", args: keep("u64", "x & 0x1ffffffffffffffff"), want: `"0x1ffffffffffffffff" is out of range for u64`},
		{name: "mask without a value", args: keep("u32", "x &"), want: `keep expression "x &": want nonzero`},
	}
}

// typedArgs returns the flags of a scan or sort of the good input as
// keys of type typ, then args.
func typedArgs(p map[string]string, typ string, args ...string) []string {
	return append([]string{"-in", p["good.u32"], "-out", "$OUT", "-type", typ}, args...)
}

// scanBadCases are scan's.
func scanBadCases(p map[string]string) []badCase {
	good := p["good.u32"]
	with := func(typ string, args ...string) []string { return typedArgs(p, typ, args...) }
	return forCommand("scan", []badCase{
		{name: "missing -type", args: []string{"-in", good, "-out", "$OUT"}, want: "missing -type T: u32, i32 or f32"},
		{name: "unknown type", args: with("u16"), want: `-type: unknown type "u16" (want u32, i32 or f32)`},
		{name: "u64", args: with("u64"), want: "-type u64: scan takes u32, i32 or f32"},
		{name: "i64", args: with("i64"), want: "-type i64: scan takes u32, i32 or f32"},
		{name: "f64", args: with("f64"), want: "-type f64: scan takes u32, i32 or f32"},
		{name: "sort's flag", args: with("u32", "-descending"), want: "flag provided but not defined: -descending"},
		{name: "compact's flag", args: with("u32", "-keep", "nonzero"), want: "flag provided but not defined: -keep"},
		{name: "bad -inclusive", args: with("u32", "-inclusive=maybe"), want: `invalid boolean value "maybe" for -inclusive`},
	})
}

// sortBadCases are sort's: key types, values and bit ranges.
func sortBadCases(dir string, p map[string]string, sparse bool) []badCase {
	good, f32npy, u64npy, vals := p["good.u32"], p["f32.npy"], p["u64.npy"], p["v1000.npy"]
	with := func(typ string, args ...string) []string { return typedArgs(p, typ, args...) }
	wv := func(file string) []string { return with("u32", "-values", p[file], "-values-out", "$VOUT") }
	cases := forCommand("sort", []badCase{
		{name: "missing -type", args: []string{"-in", good, "-out", "$OUT"}, want: "missing -type T: u32, i32, f32 or u64"},
		{name: "unknown type", args: with("u8"), want: `-type: unknown type "u8" (want u32, i32, f32 or u64)`},
		{name: "i64", args: with("i64"), want: "-type i64: sort takes u32, i32, f32 or u64"},
		{name: "f64", args: with("f64"), want: "-type f64: sort takes u32, i32, f32 or u64"},
		{name: "npy wrong dtype, u64 keys", args: []string{"-in", f32npy, "-out", "$OUT", "-type", "u64"}, want: "dtype '<f4' does not match -type u64 (want '<u8')"},
		{name: "u64 keys not whole", args: []string{"-in", p["twelve.raw"], "-out", "$OUT", "-type", "u64"}, want: "12 bytes is not a whole number of 8-byte elements"},
		{name: "-values without -values-out", args: with("u32", "-values", vals), want: "-values FILE needs -values-out FILE"},
		{name: "-values-out without -values", args: with("u32", "-values-out", "$VOUT"), want: "-values-out FILE needs -values FILE"},
		{name: "values too few", args: wv("v999.raw"), want: "-values " + p["v999.raw"] + " holds 999 values for 1000 keys"},
		{name: "values too many", args: wv("v1001.npy"), want: "holds 1001 values for 1000 keys"},
		{name: "values empty", args: wv("empty.raw"), want: "holds 0 values for 1000 keys"},
		{name: "values for u64 keys", args: []string{"-in", u64npy, "-out", "$OUT", "-type", "u64", "-values", vals, "-values-out", "$VOUT"}, want: "holds 1000 values for 500 keys"},
		{name: "values not whole", args: wv("odd.raw"), want: "10 bytes is not a whole number of 4-byte values"},
		{name: "values npy dtype", args: wv("f32.npy"), want: "dtype '<f4': values must be uint32 ('<u4')"},
		{name: "values npy strings", args: wv("unicode1.npy"), want: "dtype '<U1': values must be uint32 ('<u4')"},
		{name: "values npy bytes strings", args: wv("bytes4.npy"), want: "dtype '|S4': values must be uint32 ('<u4')"},
		{name: "values npy big-endian", args: wv("be.npy"), want: "-values " + p["be.npy"] + ": big-endian dtype '>u4' is not supported: want '<u4'"},
		{name: "values npy 2-D", args: wv("v2d.npy"), want: "shape (10, 100): want a 1-D array"},
		{name: "values npy fortran order", args: wv("vfortran.npy"), want: "fortran_order is True"},
		{name: "values npy corrupt", args: wv("trunc.npy"), want: "-values " + p["trunc.npy"] + ": corrupt .npy file"},
		{name: "values named .npy, raw", args: wv("rawnamed.npy"), want: "-values " + p["rawnamed.npy"] + ": not a .npy file"},
		{name: "no such values file", args: with("u32", "-values", filepath.Join(dir, "nope"), "-values-out", "$VOUT"), want: "-values: open " + filepath.Join(dir, "nope") + ": " + osSays.noFile},
		{name: "empty -values", args: with("u32", "-values", "", "-values-out", "$VOUT"), want: "-values-out FILE needs -values FILE"},
		{name: "empty -values-out", args: with("u32", "-values", vals, "-values-out", ""), want: "-values FILE needs -values-out FILE"},
		{name: "same output twice", args: with("u32", "-values", vals, "-values-out", "$OUT"), want: "-out and -values-out name the same file"},
		{name: "same output twice, spelt apart", args: with("u32", "-values", vals, "-values-out", "$DIR/./out.npy"), want: "-out and -values-out name the same file"},
		{name: "values output directory missing", args: with("u32", "-values", vals, "-values-out", "$DIR/no/v"), want: "-values-out $DIR/no/v: cannot create a file in " + filepath.FromSlash("$DIR/no"), late: true},
		{name: "values output is a directory", args: with("u32", "-values", vals, "-values-out", "$DIR"), want: "-values-out $DIR: is a directory", late: true},
		{name: "-bits without a colon", args: with("u32", "-bits", "8"), want: `-bits "8": want LO:HI`},
		{name: "-bits past the key", args: with("u32", "-bits", "4:40"), want: "-bits 4:40: want 0 <= LO <= HI <= 32 for u32 keys"},
		{name: "-bits 0:33", args: with("f32", "-bits", "0:33"), want: "-bits 0:33: want 0 <= LO <= HI <= 32 for f32 keys"},
		{name: "-bits past u64", args: []string{"-in", u64npy, "-out", "$OUT", "-type", "u64", "-bits", "0:65"}, want: "<= 64 for u64 keys"},
		{name: "-bits reversed", args: with("u32", "-bits", "9:3"), want: "-bits 9:3: want 0 <= LO <= HI"},
		{name: "-bits empty range past the key", args: with("i32", "-bits", "33:33"), want: "-bits 33:33: want 0 <= LO <= HI <= 32"},
		{name: "-bits letters", args: with("u32", "-bits", "a:b"), want: `-bits "a:b": want LO:HI`},
		{name: "-bits negative", args: with("u32", "-bits", "-1:4"), want: `-bits "-1:4": want LO:HI`},
		{name: "-bits without HI", args: with("u32", "-bits", "4:"), want: `-bits "4:": want LO:HI`},
		{name: "-bits without LO", args: with("u32", "-bits", ":4"), want: `-bits ":4": want LO:HI`},
		{name: "-bits colon only", args: with("u32", "-bits", ":"), want: `-bits ":": want LO:HI`},
		{name: "-bits three parts", args: with("u32", "-bits", "1:2:3"), want: `-bits "1:2:3": want LO:HI`},
		{name: "-bits hex", args: with("u32", "-bits", "0x0:0x10"), want: `-bits "0x0:0x10": want LO:HI`},
		{name: "-bits with spaces", args: with("u32", "-bits", " 0:16"), want: `-bits " 0:16": want LO:HI`},
		{name: "-bits above 2^32", args: with("u32", "-bits", "0:4294967296"), want: `-bits "0:4294967296": want LO:HI`},
		{name: "bad -descending", args: with("u32", "-descending=no"), want: `invalid boolean value "no" for -descending`},
		{name: "scan's flag", args: with("u32", "-inclusive"), want: "flag provided but not defined: -inclusive"},
		{name: "no such device, with values", args: append(wv("v1000.npy"), "-device", "no-such-gpu"), want: `no device name contains "no-such-gpu"`, late: true},
	})
	if sparse {
		cases = append(cases,
			badCase{cmd: "sort", name: "2^32 values", args: wv("huge.u32"), want: "holds 4294967296 values for 1000 keys"},
			badCase{cmd: "sort", name: "2^32-1 keys: more than four bindings", args: []string{"-in", p["max.u32"], "-out", "$OUT", "-type", "u32", "-values", p["max.u32"], "-values-out", "$VOUT"},
				want: "past it the sort binds each output as at most 4 windows", device: true, late: true})
	}
	return cases
}

// recordBadCases are the bad invocations of compact, split and sort on
// .npy record arrays (structured dtypes) and on plain .npy arrays without
// -type, and scan's on records.
func recordBadCases(p map[string]string) []badCase {
	rec, mixed := p["rec.npy"], p["recmixed.npy"]
	recFields := "'x': '<f4', 'y': '<f4', 'z': '<f4', 'life': '<f4'"
	var cases []badCase
	for _, cmd := range []string{"compact", "split", "sort"} {
		keys := "compact takes keys of u32, i32, f32, u64, i64 or f64 ('<u4', '<i4', '<f4', '<u8', '<i8' or '<f8')"
		var keep []string
		if cmd == "sort" {
			keys = "sort takes keys of u32, i32, f32 or u64 ('<u4', '<i4', '<f4' or '<u8')"
		} else {
			keys = strings.Replace(keys, "compact", cmd, 1)
			keep = []string{"-keep", "nonzero"}
		}
		with := func(file string, args ...string) []string {
			return slices.Concat([]string{"-in", p[file], "-out", "$OUT"}, args, keep)
		}
		cases = append(cases, forCommand(cmd, []badCase{
			{name: "records without -key", args: with("rec.npy"), want: "-in " + rec + ": a record array: name the key field with -key FIELD (fields: " + recFields + ")"},
			{name: "records, no such field", args: with("rec.npy", "-key", "depth"), want: "-key 'depth': -in " + rec + " has no field of that name; its fields: " + recFields},
			{name: "records, a field in capitals", args: with("rec.npy", "-key", "LIFE"), want: "-key 'LIFE': -in " + rec + " has no field of that name"},
			{name: "records, -key OFFSET:T of another type", args: with("rec.npy", "-key", "4:u32"), want: "has no u32 field ('<u4') at byte 4; its fields: 'x': '<f4' at 0, 'y': '<f4' at 4,"},
			{name: "records, -key OFFSET:T past the record", args: with("rec.npy", "-key", "16:f32"), want: "has no f32 field ('<f4') at byte 16"},
			{name: "records, -type contradicts the field", args: with("rec.npy", "-key", "life", "-type", "u32"), want: "-in " + rec + ": -type u32 contradicts the key field 'life', which is f32 ('<f4')"},
			{name: "records, -stride contradicts the itemsize", args: with("rec.npy", "-key", "life", "-stride", "32"), want: "-stride 32 contradicts the records' 16 bytes (their dtype's itemsize)"},
			{name: "records, a struct field as key", args: with("recmixed.npy", "-key", "pos"), want: "-key pos: field 'pos' is a struct: name one of its fields (pos.x, pos.y)"},
			{name: "records, a sub-array as key", args: with("recmixed.npy", "-key", "v"), want: "-key v: field 'v' is a sub-array ('<f4' (3,)): a key is one value, and sub-arrays cannot be keys"},
			{name: "records, a bytes field as key", args: with("recmixed.npy", "-key", "s"), want: "-key s: field 's' is '|S4': " + keys},
			{name: "records, a half float as key", args: with("recmixed.npy", "-key", "h"), want: "-key h: field 'h' is '<f2': " + keys},
			{name: "records, a big-endian key", args: with("recmixed.npy", "-key", "be"), want: "-key be: field 'be' is big-endian ('>f4'): save the records little-endian (a.astype(a.dtype.newbyteorder('<')))"},
			{name: "records, padding is no field", args: with("recmixed.npy", "-key", ""), want: "-key '': -in " + mixed + " has no field of that name; its fields: 'pos': a struct, 'pos.x': '<f4', 'pos.y': '<f4', 'v': '<f4' (3,), 's': '|S4', 'h': '<f2', 'id': '<i8', 'be': '>f4', 'k': '<u4'"},
			{name: "records holding Python objects", args: with("recobject.npy", "-key", "x"), want: "-in " + p["recobject.npy"] + ": field 'o' holds Python objects ('|O'): NumPy pickled the array, and objects cannot go to the GPU"},
			{name: "records wider than the stride limit", args: with("recwide.npy", "-key", "k"), want: "records of 260 bytes: at most 256 (the library's MaxStride)"},
			{name: "records wider than the limit once aligned", args: with("recpadwide.npy", "-key", "k"), want: "records of 256 bytes with the key at byte 1 take 260 bytes on the GPU, aligned to 4: at most 256"},
			{name: "records in 2-D", args: with("rec2d.npy", "-key", "k"), want: "shape (3, 1): want a 1-D array of records"},
			{name: "records in Fortran order", args: with("recfortran.npy", "-key", "k"), want: "fortran_order is True: save a C-order array"},
			{name: "-key a name in a raw file", args: with("good.u32", "-stride", "4", "-key", "life"), want: `-key "life": want OFFSET:T, a byte offset and a type (e.g. 28:f32); a field name needs a record array`},
			{name: "-key a name on a plain array", args: with("f32.npy", "-key", "life"),
				want: "-key life names a field: -key FIELD needs a record array (a .npy of a structured dtype), and -in " + p["f32.npy"] + " is a plain array (dtype '<f4'); for structs without field names give -stride BYTES -key OFFSET:T"},
			{name: "-key a name in a raw file without -stride", args: with("good.u32", "-key", "life"), want: "-key life names a field: -key FIELD needs a record array (a .npy of a structured dtype), and -in " + p["good.u32"] + " is a raw file"},
			{name: "npy strings without -type", args: with("unicode3.npy"), want: "dtype '<U3' is not an element type: " + strings.Replace(keys, "keys of ", "", 1)},
			{name: "npy big-endian without -type", args: with("be.npy"), want: "big-endian dtype '>u4' is not supported: save the array little-endian (a.astype('<u4'))"},
			{name: "npy void items without -stride", args: with("v16.npy"), want: "dtype '|V16' holds structs of 16 bytes: give -stride 16 -key OFFSET:T"},
		})...)
	}
	return slices.Concat(cases, forCommand("sort", []badCase{
		{name: "records, a field of a type sort does not take", args: []string{"-in", mixed, "-out", "$OUT", "-key", "id"}, want: "-key id: field 'id' is i64 ('<i8'): sort takes keys of u32, i32, f32 or u64"},
		{name: "records with values", args: []string{"-in", mixed, "-out", "$OUT", "-key", "k", "-values", p["v1000.npy"], "-values-out", "$VOUT"}, want: "-values moves values with plain keys; structs and records move whole by their -key"},
		{name: "records, -bits past the key", args: []string{"-in", mixed, "-out", "$OUT", "-key", "k", "-bits", "0:33"}, want: "-bits 0:33: want 0 <= LO <= HI <= 32 for u32 keys"},
		{name: "npy of a type sort does not take, without -type", args: []string{"-in", p["f64.npy"], "-out", "$OUT"}, want: "dtype '<f8' (f64): sort takes u32, i32, f32 or u64 ('<u4', '<i4', '<f4' or '<u8')"},
		{name: "structs of a key type sort does not take", args: []string{"-in", p["good.u32"], "-out", "$OUT", "-stride", "8", "-key", "0:f64"}, want: "-key 0:f64: sort takes keys of u32, i32, f32 or u64"},
	}), forCommand("scan", []badCase{
		{name: "records", args: []string{"-in", rec, "-out", "$OUT"}, want: "-in " + rec + ": a record array (structured dtype [('x', '<f4'), ('y', '<f4'), ('z', '<f4'), ('life', '<f4')]): scan takes a plain array of u32, i32 or f32"},
		{name: "npy of a type scan does not take, without -type", args: []string{"-in", p["f64.npy"], "-out", "$OUT"}, want: "dtype '<f8' (f64): scan takes u32, i32 or f32 ('<u4', '<i4' or '<f4')"},
	}))
}

// demoBadCases are demo's; good is a regular file.
func demoBadCases(good string) []badCase {
	return slices.Concat(forCommand("demo", []badCase{
		{name: "no particles", args: []string{"-particles", "0"}, want: "-particles 0: want 1 to 4294967295"},
		{name: "negative particles", args: []string{"-particles", "-5"}, want: "-particles -5: want 1 to 4294967295"},
		{name: "particles above 2^32-1", args: []string{"-particles", "4294967296"}, want: "-particles 4294967296: want 1 to 4294967295"},
		{name: "particles above 2^63", args: []string{"-particles", "99999999999999999999"}, want: `invalid value "99999999999999999999" for flag -particles: value out of range`},
		{name: "particles not a number", args: []string{"-particles", "many"}, want: `invalid value "many" for flag -particles`},
		{name: "no frames", args: []string{"-frames", "0"}, want: "-frames 0: want 1 to"},
		{name: "negative frames", args: []string{"-frames", "-3"}, want: "-frames -3: want 1 to"},
		{name: "too many frames", args: []string{"-frames", "100001"}, want: "-frames 100001: want 1 to 100000"},
		{name: "no spawn", args: []string{"-spawn", "0"}, want: "-spawn 0: want 1 to 4294967295"},
		{name: "negative spawn", args: []string{"-spawn", "-1"}, want: "-spawn -1: want 1 to"},
		{name: "spawn above 2^32-1", args: []string{"-spawn", "4294967296"}, want: "-spawn 4294967296: want 1 to 4294967295"},
		{name: "negative seed", args: []string{"-seed", "-1"}, want: "-seed -1: want 0 to 4294967295"},
		{name: "seed above 2^32-1", args: []string{"-seed", "4294967296"}, want: "-seed 4294967296: want 0 to 4294967295"},
		{name: "more particles than one binding", args: []string{"-particles", "4294967295", "-frames", "1", "-png", "$PNG"}, want: "maxStorageBufferRange", device: true, late: true},
	}), forCommand("demo", drawingBadCases(good, []string{"-frames", "1", "-png", "$PNG"})))
}

// drawingBadCases are the bad invocations common to the commands that
// draw a -png picture on a device (demo, raytrace): unknown flags and
// arguments, -png paths that cannot be written, and devices that do not
// exist. good is a regular file, to put a path under; quick are flags
// that make a run short, with -png $PNG. The caller sets cmd.
func drawingBadCases(good string, quick []string) []badCase {
	with := func(args ...string) []string { return slices.Concat(quick, args) }
	return []badCase{
		{name: "unknown flag", args: []string{"-bogus"}, want: "flag provided but not defined: -bogus"},
		{name: "extra argument", args: []string{"extra"}, want: `unexpected argument "extra"`},
		{name: "flag without its value", args: []string{"-png"}, want: "flag needs an argument: -png"},
		{name: "bad boolean", args: []string{"-json=maybe"}, want: `invalid boolean value "maybe" for -json`},
		{name: "PNG is a directory", args: []string{"-png", "$DIR"}, want: "-png $DIR: is a directory"},
		{name: "PNG directory missing", args: []string{"-png", "$DIR/no/such/p.png"}, want: "-png $DIR/no/such/p.png: cannot create a file in " + filepath.FromSlash("$DIR/no/such")},
		{name: "PNG in a regular file", args: []string{"-png", good + "/p.png"}, want: "cannot create a file in " + good + ": " + osSays.notDir},
		{name: "device index out of range", args: with("-device", "99"), want: "device index 99 is out of range", late: true},
		{name: "no such device", args: with("-device", "no-such-gpu"), want: `no device name contains "no-such-gpu"`, late: true},
		{name: "VKCOMPACT_DEVICE names no device", args: with(), env: []string{"VKCOMPACT_DEVICE=no-such-gpu"}, want: `no device name contains "no-such-gpu"`, late: true},
	}
}

// TestBadInput runs every bad invocation with no output file, which must
// not appear; those that fail after creating the temporary outputs run
// again with output files that exist, which must keep their contents.
// The input files must be left as they are, with no temporary file beside
// them. The commands run in parallel.
func TestBadInput(t *testing.T) {
	dir := vktest.TempDir(t)
	cases := badInputCases(t, dir)
	before := dirListing(t, dir)
	t.Run("commands", func(t *testing.T) {
		for _, cmd := range []string{"", "devices", "bench", "compact", "split", "scan", "sort", "segsort", "reduce", "histogram", "gather", "scatter", "demo", "raytrace"} {
			t.Run(cmp.Or(cmd, "none"), func(t *testing.T) {
				t.Parallel()
				for _, tc := range cases {
					if tc.cmd == cmd {
						checkBadCase(t, tc, false)
						if tc.late {
							checkBadCase(t, tc, true)
						}
					}
				}
			})
		}
	})
	if after := dirListing(t, dir); !slices.Equal(after, before) {
		t.Errorf("the input directory held %q, now %q", before, after)
	}
}

// checkBadCase runs one bad invocation, with its output files already
// there when existing is true (and not at all when it names none).
func checkBadCase(t *testing.T, tc badCase, existing bool) {
	t.Helper()
	old := []byte("old contents\n")
	outDir := vktest.TempDir(t)
	vars := []string{"$OUT", filepath.Join(outDir, "out.npy"), "$VOUT", filepath.Join(outDir, "values.npy"),
		"$PNG", filepath.Join(outDir, "p.png"), "$DIR", outDir}
	expand := strings.NewReplacer(vars...).Replace
	var args, outputs []string
	if tc.cmd != "" {
		args = append(args, tc.cmd)
	}
	for _, a := range tc.args {
		for i := 0; i < 6; i += 2 {
			if strings.Contains(a, vars[i]) && !slices.Contains(outputs, vars[i+1]) {
				outputs = append(outputs, vars[i+1])
			}
		}
		args = append(args, expand(a))
	}
	if existing {
		if len(outputs) == 0 {
			return
		}
		for _, o := range outputs {
			writeTestFile(t, o, old)
		}
	}
	name := strings.TrimSpace(tc.cmd + " " + tc.name)
	if existing {
		name += " (outputs exist)"
	}
	code, stdout, stderr := runCLIEnv(t, tc.env, args...)
	if strings.Contains(stderr, "loader (libvulkan.so.1) could not be loaded") || tc.device && strings.Contains(stderr, "no Vulkan devices were found") {
		// The device cases need a loader and a device; others never reach
		// them. In CI, and under the test script, both must be there.
		if vktest.InCI() {
			t.Fatalf("%s: no Vulkan loader or device where one is required: %s", name, stderr)
		}
		t.Logf("%s: skipped: %s", name, stderr)
		return
	}
	if testing.Verbose() && !existing {
		// One row of the table of cases: the invocation as a shell would
		// take it, and what it got.
		shell := make([]string, len(args))
		for i, a := range args {
			shell[i] = a
			if a == "" || strings.ContainsAny(a, " <>&!\\\"") {
				shell[i] = "'" + a + "'"
			}
		}
		t.Logf("row\t%s\t%s\t%s\t%d\t%s", tc.cmd, tc.name, strings.Join(append(slices.Clone(tc.env), shell...), " "), code, strings.SplitN(stderr, "\n", 2)[0])
	}
	want := expand(tc.want)
	lines := strings.Count(stderr, "\n")
	if code != 2 || stdout != "" || !strings.Contains(stderr, want) || (lines != 1) != tc.usage ||
		!strings.HasPrefix(stderr, "vkcompact: ") && !strings.HasPrefix(stderr, "usage: ") {
		t.Errorf("%s: vkcompact %q: exit %d, stdout %q, stderr %q; want exit 2, no output and one line naming %q",
			name, args, code, stdout, stderr, want)
	}
	var left []string
	for _, e := range dirListing(t, outDir) {
		p := filepath.Join(outDir, e)
		if !slices.Contains(outputs, p) || !existing {
			left = append(left, e)
		} else if b, err := os.ReadFile(p); err != nil || !bytes.Equal(b, old) {
			t.Errorf("%s: the existing output %s now holds %q (%v)", name, e, b, err)
		}
	}
	if len(left) > 0 {
		t.Errorf("%s: left %q in the output directory", name, left)
	}
}

// dirListing returns the names in dir, sorted.
func dirListing(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestOutputIsInput: naming the input as the output is allowed. The input
// is read before the output replaces it, so the result is right.
func TestOutputIsInput(t *testing.T) {
	requireDevice(t)
	dir := vktest.TempDir(t)
	le := func(v ...uint32) []byte {
		var b []byte
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, x)
		}
		return b
	}
	data, keys, vals := filepath.Join(dir, "data"), filepath.Join(dir, "keys"), filepath.Join(dir, "vals")
	writeTestFile(t, data, le(1, 0, 3, 0))
	writeTestFile(t, keys, le(3, 1, 2))
	writeTestFile(t, vals, le(0, 1, 2))
	if code, _, stderr := runCLI(t, "compact", "-in", data, "-out", data, "-type", "u32", "-keep", "nonzero"); code != 0 {
		t.Fatalf("compact: exit %d: %s", code, stderr)
	}
	// The sorted keys replace the values and the values the keys.
	if code, _, stderr := runCLI(t, "sort", "-in", keys, "-out", vals, "-type", "u32", "-values", vals, "-values-out", keys); code != 0 {
		t.Fatalf("sort: exit %d: %s", code, stderr)
	}
	for _, f := range []struct {
		path string
		want []byte
	}{{data, le(1, 3)}, {vals, le(1, 2, 3)}, {keys, le(1, 2, 0)}} {
		if got, err := os.ReadFile(f.path); err != nil || !bytes.Equal(got, f.want) {
			t.Errorf("%s: % x (%v), want % x", filepath.Base(f.path), got, err, f.want)
		}
	}
	if names := dirListing(t, dir); len(names) != 3 {
		t.Errorf("the directory holds %q", names)
	}
}

// TestHelp: -h prints the commands, or a command's flags, and exits 0.
func TestHelp(t *testing.T) {
	if code, stdout, _ := runCLI(t, "-h"); code != 0 || !strings.Contains(stdout, "  devices ") || !strings.Contains(stdout, "  scan ") || !strings.Contains(stdout, "  demo ") || !strings.Contains(stdout, "  raytrace ") {
		t.Errorf("-h: exit %d, %q", code, stdout)
	}
	for _, tc := range []struct{ cmd, want string }{
		{"devices", "-json"}, {"bench", "-copy-vecs"}, {"compact", "-inplace"}, {"split", "-flags"},
		{"scan", "-inclusive"}, {"sort", "-argsort"}, {"demo", "-particles"}, {"raytrace", "-bounces"},
		{"reduce", "-keys-out"}, {"histogram", "-numpy"}, {"gather", "-indices"}, {"scatter", "-into"}, {"scan", "-keys-type"}, {"unique", "-values-out"},
	} {
		if code, _, stderr := runCLI(t, tc.cmd, "-h"); code != 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s -h: exit %d, %q", tc.cmd, code, stderr)
		}
	}
}
