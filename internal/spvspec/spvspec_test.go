package spvspec_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/vkcompact/vkcompact/internal/spvspec"
	"github.com/vkcompact/vkcompact/internal/testkit/spvtest"
	"github.com/vkcompact/vkcompact/shaders"
)

// specIDs returns the SpecIds a module declares.
func specIDs(code []uint32) []uint32 {
	var ids []uint32
	for i := 5; i < len(code); i += int(code[i] >> 16) {
		if code[i]&0xffff == 71 && code[i]>>16 == 4 && code[i+2] == 1 {
			ids = append(ids, code[i+3])
		}
	}
	return ids
}

// count returns how many instructions of opcode op code holds.
func count(code []uint32, op uint32) int {
	n := 0
	for i := 5; i < len(code); i += int(code[i] >> 16) {
		if code[i]&0xffff == op {
			n++
		}
	}
	return n
}

// TestSpecializeKernels specializes every embedded kernel with its
// defaults and with random values of its specialization constants
// (workgroup sizes of 4 to 256 for constant 0, small positive values
// elsewhere: kernels size shared arrays by them), and runs spirv-val on
// each result: it must be valid, declare no specialization constant any
// more nor any loop with the Unroll hint, and, for the kernels whose
// options choose code, lose blocks.
func TestSpecializeKernels(t *testing.T) {
	spvtest.RequireTool(t, "spirv-val")
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	vectors := 4
	if testing.Short() {
		vectors = 2
	}
	shrank := 0
	for _, name := range shaders.Names() {
		code := shaders.MustSPIRV(name)
		ids := specIDs(code)
		if len(ids) == 0 {
			t.Fatalf("%s declares no specialization constant", name)
		}
		maxID := uint32(0)
		for _, id := range ids {
			maxID = max(maxID, id)
		}
		for v := 0; v <= vectors; v++ {
			var constants []uint32 // v == 0: the defaults
			var out []uint32
			// A random vector may size a shared array to 0 (a shape no
			// plan takes, invalid SPIR-V whoever specializes it): such
			// vectors are drawn again.
			for try := 0; ; try++ {
				if v > 0 {
					constants = make([]uint32, maxID+1)
					for i := range constants {
						constants[i] = []uint32{1, 2, 3, 4, 5, 8, 14, 16}[rng.IntN(8)]
					}
					constants[0] = []uint32{4, 8, 16, 64, 256}[rng.IntN(5)]
				}
				var changed bool
				var err error
				out, changed, err = spvspec.Specialize(code, constants)
				if err != nil || !changed {
					t.Fatalf("%s %v: changed %v, %v", name, constants, changed, err)
				}
				if v == 0 || !zeroLengthArray(out) {
					break
				}
				if try == 20 {
					t.Fatalf("%s: 20 random vectors each size an array to 0", name)
				}
			}
			if len(specIDs(out)) != 0 || count(out, 48)+count(out, 49)+count(out, 50)+count(out, 51) != 0 {
				t.Fatalf("%s %v: specialization constants left", name, constants)
			}
			for i := 5; i < len(out); i += int(out[i] >> 16) {
				if out[i]&0xffff == 246 && out[i+3]&1 != 0 {
					t.Fatalf("%s %v: a loop keeps its Unroll hint", name, constants)
				}
			}
			if count(out, 248) < count(code, 248) {
				shrank++
			}
			path := filepath.Join(dir, fmt.Sprintf("%s-%d.spv", name, v))
			buf := make([]byte, 4*len(out))
			for i, w := range out {
				binary.LittleEndian.PutUint32(buf[4*i:], w)
			}
			if err := os.WriteFile(path, buf, 0o644); err != nil {
				t.Fatal(err)
			}
			if msg, err := exec.Command("spirv-val", "--target-env", "vulkan1.1", path).CombinedOutput(); err != nil {
				t.Errorf("%s with constants %v: spirv-val: %v\n%s", name, constants, err, msg)
			}
		}
	}
	if shrank == 0 {
		t.Error("no kernel lost a block")
	}
}

// TestSpecializeSelectCount checks what the pass removes from one kernel:
// select_count for u32 keys kept if nonzero has no flag load and no
// branch on its key type or predicate left, so far fewer blocks.
func TestSpecializeSelectCount(t *testing.T) {
	code := shaders.MustSPIRV("select_count")
	// constant_id: 0 workgroup, 1 PROCS, 2 STRIDE, 3 KEY_WORD, 4 KEY_TYPE
	// (u32), 5 PRED (nonzero), 6 FLAG_BYTES, 7 VECS.
	out, changed, err := spvspec.Specialize(code, []uint32{256, 512, 1, 0, 0, 0, 4, 2})
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	before, after := count(code, 248), count(out, 248)
	if after*2 > before {
		t.Errorf("blocks %d -> %d: expected the predicate's dead branches gone", before, after)
	}
	if count(out, 250)+count(out, 251) >= count(code, 250)+count(code, 251) {
		t.Errorf("conditional branches %d -> %d", count(code, 250)+count(code, 251), count(out, 250)+count(out, 251))
	}
}

// TestSpecializeRefuses: what is not SPIR-V is an error, and the input is
// never modified.
func TestSpecializeRefuses(t *testing.T) {
	for _, bad := range [][]uint32{nil, {1, 2, 3, 4, 5}, {0x07230203, 0, 0, 10, 0, 0xffff0011}} {
		if _, _, err := spvspec.Specialize(bad, nil); err == nil {
			t.Errorf("%x: no error", bad)
		}
	}
	code := shaders.MustSPIRV("select_move")
	keep := append([]uint32{}, code...)
	if _, _, err := spvspec.Specialize(code, []uint32{64, 8, 3, 1, 5, 3, 1, 1, 2, 0, 1, 1}); err != nil {
		t.Fatal(err)
	}
	for i := range code {
		if code[i] != keep[i] {
			t.Fatal("Specialize modified its input")
		}
	}
}

// zeroLengthArray reports whether a module declares an array type whose
// length is a constant 0.
func zeroLengthArray(code []uint32) bool {
	zero := map[uint32]bool{}
	for i := 5; i < len(code) && code[i]>>16 != 0; i += int(code[i] >> 16) {
		switch op := code[i] & 0xffff; {
		case op == 43 && code[i]>>16 >= 4: // OpConstant: type, result, value
			zero[code[i+2]] = code[i+3] == 0
		case op == 28 && zero[code[i+3]]: // OpTypeArray: result, element, length
			return true
		}
	}
	return false
}

// TestSpecializeShortInstructions shortens each label, branch, merge
// and OpPhi of a kernel with every kind of them to each shorter word
// count, one at a time, and specializes the result: what the pass cannot
// read must be an error, never a panic, and the input is not modified.
func TestSpecializeShortInstructions(t *testing.T) {
	code := shaders.MustSPIRV("struct_keys")
	ops := map[uint32]string{245: "OpPhi", 246: "OpLoopMerge", 247: "OpSelectionMerge", 248: "OpLabel",
		249: "OpBranch", 250: "OpBranchConditional", 251: "OpSwitch"}
	seen := map[uint32]bool{}
	for i := 5; i < len(code); i += int(code[i] >> 16) {
		op, n := code[i]&0xffff, int(code[i]>>16)
		if ops[op] == "" {
			continue
		}
		seen[op] = true
		for short := 1; short < min(n, 5); short++ {
			mod := append(append([]uint32{}, code[:i+short]...), code[i+n:]...)
			mod[i] = uint32(short)<<16 | op
			keep := append([]uint32{}, mod...)
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s at word %d cut to %d words: panic: %v", ops[op], i, short, r)
					}
				}()
				spvspec.Specialize(mod, nil)
			}()
			for k := range mod {
				if mod[k] != keep[k] {
					t.Fatalf("%s at word %d cut to %d words: Specialize modified its input", ops[op], i, short)
				}
			}
		}
	}
	if len(seen) != len(ops) {
		t.Fatalf("struct_keys holds only %d of the %d opcodes", len(seen), len(ops))
	}
}
