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
// (BENCHMARKS.md, "Issue 37, third stop").
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
// and decorations or names of what was removed. It also clears the Unroll
// hint of every loop: glslc has unrolled the loops of constant bounds
// already, so the loops left with the hint are those bounded by a
// specialization constant, which SwiftShader would now unroll in full
// (its optimizer unrolls hinted loops of constant bounds): the radix
// scatter's nested loops over subgroups and digits made that compile run
// for minutes and take gigabytes. Where anything falls
// outside that (a loop whose continue target becomes unreachable, an
// instruction it cannot parse) it returns the module unchanged, with
// changed false: the driver specializes it as before.
package spvspec

import (
	"errors"
	"fmt"
)

// inst is one instruction: its words, the first holding its opcode and
// word count.
type inst []uint32

func (in inst) op() uint32 { return in[0] & 0xffff }

func word(op uint32, operands ...uint32) inst {
	return append(inst{uint32(len(operands)+1)<<16 | op}, operands...)
}

// errSkip: the module holds something the pass leaves to the driver.
var errSkip = errors.New("spvspec: not specialized")

// Specialize returns code with constant_id i frozen to constants[i] (the
// module's default where constants is shorter) and the branches this
// makes dead removed; changed is false, and code returned as is, where
// the pass does not apply (see the package documentation). code is never
// modified. An error means code is not SPIR-V the pass can read.
func Specialize(code []uint32, constants []uint32) (out []uint32, changed bool, err error) {
	if len(code) < 5 || code[0] != magic {
		return nil, false, errors.New("spvspec: not a SPIR-V module")
	}
	var insts []inst
	for i := 5; i < len(code); {
		n := int(code[i] >> 16)
		if n == 0 || i+n > len(code) {
			return nil, false, fmt.Errorf("spvspec: bad instruction at word %d", i)
		}
		insts = append(insts, inst(code[i:i+n:i+n]))
		i += n
	}
	s := &spec{constants: constants, specIDs: map[uint32]uint32{}, bools: map[uint32]bool{}, ints: map[uint32]bool{},
		values: map[uint32]uint32{}, composites: map[uint32][]uint32{}, bound: code[3], undefs: map[uint32]uint32{}}
	body, err := s.rewrite(insts)
	if errors.Is(err, errSkip) {
		return code, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	out = append([]uint32{}, code[:5]...)
	out[3] = s.bound
	for _, in := range body {
		out = append(out, in...)
	}
	return out, true, nil
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
}

// undef returns the id of an OpUndef of type typ, declared once.
func (s *spec) undef(typ uint32) uint32 {
	if id, ok := s.undefs[typ]; ok {
		return id
	}
	id := s.bound
	s.bound++
	s.undefs[typ] = id
	s.undefOrder = append(s.undefOrder, word(opUndef, typ, id))
	return id
}

func (s *spec) rewrite(insts []inst) ([]inst, error) {
	for _, in := range insts {
		if in.op() == opDecorate && len(in) == 4 && in[2] == decorationSpecID {
			s.specIDs[in[1]] = in[3]
		}
	}
	var out []inst
	i := 0
	// The global section: types, constants, variables, up to the first
	// function.
	for ; i < len(insts) && insts[i].op() != opFunction; i++ {
		in := insts[i]
		switch {
		case in.op() == opDecorate && len(in) == 4 && in[2] == decorationSpecID:
			continue // frozen below
		case in.op() == opTypeBool && len(in) == 2:
			s.bools[in[1]] = true
		case in.op() == opTypeInt && len(in) == 4 && in[2] == 32:
			s.ints[in[1]] = true
		}
		out = append(out, s.global(in))
	}
	globals := len(out)
	for i < len(insts) {
		j := i
		for j < len(insts) && insts[j].op() != opFunctionEnd {
			j++
		}
		if j == len(insts) {
			return nil, errors.New("spvspec: a function without OpFunctionEnd")
		}
		fn, err := s.function(insts[i : j+1])
		if err != nil {
			return nil, err
		}
		out = append(out, fn...)
		i = j + 1
	}
	out = append(out[:globals:globals], append(s.undefOrder, out[globals:]...)...)
	return dropDangling(out), nil
}

// global rewrites one instruction of the global section, recording the
// constants it defines.
func (s *spec) global(in inst) inst {
	switch in.op() {
	case opConstantTrue, opConstantFalse:
		if len(in) == 3 {
			s.values[in[2]] = b2u(in.op() == opConstantTrue)
		}
	case opConstant:
		if len(in) == 4 && s.ints[in[1]] {
			s.values[in[2]] = in[3]
		}
	case opConstantComposite:
		if len(in) >= 3 {
			s.composites[in[2]] = append([]uint32{}, in[3:]...)
		}
	case opSpecConstantTrue, opSpecConstantFalse:
		if len(in) != 3 {
			return in
		}
		v := in.op() == opSpecConstantTrue
		if c, ok := s.given(in[2]); ok {
			v = c != 0
		}
		s.values[in[2]] = b2u(v)
		if v {
			return word(opConstantTrue, in[1], in[2])
		}
		return word(opConstantFalse, in[1], in[2])
	case opSpecConstant:
		if len(in) != 4 || !s.ints[in[1]] {
			return in // 64-bit or float: left to the driver
		}
		v := in[3]
		if c, ok := s.given(in[2]); ok {
			v = c
		}
		s.values[in[2]] = v
		return word(opConstant, in[1], in[2], v)
	case opSpecConstantComposite:
		if len(in) < 3 {
			return in
		}
		s.composites[in[2]] = append([]uint32{}, in[3:]...)
		out := append(inst{}, in...)
		out[0] = out[0]&0xffff0000 | opConstantComposite
		return out
	case opSpecConstantOp:
		if len(in) < 4 {
			return in
		}
		v, ok := s.fold(in[1], in[3], in[4:])
		if !ok {
			return in // its operands are constants now: still valid
		}
		s.values[in[2]] = v
		if s.bools[in[1]] {
			if v != 0 {
				return word(opConstantTrue, in[1], in[2])
			}
			return word(opConstantFalse, in[1], in[2])
		}
		return word(opConstant, in[1], in[2], v)
	}
	return in
}

// given returns the value constants gives the spec constant id, if any.
func (s *spec) given(id uint32) (uint32, bool) {
	sid, ok := s.specIDs[id]
	if !ok || int(sid) >= len(s.constants) {
		return 0, false
	}
	return s.constants[sid], true
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// fold evaluates OpSpecConstantOp's operation op on operands, for a
// result of type typ: 32-bit integers and booleans only.
func (s *spec) fold(typ, op uint32, operands []uint32) (uint32, bool) {
	if !s.bools[typ] && !s.ints[typ] {
		return 0, false
	}
	if op == opCompositeExtract {
		if len(operands) != 2 {
			return 0, false
		}
		parts, ok := s.composites[operands[0]]
		if !ok || int(operands[1]) >= len(parts) {
			return 0, false
		}
		v, ok := s.values[parts[operands[1]]]
		return v, ok
	}
	vals := make([]uint32, len(operands))
	for i, id := range operands {
		v, ok := s.values[id]
		if !ok {
			return 0, false
		}
		vals[i] = v
	}
	if len(vals) == 1 {
		a := vals[0]
		switch op {
		case opLogicalNot:
			return b2u(a == 0), true
		case opNot:
			return ^a, true
		case opSNegate:
			return -a, true
		case opUConvert, opSConvert: // between 32-bit types
			return a, true
		}
		return 0, false
	}
	if op == opSelect {
		if len(vals) != 3 {
			return 0, false
		}
		if vals[0] != 0 {
			return vals[1], true
		}
		return vals[2], true
	}
	if len(vals) != 2 {
		return 0, false
	}
	a, b := vals[0], vals[1]
	sa, sb := int32(a), int32(b)
	switch op {
	case opIAdd:
		return a + b, true
	case opISub:
		return a - b, true
	case opIMul:
		return a * b, true
	case opUDiv:
		if b == 0 {
			return 0, false
		}
		return a / b, true
	case opSDiv:
		if b == 0 || (sa == -1<<31 && sb == -1) {
			return 0, false
		}
		return uint32(sa / sb), true
	case opUMod:
		if b == 0 {
			return 0, false
		}
		return a % b, true
	case opSRem:
		if b == 0 || (sa == -1<<31 && sb == -1) {
			return 0, false
		}
		return uint32(sa % sb), true
	case opShiftRightLogical:
		if b >= 32 {
			return 0, false
		}
		return a >> b, true
	case opShiftRightArithmetic:
		if b >= 32 {
			return 0, false
		}
		return uint32(sa >> b), true
	case opShiftLeftLogical:
		if b >= 32 {
			return 0, false
		}
		return a << b, true
	case opBitwiseOr:
		return a | b, true
	case opBitwiseXor:
		return a ^ b, true
	case opBitwiseAnd:
		return a & b, true
	case opLogicalEqual:
		return b2u((a != 0) == (b != 0)), true
	case opLogicalNotEqual:
		return b2u((a != 0) != (b != 0)), true
	case opLogicalOr:
		return b2u(a != 0 || b != 0), true
	case opLogicalAnd:
		return b2u(a != 0 && b != 0), true
	case opIEqual:
		return b2u(a == b), true
	case opINotEqual:
		return b2u(a != b), true
	case opUGreaterThan:
		return b2u(a > b), true
	case opSGreaterThan:
		return b2u(sa > sb), true
	case opUGreaterThanEqual:
		return b2u(a >= b), true
	case opSGreaterThanEqual:
		return b2u(sa >= sb), true
	case opULessThan:
		return b2u(a < b), true
	case opSLessThan:
		return b2u(sa < sb), true
	case opULessThanEqual:
		return b2u(a <= b), true
	case opSLessThanEqual:
		return b2u(sa <= sb), true
	}
	return 0, false
}

// block is one basic block of a function: its label, its instructions
// (the label first, the terminator last).
type block struct {
	label uint32
	insts []inst
}

func (b *block) term() inst { return b.insts[len(b.insts)-1] }

// mergeInst returns the block's merge instruction (OpSelectionMerge or
// OpLoopMerge, just before the terminator), or nil.
func (b *block) mergeInst() inst {
	if len(b.insts) < 3 {
		return nil
	}
	m := b.insts[len(b.insts)-2]
	if m.op() == opSelectionMerge || m.op() == opLoopMerge {
		return m
	}
	return nil
}

// successors returns the labels the block's terminator branches to.
func (b *block) successors() []uint32 {
	t := b.term()
	switch t.op() {
	case opBranch:
		return []uint32{t[1]}
	case opBranchConditional:
		return []uint32{t[2], t[3]}
	case opSwitch:
		// Selector, default, then (literal, label) pairs of a 32-bit
		// selector (checked by the caller before folding; here any).
		out := []uint32{t[2]}
		for k := 4; k < len(t); k += 2 {
			out = append(out, t[k])
		}
		return out
	}
	return nil
}

// function specializes one function: OpFunction up to OpFunctionEnd.
func (s *spec) function(insts []inst) ([]inst, error) {
	var head []inst // OpFunction, its parameters
	var blocks []*block
	var cur *block
	for _, in := range insts[:len(insts)-1] {
		switch {
		case in.op() == opLabel:
			if cur != nil {
				return nil, errors.New("spvspec: a block without a terminator")
			}
			cur = &block{label: in[1], insts: []inst{in}}
		case cur == nil:
			head = append(head, in)
		default:
			if in.op() == opLoopMerge && len(in) >= 4 && in[3]&loopUnroll != 0 {
				in = append(inst{}, in...)
				in[3] &^= loopUnroll
			}
			cur.insts = append(cur.insts, in)
			if isTerminator(in.op()) {
				blocks = append(blocks, cur)
				cur = nil
			}
		}
	}
	if cur != nil {
		return nil, errors.New("spvspec: a block without a terminator")
	}
	if len(blocks) == 0 { // a declaration
		return insts, nil
	}
	byLabel := map[uint32]*block{}
	for _, b := range blocks {
		byLabel[b.label] = b
	}
	// Fold the selections whose condition is constant.
	for _, b := range blocks {
		m := b.mergeInst()
		if m != nil && m.op() == opLoopMerge {
			continue // a loop's own branch stays
		}
		t := b.term()
		target, ok := uint32(0), false
		switch t.op() {
		case opBranchConditional:
			if c, known := s.values[t[1]]; known && len(t) >= 4 {
				target, ok = t[3], true
				if c != 0 {
					target = t[2]
				}
			}
		case opSwitch:
			if c, known := s.values[t[1]]; known && (len(t)-3)%2 == 0 {
				target, ok = t[2], true
				for k := 3; k+1 < len(t); k += 2 {
					if t[k] == c {
						target = t[k+1]
						break
					}
				}
			}
		}
		if !ok {
			continue
		}
		if m == nil && t.op() == opBranchConditional {
			// A conditional branch with no merge of its own (a loop's
			// break or continue) is left alone: folding it is safe, but
			// the loop it leaves may then lose its continue target.
			continue
		}
		n := len(b.insts)
		switch {
		case m == nil:
			b.insts = append(b.insts[:n-1:n-1], word(opBranch, target))
		case target == m[1]:
			// Straight to the merge: nothing of the construct is left,
			// no branch from inside it can need the merge.
			b.insts = append(b.insts[:n-2:n-2], word(opBranch, target))
		case t.op() == opBranchConditional:
			// The construct stays, its merge too (a block inside may
			// branch to it, or break from it to an enclosing merge);
			// the dead side becomes the merge.
			if s.values[t[1]] != 0 {
				b.insts[n-1] = word(opBranchConditional, t[1], target, m[1])
			} else {
				b.insts[n-1] = word(opBranchConditional, t[1], m[1], target)
			}
		default:
			b.insts[n-1] = word(opSwitch, t[1], target) // the taken case as the default, alone
		}
	}
	// What the entry still reaches.
	reach := map[uint32]bool{}
	stack := []uint32{blocks[0].label}
	for len(stack) > 0 {
		l := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if reach[l] {
			continue
		}
		b, ok := byLabel[l]
		if !ok {
			return nil, fmt.Errorf("spvspec: a branch to %%%d, no block", l)
		}
		reach[l] = true
		stack = append(stack, b.successors()...)
	}
	// The merge blocks live constructs still name; a loop's continue
	// target must stay reachable.
	merges := map[uint32]bool{}
	for _, b := range blocks {
		if !reach[b.label] {
			continue
		}
		if m := b.mergeInst(); m != nil {
			merges[m[1]] = true
			if m.op() == opLoopMerge && !reach[m[2]] {
				return nil, errSkip
			}
		}
	}
	var kept []*block
	for _, b := range blocks {
		switch {
		case reach[b.label]:
			kept = append(kept, b)
		case merges[b.label]:
			kept = append(kept, &block{label: b.label, insts: []inst{b.insts[0], word(opUnreachable)}})
		}
	}
	// OpPhi operands from blocks that no longer branch here.
	preds := map[uint32]map[uint32]bool{}
	for _, b := range kept {
		for _, t := range b.successors() {
			if preds[t] == nil {
				preds[t] = map[uint32]bool{}
			}
			preds[t][b.label] = true
		}
	}
	out := append([]inst{}, head...)
	for _, b := range kept {
		for _, in := range b.insts {
			if in.op() == opPhi && len(in) >= 3 {
				// Keep the operands of the block's predecessors; a header
				// whose dead side now branches to its merge is a new
				// predecessor there, on an edge never taken: undefined.
				phi := inst{0, in[1], in[2]}
				have := map[uint32]bool{}
				for k := 3; k+1 < len(in); k += 2 {
					if preds[b.label][in[k+1]] {
						phi = append(phi, in[k], in[k+1])
						have[in[k+1]] = true
					}
				}
				for _, p := range kept {
					if preds[b.label][p.label] && !have[p.label] {
						phi = append(phi, s.undef(in[1]), p.label)
					}
				}
				phi[0] = uint32(len(phi))<<16 | opPhi
				in = phi
			}
			out = append(out, in)
		}
	}
	return append(out, insts[len(insts)-1]), nil
}

// dropDangling drops the names and decorations of ids that no
// instruction defines any more (those of removed blocks).
func dropDangling(insts []inst) []inst {
	defined := map[uint32]bool{}
	inFunction := false
	for _, in := range insts {
		op := in.op()
		switch {
		case op == opFunction:
			inFunction = true
			if len(in) > 2 {
				defined[in[2]] = true
			}
		case op == opFunctionEnd:
			inFunction = false
		case !inFunction:
			// Globals: a type defines word 1, a constant or variable
			// word 2; marking both is harmless. Debug, annotation and
			// mode instructions define nothing.
			if !annotation[op] {
				for _, w := range in[1:min(len(in), 3)] {
					defined[w] = true
				}
			}
		case op == opLabel:
			defined[in[1]] = true
		case !noResult[op] && len(in) > 2:
			defined[in[2]] = true
		}
	}
	out := insts[:0:0]
	for _, in := range insts {
		switch in.op() {
		case opName, opDecorate, opDecorateID, opDecorateString:
			if len(in) > 1 && !defined[in[1]] {
				continue
			}
		}
		out = append(out, in)
	}
	return out
}
