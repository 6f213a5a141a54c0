package vk

// Test hooks for the external tests of this package.

// SetForceStaging makes every transfer go through the staging buffer.
func SetForceStaging(on bool) { forceStaging = on }

// OwnedHandles returns the handles of a context from Open, as an engine
// would hold them, to test Borrow.
func OwnedHandles(c *Context) Handles { return c.Handles() }

// MarkLost records a device loss as a failing call would.
func MarkLost(c *Context) error { return c.noteResult(newError("vkQueueSubmit", resultDeviceLost)) }

// StagingChunk is the staging buffer's piece size.
const StagingChunk = stagingChunk

// Orphan removes x from c's registry, as a bug that lost track of an object
// would: c's Release then leaves it alive.
func Orphan(c *Context, p *ComputePipeline) {
	c.mu.Lock()
	delete(c.children, p)
	c.mu.Unlock()
}

// Outstanding reports how many submission serials are outstanding.
func Outstanding(c *Context) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.outstanding)
}

// StagingBytes is the memory the context's staging buffer holds (0 when it
// has none).
func StagingBytes(c *Context) uint64 { return c.Objects().StagingBytes }

// DropStaging lets go of the context's staging buffer, so that the next
// staged transfer allocates one.
func DropStaging(c *Context) {
	c.stagingMu.Lock()
	c.dropStagingLocked()
	c.stagingMu.Unlock()
}
