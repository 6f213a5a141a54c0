package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// TestStructCommands runs sort and compact on a record array of the
// fixtures (testdata/records/packed.npy, NumPy's: packed records of 10
// bytes, whose float key at byte 1 the command repacks for the GPU) by
// its field's name, and sort on raw structs (-stride -key OFFSET:T), and
// checks the outputs, their .npy dtype and the JSON against Go
// references: the library's stable sort by IEEE totalOrder, and the kept
// records in order. TestNumPyRecords checks the same commands against
// NumPy's own results.
func TestStructCommands(t *testing.T) {
	requireDevice(t)
	rng := rand.New(rand.NewPCG(21, 34))
	dir := vktest.TempDir(t)

	// Packed records: flag u1, depth f32 at byte 1, id u2 at byte 5, tag
	// S3 at byte 7.
	const descr = "[('flag', '|u1'), ('depth', '<f4'), ('id', '<u2'), ('tag', '|S3')]"
	const size = 10
	in := filepath.Join(fixtures, "records", "packed.npy")
	file, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	h, err := readNpyBytes(file)
	if err != nil || h.Descr != descr || h.ItemSize != size {
		t.Fatalf("%s: %+v, %v; want records of %s", in, h, err, descr)
	}
	recs := file[h.DataOffset:]
	n := int(h.Count)
	depths := make([]uint64, n)
	for i := range n {
		depths[i] = uint64(binary.LittleEndian.Uint32(recs[i*size+1:]))
	}
	fixtureFiles, _ := os.ReadDir(filepath.Dir(in))
	permute := func(data []byte, size int, perm []uint32) []byte {
		var out []byte
		for _, p := range perm {
			out = append(out, data[int(p)*size:int(p+1)*size]...)
		}
		return out
	}

	// sort -key depth -descending
	out := filepath.Join(vktest.TempDir(t), "sorted.npy")
	code, stdout, stderr := runCLI(t, "sort", "-in", in, "-out", out, "-key", "depth", "-descending", "-json")
	if code != 0 {
		t.Fatalf("sort: exit %d: %s", code, stderr)
	}
	cliCheckJSON(t, "sort", cliJSON(t, "sort", stdout), map[string]any{"op": "sort", "type": "f32", "stride": "10", "key_offset": "1",
		"field": "depth", "n": "777", "descending": true, "begin_bit": "0", "end_bit": "32", "values": false})
	if got, want := readOutput(t, out, descr, n), permute(recs, size, cliSortRef(vkcompact.Float32, depths, true, 0, 32)); !bytes.Equal(got, want) {
		t.Errorf("sort -key depth -descending: %d bytes differ from the reference's %d", len(got), len(want))
	}

	// compact -key depth -keep 'x > 0' -inplace
	out = filepath.Join(vktest.TempDir(t), "kept.npy")
	code, stdout, stderr = runCLI(t, "compact", "-in", in, "-out", out, "-key", "depth", "-keep", "x > 0", "-inplace", "-json")
	if code != 0 {
		t.Fatalf("compact: exit %d: %s", code, stderr)
	}
	var kept []byte
	for i := range n {
		if math.Float32frombits(uint32(depths[i])) > 0 {
			kept = append(kept, recs[i*size:(i+1)*size]...)
		}
	}
	js := cliJSON(t, "compact", stdout)
	if js["field"] != "depth" || fmt.Sprint(js["stride"]) != "10" || fmt.Sprint(js["key_offset"]) != "1" || fmt.Sprint(js["kept"]) != fmt.Sprint(len(kept)/size) {
		t.Errorf("compact: JSON %s, want %d kept", stdout, len(kept)/size)
	}
	if got := readOutput(t, out, descr, len(kept)/size); !bytes.Equal(got, kept) {
		t.Errorf("compact -key depth: %d bytes differ from the reference's %d", len(got), len(kept))
	}

	if entries, _ := os.ReadDir(filepath.Dir(in)); len(entries) != len(fixtureFiles) {
		t.Errorf("the fixtures' folder holds %d files, not its %d", len(entries), len(fixtureFiles))
	}

	// Raw structs of 24 bytes by an int32 at byte 8, to a raw output.
	const ssize = 24
	structs := make([]byte, n*ssize)
	keys := make([]uint64, n)
	for i := range n {
		for w := range ssize / 4 {
			binary.LittleEndian.PutUint32(structs[i*ssize+4*w:], rng.Uint32())
		}
		keys[i] = uint64(uint32(int32(rng.IntN(100) - 50)))
		binary.LittleEndian.PutUint32(structs[i*ssize+8:], uint32(keys[i]))
	}
	in = filepath.Join(dir, "structs.bin")
	writeTestFile(t, in, structs)
	out = filepath.Join(vktest.TempDir(t), "sorted.bin")
	code, stdout, stderr = runCLI(t, "sort", "-in", in, "-out", out, "-stride", "24", "-key", "8:i32", "-bits", "0:16")
	if code != 0 {
		t.Fatalf("sort of structs: exit %d: %s", code, stderr)
	}
	if want := "sort: 777 structs of 24 bytes by the i32 at byte 8 ascending, bits 0:16, in "; !bytes.HasPrefix([]byte(stdout), []byte(want)) {
		t.Errorf("sort of structs: summary %q, want %q...", stdout, want)
	}
	if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, permute(structs, ssize, cliSortRef(vkcompact.Int32, keys, false, 0, 16))) {
		t.Errorf("sort -stride 24 -key 8:i32 -bits 0:16: the output differs from the reference (%v)", err)
	}
	if entries, _ := os.ReadDir(dir); !slices.EqualFunc(entries, []string{"structs.bin"}, func(e os.DirEntry, s string) bool { return e.Name() == s }) {
		t.Errorf("the input directory holds %v", entries)
	}
}
