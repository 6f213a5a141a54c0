package spvspec

// global rewrites one instruction of the global section, recording the
// constants it defines: a specialization constant becomes the constant
// of its given value (or its default), an OpSpecConstantOp the constant
// it folds to, where it folds.
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
		return s.freezeBool(in)
	case opSpecConstant:
		return s.freezeInt(in)
	case opSpecConstantComposite:
		if len(in) < 3 {
			return in
		}
		s.composites[in[2]] = append([]uint32{}, in[3:]...)
		out := append(inst{}, in...)
		out[0] = out[0]&0xffff0000 | opConstantComposite
		return out
	case opSpecConstantOp:
		return s.foldSpecOp(in)
	}
	return in
}

// freezeBool turns an OpSpecConstantTrue or OpSpecConstantFalse into the
// OpConstantTrue or OpConstantFalse of its given value, or its default.
func (s *spec) freezeBool(in inst) inst {
	if len(in) != 3 {
		return in
	}
	v := in.op() == opSpecConstantTrue
	if c, ok := s.given(in[2]); ok {
		v = c != 0
	}
	s.values[in[2]] = b2u(v)
	return boolConstant(in[1], in[2], v)
}

// freezeInt turns an OpSpecConstant of a 32-bit integer type into the
// OpConstant of its given value, or its default; one of another type
// (64-bit, float) is left to the driver.
func (s *spec) freezeInt(in inst) inst {
	if len(in) != 4 || !s.ints[in[1]] {
		return in
	}
	v := in[3]
	if c, ok := s.given(in[2]); ok {
		v = c
	}
	s.values[in[2]] = v
	return word(opConstant, in[1], in[2], v)
}

// foldSpecOp turns an OpSpecConstantOp the pass can evaluate into the
// constant it evaluates to; one it cannot is left as it is (its
// operands are constants now: it is still valid).
func (s *spec) foldSpecOp(in inst) inst {
	if len(in) < 4 {
		return in
	}
	v, ok := s.fold(in[1], in[3], in[4:])
	if !ok {
		return in
	}
	s.values[in[2]] = v
	if s.bools[in[1]] {
		return boolConstant(in[1], in[2], v != 0)
	}
	return word(opConstant, in[1], in[2], v)
}

// boolConstant returns the OpConstantTrue or OpConstantFalse of type
// typ and result id.
func boolConstant(typ, id uint32, v bool) inst {
	if v {
		return word(opConstantTrue, typ, id)
	}
	return word(opConstantFalse, typ, id)
}

// given returns the value constants gives the spec constant id, if any.
func (s *spec) given(id uint32) (uint32, bool) {
	sid, ok := s.specIDs[id]
	if !ok || int(sid) >= len(s.constants) {
		return 0, false
	}
	return s.constants[sid], true
}

// b2u returns 1 for true, 0 for false: a boolean constant's value.
func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// fold evaluates OpSpecConstantOp's operation op on operands, for a
// result of type typ: 32-bit integers and booleans only. It reports
// false where it cannot (an operand not a known constant, an operation
// it does not know, a division by zero or a shift past 31).
func (s *spec) fold(typ, op uint32, operands []uint32) (uint32, bool) {
	if !s.bools[typ] && !s.ints[typ] {
		return 0, false
	}
	if op == opCompositeExtract {
		return s.foldExtract(operands)
	}
	vals := make([]uint32, len(operands))
	for i, id := range operands {
		v, ok := s.values[id]
		if !ok {
			return 0, false
		}
		vals[i] = v
	}
	switch {
	case len(vals) == 1:
		return foldUnary(op, vals[0])
	case op == opSelect:
		if len(vals) != 3 {
			return 0, false
		}
		if vals[0] != 0 {
			return vals[1], true
		}
		return vals[2], true
	case len(vals) != 2:
		return 0, false
	case isComparison(op):
		return foldComparison(op, vals[0], vals[1])
	}
	return foldArithmetic(op, vals[0], vals[1])
}

// foldExtract evaluates OpCompositeExtract of a constant composite with
// one index: the value of the constituent it names.
func (s *spec) foldExtract(operands []uint32) (uint32, bool) {
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

// foldUnary evaluates the operations of one operand.
func foldUnary(op, a uint32) (uint32, bool) {
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

// foldArithmetic evaluates the integer arithmetic, shift and bitwise
// operations of two operands; a division by zero, a signed division
// that overflows and a shift of 32 or more are left unfolded.
func foldArithmetic(op, a, b uint32) (uint32, bool) {
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
	}
	return 0, false
}

// isComparison reports whether op is a logical operation or a
// comparison of two operands, which foldComparison evaluates.
func isComparison(op uint32) bool {
	switch op {
	case opLogicalEqual, opLogicalNotEqual, opLogicalOr, opLogicalAnd,
		opIEqual, opINotEqual, opUGreaterThan, opSGreaterThan, opUGreaterThanEqual, opSGreaterThanEqual,
		opULessThan, opSLessThan, opULessThanEqual, opSLessThanEqual:
		return true
	}
	return false
}

// foldComparison evaluates the logical operations and the integer
// comparisons of two operands, to 0 or 1.
func foldComparison(op, a, b uint32) (uint32, bool) {
	sa, sb := int32(a), int32(b)
	switch op {
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
