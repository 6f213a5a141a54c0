// Package spvspec specializes a SPIR-V module ahead of the driver: it
// freezes the module's specialization constants to given values, folds
// the constant expressions built on them (OpSpecConstantOp), and removes
// the branches those make dead, with the blocks only they reached.
//
// Why: SwiftShader freezes and folds specialization constants itself but
// eliminates no dead branch; it runs every block of an if, masked,
// whatever its condition. vkcompact's kernels choose their key type,
// predicate, layout and options by specialization constants, so there
// every element paid for every choice: select_count at 2^16 took 12-15 ms
// on SwiftShader, and 0.7-0.9 ms with the dead branches removed first
// (the benchmark record of 2026-11-28: the lane-serial sort, SPIR-V
// specialized for SwiftShader).
//
// The pass is deliberately small: it rewrites OpSpecConstant,
// OpSpecConstantTrue/False, OpSpecConstantComposite and the
// OpSpecConstantOp operations it can evaluate (32-bit integer and boolean
// arithmetic, comparisons, selects, composite extracts) into constants,
// points the dead side of each OpBranchConditional or OpSwitch of a
// selection construct whose condition is now constant at the construct's
// merge (or, where the live side is the merge, makes it an OpBranch and
// drops the OpSelectionMerge), removes the blocks no longer reachable from a
// function's entry, turns an unreachable block that a live construct still
// names as its merge into a lone OpUnreachable, and drops OpPhi operands
// and decorations or names of what was removed (an OpPhi gets an
// OpUndef for an edge the pass adds, never taken). It also clears the Unroll
// hint of every loop: glslc has unrolled the loops of constant bounds
// already, so the loops left with the hint are those bounded by a
// specialization constant, which SwiftShader would now unroll in full
// (its optimizer unrolls hinted loops of constant bounds): the radix
// scatter's nested loops over subgroups and digits made that compile run
// for minutes and take gigabytes. Where the result would fall outside
// that (a loop whose continue target becomes unreachable, an OpUndef
// needed where the module's id bound leaves no id) it returns the module
// unchanged, with changed false: the driver specializes it as before.
// What it cannot read (not SPIR-V, an instruction running past the end,
// a label, branch or merge too short for its operands, a block or
// function left open) is an error.
package spvspec

import (
	"errors"
	"math"
)

// The pass in files, in the order it runs: module.go reads the module,
// rewrites its global section and functions in turn and writes it back;
// fold.go freezes the specialization constants and folds the constant
// expressions on them; function.go folds each function's constant
// branches, keeps what its entry still reaches and rewrites its OpPhis,
// over the control-flow graph of cfg.go; opcodes.go names the opcodes.

// errSkip: the module holds something the pass leaves to the driver.
var errSkip = errors.New("spvspec: not specialized")

// Specialize returns code with constant_id i frozen to constants[i] (the
// module's default where constants is shorter) and the branches this
// makes dead removed; changed is false, and code returned as is, where
// the pass does not apply (see the package documentation). code is never
// modified. An error means code is not SPIR-V the pass can read.
func Specialize(code []uint32, constants []uint32) (out []uint32, changed bool, err error) {
	insts, err := parseModule(code)
	if err != nil {
		return nil, false, err
	}
	s := newSpec(constants, code[boundWord])
	body, err := s.rewrite(insts)
	if errors.Is(err, errSkip) {
		return code, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return assemble(code, s.bound, body), true, nil
}

// spec is the pass's state over one module.
type spec struct {
	constants  []uint32
	specIDs    map[uint32]uint32   // result id -> SpecId
	bools      map[uint32]bool     // bool type ids
	ints       map[uint32]bool     // 32-bit integer type ids
	values     map[uint32]uint32   // constant result id -> value (bools 0 or 1)
	composites map[uint32][]uint32 // constant composite id -> constituents
	bound      uint32              // the module's id bound, raised by new ids
	undefs     map[uint32]uint32   // type id -> an OpUndef of it (new)
	undefOrder []inst              // the new OpUndefs, for the global section
	err        error               // errSkip once an id was needed past the largest bound
}

// newSpec returns the state of a pass freezing the specialization
// constants to constants over a module of id bound bound.
func newSpec(constants []uint32, bound uint32) *spec {
	return &spec{constants: constants, specIDs: map[uint32]uint32{}, bools: map[uint32]bool{}, ints: map[uint32]bool{},
		values: map[uint32]uint32{}, composites: map[uint32][]uint32{}, bound: bound, undefs: map[uint32]uint32{}}
}

// undef returns the id of an OpUndef of type typ, declared once. Where
// the module's id bound leaves no id to take, it sets s.err to errSkip.
func (s *spec) undef(typ uint32) uint32 {
	if id, ok := s.undefs[typ]; ok {
		return id
	}
	if s.bound == math.MaxUint32 {
		s.err = errSkip
		return 0
	}
	id := s.bound
	s.bound++
	s.undefs[typ] = id
	s.undefOrder = append(s.undefOrder, word(opUndef, typ, id))
	return id
}
