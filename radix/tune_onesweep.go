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
}

// maxOnesweepKeys bounds the single pass: its status words hold counts
// below 2^30.
const maxOnesweepKeys = 1<<30 - 1

// tuneOnesweep picks the single pass's tuning for q, or refuses, naming
// why it does not apply (keys past one binding of bind bytes among the
// reasons).
func tuneOnesweep(info vk.DeviceInfo, q request, sh scatterShape, bind uint64) (*onesweep, error) {
	o, n := q.sort.Options, uint64(q.n)
	chunk := chunkFor(info, q, scatterIters(sh, q.bits, false, false), bind)
	status := newTileStatus(n, q.wg, q.kpl, q.digits)
	if why := onesweepNot(info, n, q.keyBytes, sh, q.digits, status, bind); why != "" {
		return nil, invalid("radix: the single pass does not apply: %s", why)
	}
	switch {
	case o.Counts > CountsFused:
		return nil, invalid("radix: unknown counts mode %d", o.Counts)
	case o.Counts == CountsFused:
		return nil, invalid("radix: fused counts do not apply: the single pass has no count phases")
	}
	w := &onesweep{procs: uint32(max(align.CeilDiv(n, chunk), 1)), chunk: uint32(chunk), spins: tiling.Spins(info, o.Spins), status: status}
	w.layout = onesweepLayout(n, q.keyBytes, q.sort.Values, q.digits, status)
	// The last pass leaves region 0 zero as its next region only after an
	// even number of passes, and the count of its workgroups done takes
	// the word after the tile counters.
	d := q.digits
	w.selfReset = status.tiles <= tuningFor(info).selfResetMaxTiles(q.sort.Values) && d.passes > 0 && d.passes%2 == 0 && uint64(d.passes) < status.counterWords
	return w, nil
}

// report writes the single pass's choices into t.
func (w *onesweep) report(t *Tuning) {
	t.Path, t.Processors, t.Chunk = vkcompact.PathSinglePass, w.procs, w.chunk
	t.Tiles, t.Tile, t.Spins, t.SelfReset = w.status.tiles, w.status.tile, w.spins, w.selfReset
}

// onesweepNot says why the single pass does not apply, or returns ""
// where it does.
func onesweepNot(info vk.DeviceInfo, n, keyBytes uint64, sh scatterShape, d digits, status tileStatus, bind uint64) string {
	wg := sh.wg
	switch {
	case n > maxOnesweepKeys:
		return fmt.Sprintf("%d keys: its status words hold counts below 2^30, so at most %d keys", n, maxOnesweepKeys)
	case n*keyBytes > bind:
		return fmt.Sprintf("%d keys of %d bytes exceed one binding (%d bytes, maxStorageBufferRange): past it only the three phases sort, in windows",
			n, keyBytes, bind)
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
