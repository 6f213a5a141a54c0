package vk

// Timer is a timestamp query pool: record Reset, then Stamp at points in a
// command buffer; after the submission completes, Nanoseconds gives the
// time between two stamps.
type Timer struct {
	ctx   *Context
	pool  uint64 // VkQueryPool
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
		return nil, errorf(ErrUnsupported, "vk: queue family %d has no timestamps", c.family)
	}
	if count == 0 {
		return nil, invalidf("a timer needs at least one timestamp")
	}
	pool, r := c.fns.createQueryPool(count)
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

// Count returns the number of timestamps the timer holds (0 for nil).
func (t *Timer) Count() uint32 {
	if t == nil {
		return 0
	}
	return t.count
}

// Reset records the reset of every query; do it before the first Stamp of a
// submission. A nil timer, or one of another context, is refused (cb.Err).
func (t *Timer) Reset(cb CommandBuffer) {
	if t.recordable(cb, "Reset", 0) {
		cb.ctx.fns.resetQueries(cb.h, t.pool, 0, t.count)
	}
}

// Stamp records timestamp i after all earlier commands have completed. A
// nil timer, one of another context, or i past Count is refused (cb.Err).
func (t *Timer) Stamp(cb CommandBuffer, i uint32) {
	if t.recordable(cb, "Stamp", i) {
		cb.ctx.fns.writeTimestamp(cb.h, StageBottomOfPipe, t.pool, i)
	}
}

// recordable reports whether query i of t may be recorded into cb, and
// keeps cb's refusal where it may not.
func (t *Timer) recordable(cb CommandBuffer, what string, i uint32) bool {
	if !cb.usable() {
		return false
	}
	switch {
	case t == nil || t.ctx == nil:
		cb.fail(invalidf("Timer.%s of a nil timer", what))
	case t.ctx != cb.ctx:
		cb.fail(invalidf("Timer.%s: a timer of another context", what))
	case !t.ctx.owns(t):
		cb.fail(released("Timer." + what + ": the timer"))
	case i >= t.count:
		cb.fail(invalidf("Timer.%s: timestamp %d of a timer of %d", what, i, t.count))
	default:
		return true
	}
	return false
}

// Ticks reads the raw timestamps (masked by timestampValidBits) once the
// submission that wrote them has completed. A timestamp that was never
// written, or whose submission is still running, is an error, not a wait.
func (t *Timer) Ticks() ([]uint64, error) {
	if t == nil || t.ctx == nil {
		return nil, invalidf("Ticks of a nil timer")
	}
	return t.read(0, t.count)
}

// read reads count timestamps from first, with their availability.
func (t *Timer) read(first, count uint32) ([]uint64, error) {
	c := t.ctx
	raw := make([]uint64, 2*count) // (value, availability) pairs
	// Read under mu, so that a concurrent Release cannot destroy the pool
	// meanwhile; without the wait flag the call does not block.
	c.mu.Lock()
	if err := c.unusableLocked(); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	if _, ok := c.children[t]; !ok {
		c.mu.Unlock()
		return nil, released("timer")
	}
	r := c.fns.queryResults(t.pool, first, count, raw)
	c.mu.Unlock()
	if r != resultNotReady {
		if err := t.ctx.noteResult(check("vkGetQueryPoolResults", r)); err != nil {
			return nil, err
		}
	}
	ticks := make([]uint64, count)
	for i := range ticks {
		if raw[2*i+1] == 0 {
			return nil, invalidf("timestamp %d is not available: never written, or its submission has not completed", first+uint32(i))
		}
		ticks[i] = raw[2*i] & t.mask
	}
	return ticks, nil
}

// Nanoseconds returns the time from stamp a to stamp b, scaled by
// timestampPeriod.
func (t *Timer) Nanoseconds(a, b uint32) (float64, error) {
	if t == nil || t.ctx == nil {
		return 0, invalidf("Nanoseconds of a nil timer")
	}
	if a >= t.count || b >= t.count {
		return 0, invalidf("timestamps %d and %d: the timer has %d", a, b, t.count)
	}
	ta, err := t.read(a, 1)
	if err != nil {
		return 0, err
	}
	tb, err := t.read(b, 1)
	if err != nil {
		return 0, err
	}
	d := (tb[0] - ta[0]) & t.mask // wraps correctly within the valid bits
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

// Close releases the timer (see Release) and returns nil, making a Timer
// an io.Closer: Release swallows no error.
func (t *Timer) Close() error {
	t.Release()
	return nil
}

func (t *Timer) destroyLocked() { t.ctx.fns.destroy(objQueryPool, t.pool) }
