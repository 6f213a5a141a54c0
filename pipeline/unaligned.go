package pipeline

import "github.com/vkcompact/vkcompact/vk"

// Unaligned returns how a kernel binds r, a range whose offset is a
// multiple of 4 but perhaps not of ctx's minStorageBufferOffsetAlignment
// (a count word at byte 4 of a result block): bind, from r's offset
// rounded down to the alignment through r's end, and word, the index of
// r's first word in bind, for the kernel to add to its indices.
func Unaligned(ctx *vk.Context, r vk.Range) (bind vk.Range, word uint32) {
	align := max(ctx.Info().MinStorageBufferOffsetAlignment, 4)
	base := r.Offset / align * align
	return vk.Range{Buffer: r.Buffer, Offset: base, Size: r.Offset - base + r.Size}, uint32((r.Offset - base) / 4)
}
