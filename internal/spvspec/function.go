package spvspec

// function specializes one function, OpFunction up to OpFunctionEnd, in
// five phases: it splits it into blocks, folds the branches whose
// condition is now constant, finds what the entry still reaches, keeps
// that (and the merge blocks live constructs still name), and rewrites
// the OpPhis for the edges left.
func (s *spec) function(insts []inst) ([]inst, error) {
	head, blocks, err := splitBlocks(insts[:len(insts)-1])
	if err != nil {
		return nil, err
	}
	if len(blocks) == 0 { // a declaration
		return insts, nil
	}
	for _, b := range blocks {
		s.foldBranch(b)
	}
	reach, err := reachable(blocks)
	if err != nil {
		return nil, err
	}
	kept, err := prune(blocks, reach)
	if err != nil {
		return nil, err
	}
	out := append([]inst{}, head...)
	out = s.appendBlocks(out, kept)
	if s.err != nil {
		return nil, s.err
	}
	return append(out, insts[len(insts)-1]), nil
}

// constantTarget returns the label a conditional branch or switch goes
// to, where its condition or selector is a known constant.
func (s *spec) constantTarget(t inst) (uint32, bool) {
	switch t.op() {
	case opBranchConditional:
		if c, known := s.values[t[1]]; known && len(t) >= 4 {
			if c != 0 {
				return t[2], true
			}
			return t[3], true
		}
	case opSwitch:
		if c, known := s.values[t[1]]; known && (len(t)-3)%2 == 0 {
			for k := 3; k+1 < len(t); k += 2 {
				if t[k] == c {
					return t[k+1], true
				}
			}
			return t[2], true
		}
	}
	return 0, false
}

// foldBranch folds the block's branch if it heads a selection construct
// (or is a switch) whose condition is constant: the dead side goes to
// the construct's merge, or, where the live side is the merge, the
// block branches straight there and loses its OpSelectionMerge. A
// loop's own branch, and a conditional branch with no merge of its own,
// stay.
func (s *spec) foldBranch(b *block) {
	m := b.mergeInst()
	if m != nil && m.op() == opLoopMerge {
		return // a loop's own branch stays
	}
	t := b.term()
	target, ok := s.constantTarget(t)
	if !ok {
		return
	}
	if m == nil && t.op() == opBranchConditional {
		// A conditional branch with no merge of its own (a loop's
		// break or continue) is left alone: folding it is safe, but
		// the loop it leaves may then lose its continue target.
		return
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

// prune returns the blocks to keep, in their order: those reached, and
// in place of an unreached block that a live construct still names as
// its merge, its label and OpUnreachable.
func prune(blocks []*block, reach map[uint32]bool) ([]*block, error) {
	merges, err := liveMerges(blocks, reach)
	if err != nil {
		return nil, err
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
	return kept, nil
}

// appendBlocks appends the kept blocks' instructions to out, each OpPhi
// rewritten for the edges left (see phi).
func (s *spec) appendBlocks(out []inst, kept []*block) []inst {
	preds := predecessors(kept)
	for _, b := range kept {
		for _, in := range b.insts {
			if in.op() == opPhi && len(in) >= 3 {
				in = s.phi(in, preds[b.label], kept)
			}
			out = append(out, in)
		}
	}
	return out
}

// phi rewrites an OpPhi of a block whose predecessors are preds: it
// keeps the operands of the block's predecessors, and gives each
// predecessor it has no operand for (a header whose dead side now
// branches to its merge is a new predecessor there, on an edge never
// taken) an OpUndef, in kept's order.
func (s *spec) phi(in inst, preds map[uint32]bool, kept []*block) inst {
	phi := inst{0, in[1], in[2]}
	have := map[uint32]bool{}
	for k := 3; k+1 < len(in); k += 2 {
		if preds[in[k+1]] {
			phi = append(phi, in[k], in[k+1])
			have[in[k+1]] = true
		}
	}
	for _, p := range kept {
		if preds[p.label] && !have[p.label] {
			phi = append(phi, s.undef(in[1]), p.label)
		}
	}
	phi[0] = uint32(len(phi))<<16 | opPhi
	return phi
}
