package spvspec_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/spvspec"
	"github.com/vkcompact/vkcompact/shaders"
)

// The golden specializations: every embedded kernel specialized with its
// defaults, with constant 0 alone, and with random vectors drawn from a
// generator seeded by the kernel's name, each line holding the kernel,
// the hash of its SPIR-V, the vector, whether the pass changed it and
// the hash of what it returned, in testdata/spec_golden.txt. The pass is
// a pure function of its input: a refactor of it must leave every line
// alike. A kernel whose SPIR-V is not the one a line was made from (its
// source changed since) is not compared; the test fails when no line is
// left to compare. Set VKCOMPACT_SPEC_GOLDEN=update to rewrite the file
// from the kernels as they are.

const specGoldenPath = "testdata/spec_golden.txt"

// goldenVectors returns the constant vectors a kernel of maxID+1
// specialization constants is specialized with: nil (the defaults),
// constant 0 alone, and four random vectors, seeded by the kernel's name
// so that a kernel added or changed moves no other kernel's vectors. The
// random values include 0 and 2^32-1, which the kernels never get, to
// reach the folds that refuse (a division by zero, a shift past 31).
func goldenVectors(name string, maxID uint32) [][]uint32 {
	h := fnv.New64a()
	h.Write([]byte(name))
	rng := rand.New(rand.NewPCG(h.Sum64(), 7))
	vectors := [][]uint32{nil, {64}}
	values := []uint32{0, 1, 2, 3, 4, 5, 8, 14, 16, 31, 32, 255, 1 << 31, 0xffffffff}
	for range 4 {
		v := make([]uint32, maxID+1)
		for i := range v {
			v[i] = values[rng.IntN(len(values))]
		}
		v[0] = []uint32{4, 8, 16, 64, 256}[rng.IntN(5)]
		vectors = append(vectors, v)
	}
	return vectors
}

// hashWords returns the first 16 hex digits of the SHA-256 of words,
// little-endian.
func hashWords(words []uint32) string {
	buf := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(buf[4*i:], w)
	}
	return fmt.Sprintf("%x", sha256.Sum256(buf))[:16]
}

// specGoldenLines specializes every kernel with its golden vectors and
// renders one line per specialization: kernel, input hash, vector,
// changed, output hash (or the error).
func specGoldenLines(t *testing.T) []string {
	var lines []string
	for _, name := range shaders.Names() {
		code := shaders.MustSPIRV(name)
		maxID := uint32(0)
		for _, id := range specIDs(code) {
			maxID = max(maxID, id)
		}
		in := hashWords(code)
		for _, v := range goldenVectors(name, maxID) {
			out, changed, err := spvspec.Specialize(code, v)
			result := hashWords(out)
			if err != nil {
				result = strings.ReplaceAll(err.Error(), " ", "_")
			}
			lines = append(lines, fmt.Sprintf("%s %s %v %v %s", name, in, v, changed, result))
		}
	}
	return lines
}

// goldenKey is a line's kernel, input hash and vector: what it was made
// from.
func goldenKey(line string) string {
	return line[:strings.LastIndexByte(line[:strings.LastIndexByte(line, ' ')], ' ')]
}

// TestSpecializeGolden compares every kernel's specializations with
// testdata/spec_golden.txt.
func TestSpecializeGolden(t *testing.T) {
	lines := specGoldenLines(t)
	if os.Getenv("VKCOMPACT_SPEC_GOLDEN") == "update" {
		if err := os.WriteFile(specGoldenPath, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(specGoldenPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		want[goldenKey(sc.Text())] = sc.Text()
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	compared, stale := 0, 0
	for _, line := range lines {
		w, ok := want[goldenKey(line)]
		if !ok {
			stale++
			continue
		}
		compared++
		if w != line {
			t.Errorf("specialization changed:\n got %s\nwant %s", line, w)
		}
	}
	if stale > 0 {
		t.Logf("%d specializations of kernels whose SPIR-V changed since %s was written not compared (VKCOMPACT_SPEC_GOLDEN=update rewrites it)", stale, specGoldenPath)
	}
	if compared == 0 {
		t.Fatalf("no kernel's SPIR-V is the one %s was made from: rewrite it with VKCOMPACT_SPEC_GOLDEN=update", specGoldenPath)
	}
}
