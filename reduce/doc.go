// Package reduce reduces arrays on Vulkan compute shaders: to one value
// (Reduce: sum, min, max, argmin, argmax), within segments given by
// offsets (Segmented: sum, min, max), and per run of equal consecutive
// keys over separate key and value arrays (ByKey: sum, min, max). The
// elements are uint32, int32, float32 or uint64 (a reduction by key's
// values uint32, int32 or float32); the results stay on the GPU, in a
// result block a next pass can read or dispatch by.
//
// # Reduce
//
// One pass over the input (Plan): the input is cut into one chunk per
// workgroup, enough workgroups to fill the device; each invocation walks
// its workgroup's chunk with uvec4 loads (Options.LoadsPerLane of them
// per step, consecutive across the subgroup), the workgroup combines its
// invocations into a partial result, and the last workgroup to finish
// (an atomic counter it resets for the next run) combines the partials
// in workgroup order and writes the result block (ResultSize bytes: the
// value, ArgMin's or ArgMax's index, the elements covered). It reads n
// elements once; its other traffic is a partial of 16 bytes per
// workgroup. PathThreePhase combines the partials in a second dispatch
// instead, in the same order. Past one binding (maxStorageBufferRange)
// the pass is a dispatch per window of whole chunks.
//
// # Segmented
//
// Segment s is elements [offsets[s], offsets[s+1]), the offsets on the
// GPU as the segmented sort takes them (radix.SegmentedBuffers.Offsets);
// an empty segment gets the empty value, the identity: 0 (+0.0) for
// Sum, the type's greatest value (+Inf) for Min, its least (-Inf) for
// Max. A SegmentedPlan cuts the input into tiles, a workgroup each,
// which reduces the runs of its tile in order (an exclusive segmented
// scan of its invocations' partial runs in shared memory) and writes
// every segment that begins and ends in it; a second dispatch, an
// invocation per segment, combines the parts of the segments that cross
// tiles, in tile order, and writes the empty ones. It reads the elements
// once, the offsets about once, and writes a value per segment.
//
// # ByKey
//
// The runs of equal consecutive keys (compact.EqualKeys: integers by
// value, floats as IEEE 754, so each NaN is a run of its own and -0.0
// equals +0.0) give each run's first key and the reduction of its values,
// and the runs' count in a result block laid out as compact's. A
// ByKeyPlan reads keys and values once in tiles, as the segmented
// reduction does, and finds each tile's first run index by a chained scan
// with decoupled look-back over integer run counts (Options.Spins, as
// the prefix sum's single pass); the runs that cross tiles are combined
// by a second dispatch, in tile order. It writes each run's key and
// value once.
//
// The segmented reduction and the reduction by key bind their inputs
// and outputs whole: each must fit one binding (maxStorageBufferRange;
// 4 GiB on most GPUs, 128 MiB on lavapipe), and NewSegmentedPlan and
// NewByKeyPlan refuse more, naming it.
//
// # Floats
//
// Float sums are bitwise reproducible run to run on one device: every
// addition's order is fixed by the plan's tuning and the input's shape
// (each invocation's elements in turn, fixed trees over subgroups and
// workgroups, partials and tiles in their index order), never by which
// workgroup finishes first, and no atomic adds a value. They differ from
// a serial float32 loop by rounding, within the bound of a summation tree
// of the plan's depth (Higham's gamma(depth) times the sum of the
// magnitudes), usually smaller than the serial loop's error. Denormals
// follow the device (some flush them to zero).
//
// The float rules are NumPy's where NumPy has one. A sum with a NaN is
// NaN (which NaN's bits is the device's arithmetic's choice); +Inf plus
// -Inf is NaN; a sum of nothing but -0.0 is -0.0 and the sum of nothing
// +0.0 (np.add.reduce). Min and Max return NaN where any element is NaN
// (np.min, np.max), the first NaN's bits; ArgMin and ArgMax return the
// first NaN's index (np.argmin, np.argmax); otherwise the first of the
// least (greatest) elements, where -0.0 and +0.0 compare equal, so Min
// and Max return exactly the element ArgMin and ArgMax pick. The
// comparisons run on the values' bits, so a device that flushes
// denormals still orders them. Empty inputs give the identity above, and
// NoIndex for the arg ops.
//
// uint64 sums wrap modulo 2^64, as int32 and uint32 sums wrap modulo
// 2^32. The kernels compute 64-bit values as pairs of 32-bit words, so
// devices without shaderInt64 (SwiftShader) run them.
//
// A Plan, SegmentedPlan or ByKeyPlan is made once per size, recorded into
// a command buffer (Record) or run on the context's queue (Run);
// ReduceSlice, ReduceSegmentsSlice and ReduceByKeySlice reduce host
// slices. Recording follows the contract, GPU-side counts (Buffers.Count,
// ByKeyBuffers.Count; the segmented reduction takes none) and
// concurrency rules in package vkcompact's documentation.
package reduce
