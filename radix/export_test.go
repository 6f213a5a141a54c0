package radix

import "github.com/vkcompact/vkcompact/vk"

// NewPlanWithin is NewPlan with one binding holding at most limit bytes
// (0: the device's maxStorageBufferRange), so that a test sorts small
// inputs in windows.
func NewPlanWithin(ctx *vk.Context, n uint64, s Sort, limit uint64) (*Plan, error) {
	return newPlan(ctx, n, s, limit)
}

// SelfResetWords is the number of 32-bit words at the start of a
// single-pass plan's scratch that a run leaves zero with self-reset (the
// digit counts, the tile counters and the first pass's status region).
func SelfResetWords(p *Plan) uint64 {
	return (p.sweep.layout.statusOff + 4*p.sweep.status.region(1)) / 4
}

// tuneWithin is tune with the binding limit lowered to limit bytes (0: the
// device's maxStorageBufferRange).
func tuneWithin(info vk.DeviceInfo, n uint64, s Sort, limit uint64) (config, error) {
	return tune(info, n, s, limit)
}

// procs, chunk and layout are the processors, their chunk and the scratch
// layout of c's algorithm.
func (c config) procsChunkLayout() (procs, chunk uint32, l scratchLayout) {
	if c.sweep != nil {
		return c.sweep.procs, c.sweep.chunk, c.sweep.layout
	}
	return c.three.procs, c.three.chunk, c.three.layout
}

// counted and fuses are the three phases' for pass i; false on the single
// pass.
func (c config) counted(i uint32) bool { return c.three != nil && c.three.counted(c.digits, i) }
func (c config) fuses(i uint32) bool   { return c.three != nil && c.three.fuses(c.digits, i) }

// LanesWords64 reports whether the lane-serial sort moves 64-bit words on
// ctx (Tuning.Words64 where it is taken).
func LanesWords64(ctx *vk.Context) bool { return lanesWords64For(ctx) }

// SetLanesWords64 turns the lane-serial sort's 64-bit words on or off for
// the plans made next (on by default where the tuning and the context
// allow) and returns the setting before.
func SetLanesWords64(on bool) bool {
	was := lanesWords64
	lanesWords64 = on
	return was
}
