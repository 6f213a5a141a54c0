// Package permute moves elements by index on Vulkan compute shaders: a
// gather (dst[i] = src[indices[i]], Thrust's gather and NumPy's np.take)
// or a scatter (dst[indices[i]] = src[i]), of plain 4- and 8-byte
// elements and of structs of any vkcompact.Elem stride up to
// vkcompact.MaxStride bytes. With the order a sort returns as indices (a
// radix sort of (key, index) pairs), one gather per buffer reorders any
// number of attribute buffers by the sorted keys: positions, velocities,
// colours, each with the same indices.
//
// Indices are uint32. One at or past the indexed side's element count
// moves nothing (no read, no write out of bounds): its position is left
// as it was, and the first such position is recorded in the optional
// status word (Buffers.Status), which Plan.Run reports as an error. In a
// scatter, indices that repeat write the same slot more than once: which
// element ends there is not defined (as in CUB and Thrust), and for
// elements of several words each word may come from a different one of
// them. A scatter by a permutation (every index once) has no such slot.
//
// The in-order side (the indices, and the gather's destination or the
// scatter's source) is read and written in uvec4s where the element size
// allows (elements of 1, 2 and 4k words); the indexed side in whole
// elements' vectors.
//
// The package is called permute, not gather, because it does both
// directions of moving by index, and because its names then read as what
// they do: permute.Permutation{Scatter: true}, permute.GatherSlice.
//
// A Plan is made once per size (NewPlan), recorded into a command buffer
// (Plan.Record) or run on the context's queue (Plan.Run); GatherSlice and
// ScatterSlice move host slices. Recording follows the contract,
// GPU-side counts (Buffers.Count) and concurrency rules in package
// vkcompact's documentation.
package permute
