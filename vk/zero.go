package vk

import "sync"

// Record-time knowledge of zeroed ranges.
//
// Some kernels leave part of their scratch zero when they finish (the
// single pass of package compact and package scan resets its tile
// counter and status words), so that the next run needs no clear
// dispatch of its own. Whether a range is zero is known only from the
// commands recorded into it, in recording order: a buffer keeps the
// spans that the commands recorded so far leave zero. Every vkcompact
// recording and transfer that writes a range forgets the spans it
// overlaps; a plan that finds its status words not known to be zero
// records a clear first.

// zeroSpans is a buffer's set of spans known to be zero, in bytes.
type zeroSpans struct {
	mu    sync.Mutex
	spans [][2]uint64 // [start, end), disjoint, unordered
}

// KnownZero reports whether the commands recorded so far (and the
// transfers made so far) leave every byte of r zero, as far as vkcompact
// knows: only ranges that a vkcompact kernel leaves zero by design, or
// that NoteZero marked, are known. A nil or empty range is not.
func (r Range) KnownZero() bool {
	if r.Buffer == nil || r.Size == 0 {
		return false
	}
	z := &r.Buffer.zero
	z.mu.Lock()
	defer z.mu.Unlock()
	for _, s := range z.spans {
		if s[0] <= r.Offset && r.Offset+r.Size <= s[1] {
			return true
		}
	}
	return false
}

// NoteZero records that the commands recorded so far leave r zero once
// they have run. Kernels that reset their own scratch call it after
// recording their dispatch; a caller may call it after recording a clear
// of its own.
func (r Range) NoteZero() {
	if r.Buffer == nil || r.Size == 0 {
		return
	}
	z := &r.Buffer.zero
	z.mu.Lock()
	defer z.mu.Unlock()
	z.cut(r.Offset, r.Offset+r.Size)
	z.spans = append(z.spans, [2]uint64{r.Offset, r.Offset + r.Size})
}

// NoteWritten records that commands write r, so that no part of it is
// known to be zero any more. vkcompact calls it for every range its
// dispatches, copies, fills and transfers write. Call it when commands
// of your own (a shader, vkCmdFillBuffer, a copy) write a range that a
// vkcompact plan uses as scratch: the plan then clears what it needs
// again at its next recording instead of trusting stale contents.
func (r Range) NoteWritten() {
	if r.Buffer == nil || r.Size == 0 {
		return
	}
	z := &r.Buffer.zero
	z.mu.Lock()
	defer z.mu.Unlock()
	z.cut(r.Offset, r.Offset+r.Size)
}

// cut removes [a, b) from the spans, in place: a span that [a, b) cuts
// in two (at most one, the spans being disjoint) leaves its second piece
// at the end, so that the pieces written never overtake the spans still
// to be read.
func (z *zeroSpans) cut(a, b uint64) {
	out := z.spans[:0]
	var rest [2]uint64
	split := false
	for _, s := range z.spans {
		if s[1] <= a || b <= s[0] {
			out = append(out, s)
			continue
		}
		switch {
		case s[0] < a && b < s[1]:
			out = append(out, [2]uint64{s[0], a})
			rest, split = [2]uint64{b, s[1]}, true
		case s[0] < a:
			out = append(out, [2]uint64{s[0], a})
		case b < s[1]:
			out = append(out, [2]uint64{b, s[1]})
		}
	}
	if split {
		out = append(out, rest)
	}
	z.spans = out
}
