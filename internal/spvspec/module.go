package spvspec

import (
	"errors"
	"fmt"
)

// inst is one instruction: its words, the first holding its opcode and
// word count.
type inst []uint32

// op returns the instruction's opcode.
func (in inst) op() uint32 { return in[0] & 0xffff }

// word encodes an instruction of opcode op with the given operands.
func word(op uint32, operands ...uint32) inst {
	return append(inst{uint32(len(operands)+1)<<16 | op}, operands...)
}

// parseModule splits a module's words after its header into
// instructions, which share code's memory: the pass never writes them.
func parseModule(code []uint32) ([]inst, error) {
	if len(code) < headerWords || code[0] != magic {
		return nil, errors.New("spvspec: not a SPIR-V module")
	}
	var insts []inst
	for i := headerWords; i < len(code); {
		n := int(code[i] >> 16)
		if n == 0 || i+n > len(code) {
			return nil, fmt.Errorf("spvspec: bad instruction at word %d", i)
		}
		insts = append(insts, inst(code[i:i+n:i+n]))
		i += n
	}
	return insts, nil
}

// assemble returns a new module of code's header, with the id bound
// given, followed by body's instructions.
func assemble(code []uint32, bound uint32, body []inst) []uint32 {
	out := append([]uint32{}, code[:headerWords]...)
	out[boundWord] = bound
	for _, in := range body {
		out = append(out, in...)
	}
	return out
}

// isSpecID reports whether in is an OpDecorate giving an id its SpecId.
func isSpecID(in inst) bool {
	return in.op() == opDecorate && len(in) == 4 && in[2] == decorationSpecID
}

// rewrite specializes a module's instructions: it records the SpecIds,
// rewrites the global section (dropping the SpecId decorations), then
// each function, puts the OpUndefs the functions asked for at the end of
// the global section, and drops the names and decorations of what was
// removed.
func (s *spec) rewrite(insts []inst) ([]inst, error) {
	for _, in := range insts {
		if isSpecID(in) {
			s.specIDs[in[1]] = in[3]
		}
	}
	out, i := s.globalSection(insts)
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

// globalSection rewrites the global section (types, constants,
// variables, up to the first function), recording its bool and 32-bit
// integer types and its constants, and returns it with the index of the
// first instruction after it.
func (s *spec) globalSection(insts []inst) ([]inst, int) {
	var out []inst
	i := 0
	for ; i < len(insts) && insts[i].op() != opFunction; i++ {
		in := insts[i]
		switch {
		case isSpecID(in):
			continue // frozen by global
		case in.op() == opTypeBool && len(in) == 2:
			s.bools[in[1]] = true
		case in.op() == opTypeInt && len(in) == 4 && in[2] == 32:
			s.ints[in[1]] = true
		}
		out = append(out, s.global(in))
	}
	return out, i
}

// definedIDs returns the ids that a module's instructions define.
func definedIDs(insts []inst) map[uint32]bool {
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
	return defined
}

// dropDangling drops the names and decorations of ids that no
// instruction defines any more (those of removed blocks).
func dropDangling(insts []inst) []inst {
	defined := definedIDs(insts)
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
