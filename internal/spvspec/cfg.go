package spvspec

import (
	"errors"
	"fmt"
)

// block is one basic block of a function: its label, its instructions
// (the label first, the terminator last).
type block struct {
	label uint32
	insts []inst
}

// term returns the block's terminator.
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
		// selector (checked before folding; here any).
		out := []uint32{t[2]}
		for k := 4; k < len(t); k += 2 {
			out = append(out, t[k])
		}
		return out
	}
	return nil
}

// blockOperands lists the instructions whose operands the pass reads
// in a block, with the fewest words it reads of each.
var blockOperands = map[uint32]struct {
	name  string
	words int
}{
	opLabel: {"OpLabel", 2}, opBranch: {"OpBranch", 2}, opBranchConditional: {"OpBranchConditional", 4},
	opSwitch: {"OpSwitch", 3}, opSelectionMerge: {"OpSelectionMerge", 2}, opLoopMerge: {"OpLoopMerge", 3},
}

// splitBlocks splits a function's instructions, OpFunctionEnd excluded,
// into its head (OpFunction and its parameters) and its blocks, clearing
// the Unroll hint of every OpLoopMerge (on a copy: insts is not
// written). A label, branch or merge too short for its operands is an
// error.
func splitBlocks(insts []inst) (head []inst, blocks []*block, err error) {
	var cur *block
	for _, in := range insts {
		if o, ok := blockOperands[in.op()]; ok && len(in) < o.words {
			return nil, nil, fmt.Errorf("spvspec: an %s of %d words, fewer than its operands", o.name, len(in))
		}
		switch {
		case in.op() == opLabel:
			if cur != nil {
				return nil, nil, errors.New("spvspec: a block without a terminator")
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
		return nil, nil, errors.New("spvspec: a block without a terminator")
	}
	return head, blocks, nil
}

// reachable returns the labels of the blocks the first block (the
// function's entry) reaches; a branch to a label no block has is an
// error.
func reachable(blocks []*block) (map[uint32]bool, error) {
	byLabel := map[uint32]*block{}
	for _, b := range blocks {
		byLabel[b.label] = b
	}
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
	return reach, nil
}

// liveMerges returns the merge blocks that the reachable constructs
// still name. A loop whose continue target is no longer reachable is
// errSkip: the pass leaves such a module to the driver.
func liveMerges(blocks []*block, reach map[uint32]bool) (map[uint32]bool, error) {
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
	return merges, nil
}

// predecessors returns, for each label, the labels of the blocks that
// branch to it.
func predecessors(blocks []*block) map[uint32]map[uint32]bool {
	preds := map[uint32]map[uint32]bool{}
	for _, b := range blocks {
		for _, t := range b.successors() {
			if preds[t] == nil {
				preds[t] = map[uint32]bool{}
			}
			preds[t][b.label] = true
		}
	}
	return preds
}
