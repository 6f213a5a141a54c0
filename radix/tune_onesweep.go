package radix

import (
	"fmt"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/align"
	"github.com/vkcompact/vkcompact/internal/tiling"
	"github.com/vkcompact/vkcompact/vk"
)

// onesweep is the single pass's own tuning: a histogram of every pass's
// digits, then one dispatch per digit pass over tiles of a workgroup's
// round, chained by decoupled look-back.
type onesweep struct {
	// procs and chunk: the histogram's processors, each owning chunk keys.
	procs, chunk uint32
	spins        uint32
	status       tileStatus
	// selfReset: the single pass leaves the next run's scratch zero
	// (radix_onesweep's SELF_RESET), so Record clears it only where it
	// does not know it zero.
	selfReset bool
	layout    scratchLayout
	// Past one binding (keys of more than maxStorageBufferRange bytes),
	// each pass runs winTiles tiles a dispatch, whose keys (and values)
	// lie in one window of the inputs, and binds its outputs as
	// outWindows windows of winSlots slots; the histogram runs winProcs of
	// its processors a dispatch. All 0 where the keys fit one binding.
	winTiles, winSlots, outWindows, winProcs uint32
}

// maxOnesweepKeys bounds the single pass: its status words hold counts
// below 2^31.
const maxOnesweepKeys = 1<<31 - 1

// tuneOnesweep picks the single pass's tuning for q, or refuses, naming
// why it does not apply (keys past one binding of bind bytes among the
// reasons).
func tuneOnesweep(info vk.DeviceInfo, q request, sh scatterShape, bind uint64) (*onesweep, error) {
	o, n := q.sort.Options, uint64(q.n)
	chunk := chunkFor(info, q, scatterIters(sh, q.bits, false, false), bind)
	w := &onesweep{procs: uint32(max(align.CeilDiv(n, chunk), 1)), chunk: uint32(chunk), spins: tiling.Spins(info, o.Spins)}
	if err := w.windows(info, q, bind); err != nil {
		return nil, err
	}
	status := newTileStatus(n, q.wg, q.kpl, q.digits, w.inWindows(n, q.wg*q.kpl))
	if why := onesweepNot(info, n, q.keyBytes, sh, q.digits, status); why != "" {
		return nil, invalid("radix: the single pass does not apply: %s", why)
	}
	switch {
	case o.Counts > CountsFused:
		return nil, invalid("radix: unknown counts mode %d", o.Counts)
	case o.Counts == CountsFused:
		return nil, invalid("radix: fused counts do not apply: the single pass has no count phases")
	}
	w.status = status
	w.layout = onesweepLayout(n, q.keyBytes, q.sort.Values, q.digits, status)
	// The last pass leaves region 0 zero as its next region only after an
	// even number of passes, and the count of its workgroups done takes
	// the word after the tile counters; never in windows.
	d := q.digits
	w.selfReset = w.winTiles == 0 && status.tiles <= tuningFor(info).selfResetMaxTiles(q.sort.Values) && d.passes > 0 && d.passes%2 == 0 && uint64(d.passes) < status.counterWords
	return w, nil
}

// report writes the single pass's choices into t.
func (w *onesweep) report(t *Tuning) {
	t.Path, t.Processors, t.Chunk = vkcompact.PathSinglePass, w.procs, w.chunk
	t.Tiles, t.Tile, t.Spins, t.SelfReset = w.status.tiles, w.status.tile, w.spins, w.selfReset
	t.WindowProcessors, t.WindowTiles, t.OutWindows = w.winProcs, w.winTiles, w.outWindows
}

// windows sets the windows of a single pass whose keys exceed one
// binding of limit bytes (none where they fit), or refuses, naming why:
// the passes' input windows of whole tiles, their output windows, and
// the histogram's input windows of whole chunks.
func (w *onesweep) windows(info vk.DeviceInfo, q request, limit uint64) error {
	n := uint64(q.n)
	if n*q.keyBytes <= limit {
		return nil
	}
	valBytes := uint64(0)
	if q.sort.Values {
		valBytes = 4
	}
	tile := uint64(q.wg) * uint64(q.kpl)
	past := fmt.Sprintf("radix: the single pass does not apply: %d keys of %d bytes exceed one binding (%d bytes, maxStorageBufferRange)", n, q.keyBytes, limit)
	tiles := tiling.WindowTiles(info, limit, tile*q.keyBytes, tile*valBytes)
	slots := tiling.WindowTiles(info, limit, q.keyBytes, valBytes)
	procs := tiling.WindowTiles(info, limit, uint64(w.chunk)*q.keyBytes)
	switch {
	case tiles == 0 || slots == 0 || procs == 0:
		return invalid("%s, and no window of whole tiles of %d keys at aligned offsets fits one", past, tile)
	case align.CeilDiv(n, uint64(slots)) > tiling.MaxOutWindows:
		return invalid("%s: past it the single pass binds each output as at most %d windows of %d keys, %d keys in all",
			past, tiling.MaxOutWindows, slots, tiling.MaxOutWindows*uint64(slots))
	case info.MaxPerStageStorageBuffers != 0 && info.MaxPerStageStorageBuffers < wideStorageBuffers:
		return invalid("%s: past it the single pass binds %d storage buffers; the device allows %d (maxPerStageDescriptorStorageBuffers)",
			past, wideStorageBuffers, info.MaxPerStageStorageBuffers)
	}
	all := uint32(align.CeilDiv(n, tile))
	w.winTiles = evenWindows(info, all, tiles, tile*q.keyBytes, tile*valBytes)
	w.winSlots, w.outWindows = slots, uint32(align.CeilDiv(n, uint64(slots)))
	w.winProcs = evenWindows(info, w.procs, procs, uint64(w.chunk)*q.keyBytes, 0)
	return nil
}

// inWindows is the number of input windows of a single pass over n keys
// in tiles of tile keys: 1 within one binding.
func (w *onesweep) inWindows(n uint64, tile uint32) uint32 {
	if w.winTiles == 0 {
		return 1
	}
	return uint32(align.CeilDiv(align.CeilDiv(n, uint64(tile)), uint64(w.winTiles)))
}

// onesweepNot says why the single pass does not apply, or returns ""
// where it does.
func onesweepNot(info vk.DeviceInfo, n, keyBytes uint64, sh scatterShape, d digits, status tileStatus) string {
	wg := sh.wg
	switch {
	case n > maxOnesweepKeys:
		return fmt.Sprintf("%d keys: its status words hold counts below 2^31, so at most %d keys", n, maxOnesweepKeys)
	case wg < d.buckets():
		return fmt.Sprintf("a workgroup of %d invocations is smaller than the %d digits of %d bits: each digit needs its own invocation", wg, d.buckets(), d.bits)
	case status.bytes() > uint64(info.MaxStorageBufferRange):
		return fmt.Sprintf("its tile status (%d bytes for %d tiles of %d-bit digits) exceeds the device's maxStorageBufferRange (%d bytes)",
			status.bytes(), status.tiles, d.bits, info.MaxStorageBufferRange)
	case sh.onesweepShared(d.bits, uint32(keyBytes/4)) > info.MaxSharedMemory:
		return fmt.Sprintf("a workgroup of %d (%d subgroups) with %d-bit digits and %d keys per lane needs %d bytes of shared memory; the device has %d",
			wg, sh.subgroups, d.bits, sh.kpl, sh.onesweepShared(d.bits, uint32(keyBytes/4)), info.MaxSharedMemory)
	}
	return ""
}
