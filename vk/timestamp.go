package vk

import (
	"fmt"
	"unsafe"

	vkb "github.com/goki/vulkan"
)

// Timer is a timestamp query pool: record Reset, then Stamp at points in a
// command buffer; after the submission completes, Nanoseconds gives the
// time between two stamps.
type Timer struct {
	ctx   *Context
	pool  vkb.QueryPool
	count uint32
	mask  uint64
}

// NewTimer creates a pool of count timestamps. The context's queue family
// must support timestamps.
func (c *Context) NewTimer(count uint32) (*Timer, error) {
	if err := c.enter(); err != nil {
		return nil, err
	}
	defer c.exit()
	if c.info.TimestampValidBits == 0 {
		return nil, fmt.Errorf("%w: queue family %d has no timestamps", ErrUnsupported, c.family)
	}
	if count == 0 {
		return nil, invalidf("a timer needs at least one timestamp")
	}
	info := &vkb.QueryPoolCreateInfo{
		SType:      vkb.StructureTypeQueryPoolCreateInfo,
		QueryType:  vkb.QueryTypeTimestamp,
		QueryCount: count,
	}
	var pool vkb.QueryPool
	r := vkb.CreateQueryPool(c.device, info, nil, &pool)
	info.Free()
	if err := c.noteResult(check("vkCreateQueryPool", r)); err != nil {
		return nil, err
	}
	mask := ^uint64(0)
	if bits := c.info.TimestampValidBits; bits < 64 {
		mask = 1<<bits - 1
	}
	t := &Timer{ctx: c, pool: pool, count: count, mask: mask}
	if err := c.adopt(t); err != nil {
		return nil, err
	}
	return t, nil
}

// Reset records the reset of every query; do it before the first Stamp of a
// submission.
func (t *Timer) Reset(cb CommandBuffer) {
	vkb.CmdResetQueryPool(cb.h, t.pool, 0, t.count)
}

// Stamp records timestamp i after all earlier commands have completed.
func (t *Timer) Stamp(cb CommandBuffer, i uint32) {
	vkb.CmdWriteTimestamp(cb.h, vkb.PipelineStageBottomOfPipeBit, t.pool, i)
}

// Ticks reads the raw timestamps (masked by timestampValidBits); the
// submission that wrote them must have completed.
func (t *Timer) Ticks() ([]uint64, error) {
	if err := t.ctx.enter(); err != nil {
		return nil, err
	}
	defer t.ctx.exit()
	if !t.ctx.owns(t) {
		return nil, fmt.Errorf("%w: timer", ErrReleased)
	}
	ticks := make([]uint64, t.count)
	const resultBits = vkb.QueryResult64Bit | vkb.QueryResultWaitBit
	r := vkb.GetQueryPoolResults(t.ctx.device, t.pool, 0, t.count, uint64(8*t.count),
		unsafe.Pointer(&ticks[0]), 8, vkb.QueryResultFlags(resultBits))
	if err := t.ctx.noteResult(check("vkGetQueryPoolResults", r)); err != nil {
		return nil, err
	}
	for i := range ticks {
		ticks[i] &= t.mask
	}
	return ticks, nil
}

// Nanoseconds returns the time from stamp a to stamp b, scaled by
// timestampPeriod.
func (t *Timer) Nanoseconds(a, b uint32) (float64, error) {
	ticks, err := t.Ticks()
	if err != nil {
		return 0, err
	}
	if a >= t.count || b >= t.count {
		return 0, invalidf("timestamps %d and %d: the timer has %d", a, b, t.count)
	}
	d := (ticks[b] - ticks[a]) & t.mask // wraps correctly within the valid bits
	return float64(d) * float64(t.ctx.info.TimestampPeriod), nil
}

// Release destroys the query pool. It is idempotent, and does nothing
// after the context's Release, which destroys the timers left.
func (t *Timer) Release() {
	if t == nil || t.ctx == nil {
		return
	}
	t.ctx.disown(t)
}

func (t *Timer) destroyLocked() { vkb.DestroyQueryPool(t.ctx.device, t.pool, nil) }
