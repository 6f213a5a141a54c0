// Package histogram counts uint32, int32 or float32 samples into bins on
// Vulkan compute shaders: even bins over a range (CUB's
// DeviceHistogram::HistogramEven) or bins between given edges (its
// HistogramRange), up to MaxBins bins, the counts left on the GPU as
// uint32s.
//
// Each workgroup counts into sub-histograms in shared memory (several
// where the bins are few, so that subgroups seldom contend for one count),
// reading its samples as uvec4s with a grid stride over a grid that fills
// the device once, and adds each nonzero bin to the output with one
// atomic. The counts are integers, so their order of addition does not
// matter: a histogram is exact and the same on every run.
//
// Which bin a sample falls in (Histogram's documentation says it in
// full): for integer samples, the exact floor((x - Lower) * Bins / (Upper
// - Lower)), as CUB computes it; for float32 samples CUB's float32
// arithmetic. Samples outside the range count nowhere, and one equal to
// Upper counts in the last bin only with IncludeUpper (NumPy's rule;
// CUB's excludes it). np.histogram(a, bins, range=(lo, hi)) itself is
// the histogram by the edges NumPyEdges returns, with IncludeUpper: its
// float edges round where CUB's arithmetic does not.
//
// A Plan is made once per size (NewPlan), recorded into a command buffer
// (Plan.Record) or run on the context's queue (Plan.Run);
// HistogramSlice and HistogramEdgesSlice count a host slice. Recording
// follows the contract, GPU-side counts (Buffers.Count) and concurrency
// rules in package vkcompact's documentation.
package histogram
