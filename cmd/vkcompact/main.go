// Command vkcompact runs GPU stream compaction and its building blocks on
// Vulkan compute shaders.
//
//	vkcompact devices [-json]
//	vkcompact bench [-ops copy,select_if,partition_if] [-n 20,24,26,28] [-keep 0.1,0.5,0.9] [-reps 30] [-phases] [-device D] [-json]
//	vkcompact compact -in FILE -out FILE [-type T | -stride BYTES -key OFFSET:T | -key FIELD] (-keep EXPR | -flags FILE) [-inplace] [-device D] [-json]
//	vkcompact split -in FILE -out FILE [-type T | -stride BYTES -key OFFSET:T | -key FIELD] (-keep EXPR | -flags FILE) [-inplace] [-device D] [-json]
//	vkcompact partition3 -in FILE -first EXPR -second EXPR -out-first FILE -out-second FILE -out-rest FILE [-type T | -stride BYTES -key OFFSET:T | -key FIELD] [-device D] [-json]
//	vkcompact unique -in FILE -out FILE [-type T | -stride BYTES -key OFFSET:T | -key FIELD] [-equal keys|bits|elements] [-inplace | -values FILE -values-out FILE [-values-type T]] [-device D] [-json]
//	vkcompact rle -in FILE -out FILE -lengths FILE [-type T | -stride BYTES -key OFFSET:T | -key FIELD] [-equal keys|bits|elements] [-nontrivial] [-device D] [-json]
//	vkcompact scan -in FILE -out FILE [-keys FILE [-keys-type T]] [-type u32|i32|f32] [-op sum|min|max] [-inclusive] [-device D] [-json]
//	vkcompact sort -in FILE -out FILE [-type u32|i32|f32|u64] [-values FILE -values-out FILE | -argsort] [-descending] [-bits LO:HI] [-device D] [-json]
//	vkcompact sort -in FILE -out FILE (-stride BYTES -key OFFSET:T | -key FIELD) [-descending] [-bits LO:HI] [-device D] [-json]
//	vkcompact segsort -in FILE -out FILE (-offsets FILE | -segment N) [-type u32|i32|f32|u64] [-values FILE -values-out FILE] [-descending] [-bits LO:HI] [-device D] [-json]
//	vkcompact reduce -in FILE [-out FILE] [-type u32|i32|f32|u64] [-op sum|min|max|argmin|argmax] [-device D] [-json]
//	vkcompact reduce -in FILE -out FILE (-offsets FILE | -segment N | -keys FILE [-keys-type T] [-keys-out FILE]) [-type T] [-op sum|min|max] [-device D] [-json]
//	vkcompact histogram -in FILE -out FILE (-bins N -range LO:HI [-numpy] | -edges FILE) [-include-upper] [-type u32|i32|f32] [-device D] [-json]
//	vkcompact gather -in FILE -indices FILE -out FILE [-type T | -stride BYTES] [-device D] [-json]
//	vkcompact scatter -in FILE -indices FILE -out FILE [-into FILE] [-type T | -stride BYTES] [-device D] [-json]
//	vkcompact demo [-particles N] [-frames F] [-spawn S] [-seed SEED] [-grid] [-png FILE] [-device D] [-json]
//	vkcompact raytrace [-width W] [-height H] [-spp S] [-bounces B] [-reps R] [-warmup-ms MS] [-png FILE] [-device D] [-json]
//
// compact writes the elements of the input that EXPR (or the flags) keeps,
// in order; split writes all of them, the kept ones first, each part in
// order. T is u32, i32, f32, u64, i64 or f64; with -stride and -key the
// elements are structs of BYTES bytes with a key of type T at byte OFFSET.
// EXPR is nonzero, x OP VALUE (OP one of == != < <= > >=) or x & MASK.
// An input is raw little-endian, or a NumPy .npy array (format 1.0, 2.0 or
// 3.0, C order; recognised by its magic string, and a file named .npy must
// be one): 1-D of a key type's dtype ('<u4', '<i4', '<f4', '<u8', '<i8',
// '<f8'), which gives the type (-type may be left out, and must agree), or
// for structs of S bytes 1-D of '|VS', or bytes ('|u1') of shape (n, S) or
// (S*n,), or a 1-D record array (a structured dtype), whose key -key FIELD
// names by its field's name ("life", or "pos.z" in a nested struct), the
// dtype giving its offset and type. Records whose size or key offset is
// not a multiple of 4 go to the GPU in aligned slots and come back packed.
// A flags file holds one byte per element, or is a 1-D .npy of '|b1',
// '|u1' or '<u4'. The output is a .npy file (of the input's dtype: the key
// type's, '|VS' for raw structs, the records' own) when its name ends in
// .npy, raw otherwise; it is written to a temporary file and renamed once
// complete, so that a failed run leaves none.
//
// partition3 writes each element to -out-first where the -first EXPR
// keeps it, else to -out-second where the -second EXPR keeps it, else to
// -out-rest, each group in input order; inputs, types and expressions are
// compact's.
//
// unique writes the first element of each run of equal elements of the
// input, in order: equal keys by default (-equal keys: as the type
// compares them, -0 equals 0 and a NaN equals nothing), their bits
// (-equal bits) or the whole elements (-equal elements); with -values
// FILE (a value per element, u32, i32, f32, u64, i64 or f64; a raw file
// needs -values-type), unique by key: each kept element's value to
// -values-out. rle writes each
// run's first element to -out and its length (uint32) to -lengths; with
// -nontrivial, the runs longer than one only, their offsets (uint32) to
// -out. Inputs and outputs are as compact's; both of rle's outputs are
// renamed once both are complete.
//
// scan writes the prefix sums (-op min, max: mins, maxes) of the input:
// exclusive (element i combines elements 0 to i-1, element 0 is the op's
// identity) or, with -inclusive, 0 to i. Integer sums wrap modulo 2^32;
// float32 sums are added in a tree order, so they differ from a serial
// loop by rounding; float32 min and max are Go's. It prints the total of
// all elements. With -keys FILE (keys of u32, i32, f32 or u64; a raw file
// needs -keys-type) it scans the values of -in by key: the scan starts
// again at each run of equal consecutive keys.
//
// sort writes the keys sorted, stably: ascending, or with -descending
// from the largest; int32 keys by value, float32 keys by IEEE 754
// totalOrder (-NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN). With
// -values, a file of one uint32 per key (raw, or a 1-D .npy of '<u4'), the
// values move with their keys into -values-out. With -key it sorts whole
// structs (-stride BYTES -key OFFSET:T) or records (-key FIELD) by their
// key, as compact takes them. -bits LO:HI sorts by bits
// LO to HI-1 of the order-mapped key only (keys equal there keep their
// order), as CUB's begin_bit and end_bit do; 0 <= LO <= HI <= the key's
// width. Both outputs are written to temporary files, renamed once both are
// complete.
//
// segsort sorts the keys within segments, each on its own, stably, as
// sort does: segment s is keys offsets[s] to offsets[s+1]-1, the offsets
// (segments+1 of them, none decreasing, none past the keys) read from
// -offsets FILE (raw uint32, or a 1-D .npy of '<u4' or '<i4'), or
// -segment N for segments of N keys (the last one shorter). Keys outside
// the segments keep their places. -values, -descending and -bits are
// sort's. sort -argsort writes the order that sorts the keys, stably, as
// uint32 indices (np.argsort(keys, kind='stable')) to -out, in place of
// the keys.
//
// reduce reduces the elements to their sum, least or greatest element
// (-op sum, min, max), or the first index of the least or greatest
// (argmin, argmax), and prints it; -out writes it as one element (the
// index as a uint32). With -offsets or -segment it reduces within
// segments, as segsort takes them, a value per segment to -out; with
// -keys FILE (a key per value, of u32, i32, f32 or u64) the values of
// each run of equal consecutive keys, each run's value to -out and its
// first key to -keys-out. Integer sums wrap; float sums are the same bits
// run to run; float min and max follow NumPy (NaN wins, its first index).
//
// histogram counts u32, i32 or f32 samples in N even bins over [LO, HI)
// (-bins, -range; CUB's rule, and with -numpy np.histogram's bins), or
// between ascending edges from a file (-edges), a uint32 count per bin to
// -out; -include-upper counts samples equal to the last edge in the last
// bin, as NumPy does.
//
// gather writes out[i] = in[indices[i]], scatter out[indices[i]] = in[i]
// (into zeros, or the elements of -into FILE), of plain elements,
// structs (-stride) or records moved whole; the indices are uint32, or a
// .npy of int32, int64 or uint64, each in range (and, scattered, each
// once).
//
// demo runs a GPU particle system whose dead particles are compacted away
// every frame, and checks it bit for bit against a Go simulation. With
// -grid the particles are a swarm that fills a cube at a bounded density
// and pushes apart, and every frame builds their uniform grid on the GPU
// (cells, a sort by cell, the particles gathered into cell order,
// run-length encoding, cell starts, each particle's neighbours and push,
// each cell's fastest particle), checked against Go too.
//
// raytrace renders a scene with a wavefront path tracer, W x H pixels, S
// samples per pixel, at most B bounces, compacting the ray queue on the
// GPU between bounces, and again without compaction. It checks that the
// two images are the same bit for bit, and a small render against a Go
// tracer, and reports the rays entering each bounce and both GPU times.
//
// Every command takes -timeout DURATION: each wait for the GPU that runs
// past it ends the command with an error (exit status 1); by default there
// is none. While a long run works, a line on stderr shows its progress
// (frames, renders or measurements done, the seconds elapsed) when stderr
// is a terminal and there is no -json; piped, stderr gets errors alone.
//
// docs/cli.md in the repository is the full manual.
//
// Exit status: 0 on success, 2 for a bad invocation or bad input, 1 for a
// device or driver failure, or a check that failed (demo, raytrace).
// Errors go to stderr, prefixed "vkcompact:".
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
	"github.com/vkcompact/vkcompact/vk"
)

// commands are vkcompact's commands: the name, the line of the usage text,
// and the function that runs the command on its arguments.
var commands = []struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
}{
	{"devices", "list Vulkan devices and mark the default", runDevices},
	{"bench", "time kernels with GPU timestamps; CSV like the CUB anchor", runBench},
	{"compact", "keep the elements of a file that pass a test, in order", command(parseCompact, runFileCommand)},
	{"split", "split a file's elements: those that pass a test first, in order", command(parseSplit, runFileCommand)},
	{"partition3", "partition a file's elements three ways by two tests, each group in order, to three files", command(parsePartition3, runFileCommand)},
	{"unique", "keep the first element of each run of equal elements of a file; by key, with a value each", command(parseUnique, runFileCommand)},
	{"rle", "run-length encode a file: each run's first element and length, or the runs longer than one", command(parseRLE, runFileCommand)},
	{"scan", "prefix sums, mins or maxes of a file's u32, i32 or f32 elements; by key", command(parseScan, runFileCommand)},
	{"sort", "sort a file's keys (u32, i32, f32 or u64), with optional uint32 values, or its structs or records by a key", command(parseSort, runFileCommand)},
	{"segsort", "sort a file's keys within segments (offsets from a file, or -segment N), with optional uint32 values", command(parseSegsort, runFileCommand)},
	{"reduce", "reduce a file's elements to their sum, min, max, argmin or argmax; within segments, or by key", command(parseReduce, runFileCommand)},
	{"histogram", "count a file's u32, i32 or f32 samples in even bins over a range, or between edges", command(parseHistogram, runFileCommand)},
	{"gather", "gather a file's elements by uint32 indices: out[i] = in[indices[i]]", command(parseGather, runFileCommand)},
	{"scatter", "scatter a file's elements by uint32 indices: out[indices[i]] = in[i]", command(parseScatter, runFileCommand)},
	{"demo", "a GPU particle system, checked bit for bit against a Go simulation", command(parseDemo, runDrawing)},
	{"raytrace", "a wavefront path tracer that compacts its rays every bounce", command(parseRaytrace, runDrawing)},
}

// command returns a command's run function from the function that parses
// and checks its invocation and the function that runs what it checked
// (runFileCommand, runDrawing).
func command[J any](parse func(args []string, stderr io.Writer) (J, error), run func(j J, stdout, stderr io.Writer) error) func(args []string, stdout, stderr io.Writer) error {
	return func(args []string, stdout, stderr io.Writer) error {
		j, err := parse(args, stderr)
		if err != nil {
			return err
		}
		return run(j, stdout, stderr)
	}
}

// printUsage writes the usage text: the commands.
func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: vkcompact COMMAND [flags]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'vkcompact COMMAND -h' for a command's flags.")
}

func main() {
	addSwiftShader()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// addSwiftShader makes the SwiftShader driver that scripts/setup.sh
// installs (an ICD manifest in $VKCOMPACT_SWIFTSHADER_DIR, by default
// ~/.cache/vkcompact/swiftshader) visible beside the installed drivers,
// through the loader's VK_ADD_DRIVER_FILES, unless the environment
// already chooses the drivers (VK_DRIVER_FILES, VK_ICD_FILENAMES).
func addSwiftShader() {
	if os.Getenv("VK_DRIVER_FILES") != "" || os.Getenv("VK_ICD_FILENAMES") != "" {
		return
	}
	dir := os.Getenv("VKCOMPACT_SWIFTSHADER_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return
		}
		dir = filepath.Join(cache, "vkcompact", "swiftshader")
	}
	icd := filepath.Join(dir, "vk_swiftshader_icd.json")
	if _, err := os.Stat(icd); err != nil {
		return
	}
	add := os.Getenv("VK_ADD_DRIVER_FILES")
	if strings.Contains(add, icd) {
		return
	}
	if add != "" {
		add += string(os.PathListSeparator)
	}
	os.Setenv("VK_ADD_DRIVER_FILES", add+icd)
}

// run executes one command and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stderr)
		return 2
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		printUsage(stdout)
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(args[1:], stdout, stderr)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		}
		fmt.Fprintln(stderr, "vkcompact:", err)
		var ue usage.Error
		if errors.As(err, &ue) || errors.Is(err, vk.ErrNoDevice) || errors.Is(err, vk.ErrInvalid) {
			return 2
		}
		return 1
	}
	fmt.Fprintf(stderr, "vkcompact: unknown command %q\n", args[0])
	printUsage(stderr)
	return 2
}

// Help texts of the flags several commands have.
const (
	deviceHelp  = "device index or name substring (default: VKCOMPACT_DEVICE, else the best GPU)"
	jsonHelp    = "print one JSON object"
	timeoutHelp = "bound each wait for the GPU to `DURATION` (90s, 10m, 1h30m): a wait that runs past it ends the command with an error, exit status 1; 0 waits as long as the work runs (a lost device still ends it)"
)

// newFlags makes a command's flag set, with -timeout, which every command
// takes. It prints nothing itself: parse errors come back as usage errors
// (one "vkcompact:" line), and -h prints the flags to stderr.
func newFlags(name string, stderr io.Writer) *flags {
	fs := flag.NewFlagSet("vkcompact "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	f := &flags{FlagSet: fs, help: stderr}
	fs.DurationVar(&f.timeout, "timeout", 0, timeoutHelp)
	return f
}

// flags is a command's flag set, where its -h text goes, and -timeout.
type flags struct {
	*flag.FlagSet
	help    io.Writer
	timeout time.Duration // -timeout: 0 for no bound
}

// parse parses a command's arguments: a bad flag is a usage error naming
// the command's -h, -h prints the flags (and returns flag.ErrHelp, exit
// status 0), and an argument that is not a flag is an error.
func parse(fs *flags, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(fs.help, "usage of %s:\n", fs.Name())
			fs.SetOutput(fs.help)
			fs.PrintDefaults()
			return err
		}
		return usage.Error{Err: fmt.Errorf("%w (see '%s -h')", err, fs.Name())}
	}
	if fs.NArg() > 0 {
		return usage.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if fs.timeout < 0 {
		return usage.Errorf("-timeout %v: want a positive duration, or 0 for no bound", fs.timeout)
	}
	return nil
}

// gpuTimeText is the end of a summary line: the GPU time and the device.
func gpuTimeText(gpuMs *float64, device string) string {
	if gpuMs == nil {
		return "GPU time n/a (no timestamps), on " + device
	}
	return fmt.Sprintf("in %.3f ms GPU time on %s", *gpuMs, device)
}

// encodeJSON writes v as one line of JSON.
func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
