package spvspec_test

import (
	"fmt"
	"testing"

	"github.com/vkcompact/vkcompact/internal/spvspec"
)

// The ids of foldModule: two 32-bit integer types, bool, a uvec2, four
// specialization constants (a, b unsigned; p, q bool), a composite of
// (a, b), and the folded result.
const (
	idUint uint32 = iota + 1
	idInt
	idBool
	idVec2
	idA
	idB
	idP
	idQ
	idPair
	idResult
	idBound
)

// SPIR-V opcodes the fold table uses.
const (
	spvOpTypeBool                     = 20
	spvOpTypeInt                      = 21
	spvOpTypeVector                   = 23
	spvOpConstantTrue                 = 41
	spvOpConstantFalse                = 42
	spvOpConstant                     = 43
	spvOpDecorate                     = 71
	spvOpSpecConstantTrue             = 48
	spvOpSpecConstant                 = 50
	spvOpSpecConstantComposite        = 51
	spvOpSpecConstantOp               = 52
	spvOpCompositeExtract             = 81
	spvDecorationSpecID               = 1
	spvVersion13                      = 0x00010300
	spvMagic                   uint32 = 0x07230203
)

// inst encodes one instruction.
func inst(op uint32, operands ...uint32) []uint32 {
	return append([]uint32{uint32(len(operands)+1)<<16 | op}, operands...)
}

// foldModule returns a module whose only work is
//
//	%result = OpSpecConstantOp %typ op operands...
//
// over the specialization constants a (SpecId 0), b (1), both uint, and
// p (2), q (3), both bool, and the composite pair = (a, b).
func foldModule(typ, op uint32, operands ...uint32) []uint32 {
	code := []uint32{spvMagic, spvVersion13, 0, idBound, 0}
	for id, sid := range map[uint32]uint32{idA: 0, idB: 1, idP: 2, idQ: 3} {
		code = append(code, inst(spvOpDecorate, id, spvDecorationSpecID, sid)...)
	}
	code = append(code, inst(spvOpTypeInt, idUint, 32, 0)...)
	code = append(code, inst(spvOpTypeInt, idInt, 32, 1)...)
	code = append(code, inst(spvOpTypeBool, idBool)...)
	code = append(code, inst(spvOpTypeVector, idVec2, idUint, 2)...)
	code = append(code, inst(spvOpSpecConstant, idUint, idA, 0)...)
	code = append(code, inst(spvOpSpecConstant, idUint, idB, 0)...)
	code = append(code, inst(spvOpSpecConstantTrue, idBool, idP)...)
	code = append(code, inst(spvOpSpecConstantTrue, idBool, idQ)...)
	code = append(code, inst(spvOpSpecConstantComposite, idVec2, idPair, idA, idB)...)
	code = append(code, inst(spvOpSpecConstantOp, append([]uint32{typ, idResult, op}, operands...)...)...)
	return code
}

// folded specializes m with constants and returns the value the pass gave
// %result (bools 0 or 1), and whether it folded it into a constant.
func folded(t *testing.T, m []uint32, constants []uint32) (uint32, bool) {
	t.Helper()
	out, changed, err := spvspec.Specialize(m, constants)
	if err != nil || !changed {
		t.Fatalf("Specialize: changed %v, %v", changed, err)
	}
	for i := 5; i < len(out); i += int(out[i] >> 16) {
		in := out[i : i+int(out[i]>>16)]
		if len(in) < 3 || in[2] != idResult {
			continue
		}
		switch in[0] & 0xffff {
		case spvOpConstant:
			return in[3], true
		case spvOpConstantTrue:
			return 1, true
		case spvOpConstantFalse:
			return 0, true
		case spvOpSpecConstantOp:
			return 0, false
		}
		t.Fatalf("%%result became opcode %d", in[0]&0xffff)
	}
	t.Fatal("%result is gone")
	return 0, false
}

// neg is the two's complement bits of -v.
func neg(v uint32) uint32 { return -v }

// TestFoldTable folds every operation the pass evaluates on operands
// chosen so that each gives its own answer: every comparison at a < b,
// a == b and a > b (and where signed and unsigned order differ), each
// arithmetic, bitwise and logical operation, the unary ones, Select and
// CompositeExtract; and checks that the operations it must not fold (a
// division by zero, a shift of 32 or more) stay as they were. The wanted
// values are written out, not computed by the code under test.
func TestFoldTable(t *testing.T) {
	const (
		opSConvert, opUConvert, opSNegate                     = 114, 113, 126
		opIAdd, opISub, opIMul, opUDiv, opSDiv                = 128, 130, 132, 134, 135
		opUMod, opSRem                                        = 137, 138
		opLogicalEqual, opLogicalNotEqual, opLogicalOr        = 164, 165, 166
		opLogicalAnd, opLogicalNot, opSelect                  = 167, 168, 169
		opIEqual, opINotEqual                                 = 170, 171
		opUGreaterThan, opSGreaterThan                        = 172, 173
		opUGreaterThanEqual, opSGreaterThanEqual              = 174, 175
		opULessThan, opSLessThan                              = 176, 177
		opULessThanEqual, opSLessThanEqual                    = 178, 179
		opShiftRightLogical, opShiftRightArithmetic           = 194, 195
		opShiftLeftLogical, opBitwiseOr, opBitwiseXor         = 196, 197, 198
		opBitwiseAnd, opNot                                   = 199, 200
		unfolded                                       uint32 = 0xdead // want: left as OpSpecConstantOp
	)
	m1 := neg(1) // -1: the largest uint32, the smallest of these as int32
	// Each comparison over the pairs (3, 5), (5, 5), (5, 3), (-1, 1).
	pairs := [4][2]uint32{{3, 5}, {5, 5}, {5, 3}, {m1, 1}}
	compares := []struct {
		name string
		op   uint32
		want [4]uint32
	}{
		{"IEqual", opIEqual, [4]uint32{0, 1, 0, 0}},
		{"INotEqual", opINotEqual, [4]uint32{1, 0, 1, 1}},
		{"ULessThan", opULessThan, [4]uint32{1, 0, 0, 0}},
		{"ULessThanEqual", opULessThanEqual, [4]uint32{1, 1, 0, 0}},
		{"UGreaterThan", opUGreaterThan, [4]uint32{0, 0, 1, 1}},
		{"UGreaterThanEqual", opUGreaterThanEqual, [4]uint32{0, 1, 1, 1}},
		{"SLessThan", opSLessThan, [4]uint32{1, 0, 0, 1}},
		{"SLessThanEqual", opSLessThanEqual, [4]uint32{1, 1, 0, 1}},
		{"SGreaterThan", opSGreaterThan, [4]uint32{0, 0, 1, 0}},
		{"SGreaterThanEqual", opSGreaterThanEqual, [4]uint32{0, 1, 1, 0}},
	}
	for _, c := range compares {
		for k, ab := range pairs {
			t.Run(fmt.Sprintf("%s(%d,%d)", c.name, int32(ab[0]), int32(ab[1])), func(t *testing.T) {
				got, ok := folded(t, foldModule(idBool, c.op, idA, idB), []uint32{ab[0], ab[1]})
				if !ok || got != c.want[k] {
					t.Errorf("folded %v to %d, want %d", ok, got, c.want[k])
				}
			})
		}
	}
	// The logical operations over every pair of booleans (p, q): (0, 0),
	// (0, 1), (1, 0), (1, 1).
	logicals := []struct {
		name string
		op   uint32
		want [4]uint32
	}{
		{"LogicalEqual", opLogicalEqual, [4]uint32{1, 0, 0, 1}},
		{"LogicalNotEqual", opLogicalNotEqual, [4]uint32{0, 1, 1, 0}},
		{"LogicalOr", opLogicalOr, [4]uint32{0, 1, 1, 1}},
		{"LogicalAnd", opLogicalAnd, [4]uint32{0, 0, 0, 1}},
	}
	for _, c := range logicals {
		for k := range 4 {
			p, q := uint32(k>>1), uint32(k&1)
			t.Run(fmt.Sprintf("%s(%d,%d)", c.name, p, q), func(t *testing.T) {
				got, ok := folded(t, foldModule(idBool, c.op, idP, idQ), []uint32{0, 0, p, q})
				if !ok || got != c.want[k] {
					t.Errorf("folded %v to %d, want %d", ok, got, c.want[k])
				}
			})
		}
	}
	// The arithmetic and bitwise operations, and the unary and other
	// forms, each on operands of its own.
	others := []struct {
		name     string
		typ, op  uint32
		operands []uint32
		consts   []uint32 // a, b, p, q
		want     uint32
	}{
		{"IAdd", idUint, opIAdd, []uint32{idA, idB}, []uint32{7, 5}, 12},
		{"IAdd wraps", idUint, opIAdd, []uint32{idA, idB}, []uint32{m1, 2}, 1},
		{"ISub", idUint, opISub, []uint32{idA, idB}, []uint32{7, 5}, 2},
		{"ISub wraps", idUint, opISub, []uint32{idA, idB}, []uint32{5, 7}, neg(2)},
		{"IMul", idUint, opIMul, []uint32{idA, idB}, []uint32{7, 5}, 35},
		{"IMul wraps", idUint, opIMul, []uint32{idA, idB}, []uint32{0x10001, 0x10000}, 0x10000},
		{"UDiv", idUint, opUDiv, []uint32{idA, idB}, []uint32{17, 5}, 3},
		{"UDiv of -1", idUint, opUDiv, []uint32{idA, idB}, []uint32{m1, 2}, 0x7fffffff},
		{"UDiv by 0", idUint, opUDiv, []uint32{idA, idB}, []uint32{17, 0}, unfolded},
		{"SDiv", idInt, opSDiv, []uint32{idA, idB}, []uint32{neg(17), 5}, neg(3)},
		{"SDiv by 0", idInt, opSDiv, []uint32{idA, idB}, []uint32{17, 0}, unfolded},
		{"SDiv overflow", idInt, opSDiv, []uint32{idA, idB}, []uint32{0x80000000, m1}, unfolded},
		{"UMod", idUint, opUMod, []uint32{idA, idB}, []uint32{17, 5}, 2},
		{"UMod by 0", idUint, opUMod, []uint32{idA, idB}, []uint32{17, 0}, unfolded},
		{"SRem", idInt, opSRem, []uint32{idA, idB}, []uint32{neg(17), 5}, neg(2)},
		{"SRem of a negative divisor", idInt, opSRem, []uint32{idA, idB}, []uint32{17, neg(5)}, 2},
		{"SRem by 0", idInt, opSRem, []uint32{idA, idB}, []uint32{17, 0}, unfolded},
		{"ShiftRightLogical", idUint, opShiftRightLogical, []uint32{idA, idB}, []uint32{0x80000010, 4}, 0x08000001},
		{"ShiftRightLogical by 32", idUint, opShiftRightLogical, []uint32{idA, idB}, []uint32{1, 32}, unfolded},
		{"ShiftRightArithmetic", idInt, opShiftRightArithmetic, []uint32{idA, idB}, []uint32{0x80000010, 4}, 0xf8000001},
		{"ShiftRightArithmetic by 32", idInt, opShiftRightArithmetic, []uint32{idA, idB}, []uint32{1, 32}, unfolded},
		{"ShiftLeftLogical", idUint, opShiftLeftLogical, []uint32{idA, idB}, []uint32{0x18000001, 4}, 0x80000010},
		{"ShiftLeftLogical by 32", idUint, opShiftLeftLogical, []uint32{idA, idB}, []uint32{1, 32}, unfolded},
		{"BitwiseOr", idUint, opBitwiseOr, []uint32{idA, idB}, []uint32{0b1100, 0b1010}, 0b1110},
		{"BitwiseXor", idUint, opBitwiseXor, []uint32{idA, idB}, []uint32{0b1100, 0b1010}, 0b0110},
		{"BitwiseAnd", idUint, opBitwiseAnd, []uint32{idA, idB}, []uint32{0b1100, 0b1010}, 0b1000},
		{"Not", idUint, opNot, []uint32{idA}, []uint32{0x0f0f0f0f}, 0xf0f0f0f0},
		{"SNegate", idInt, opSNegate, []uint32{idA}, []uint32{5}, neg(5)},
		{"UConvert", idUint, opUConvert, []uint32{idA}, []uint32{0x89abcdef}, 0x89abcdef},
		{"SConvert", idInt, opSConvert, []uint32{idA}, []uint32{0x89abcdef}, 0x89abcdef},
		{"LogicalNot of false", idBool, opLogicalNot, []uint32{idP}, []uint32{0, 0, 0}, 1},
		{"LogicalNot of true", idBool, opLogicalNot, []uint32{idP}, []uint32{0, 0, 1}, 0},
		{"Select true", idUint, opSelect, []uint32{idP, idA, idB}, []uint32{7, 5, 1}, 7},
		{"Select false", idUint, opSelect, []uint32{idP, idA, idB}, []uint32{7, 5, 0}, 5},
		{"CompositeExtract 0", idUint, spvOpCompositeExtract, []uint32{idPair, 0}, []uint32{7, 5}, 7},
		{"CompositeExtract 1", idUint, spvOpCompositeExtract, []uint32{idPair, 1}, []uint32{7, 5}, 5},
		{"CompositeExtract past the end", idUint, spvOpCompositeExtract, []uint32{idPair, 2}, []uint32{7, 5}, unfolded},
	}
	for _, c := range others {
		t.Run(c.name, func(t *testing.T) {
			got, ok := folded(t, foldModule(c.typ, c.op, c.operands...), c.consts)
			switch {
			case c.want == unfolded && ok:
				t.Errorf("folded to %#x, want it left to the driver", got)
			case c.want != unfolded && (!ok || got != c.want):
				t.Errorf("folded %v to %#x, want %#x", ok, got, c.want)
			}
		})
	}
}
