package vk

import (
	"fmt"
	"slices"
	"sync"
)

// Descriptor sets: how the kernels get their buffers unless
// Options.PushDescriptors (or Handles.PushDescriptor) asks for
// VK_KHR_push_descriptor.
//
// Each dispatch needs a set holding its storage-buffer ranges. The cache
// keeps one set per distinct (layout, ranges) and hands the same set to
// every later dispatch over the same ranges, so a frame loop that records
// the same plans over the same buffers allocates nothing after its first
// frame. A set is written only while no recording that may still run has
// bound it, so it may be bound by any number of command buffers at once.
//
// A recording holds the sets it binds (holder): a library submission
// until it has completed, an engine's command buffer until the engine
// says it has (Context.Completed). A set no recording holds is idle; the
// cache keeps at most limit idle sets, in least-recently-used order, and
// rewrites the oldest for a new tuple of ranges once it has that many (or
// frees it, for another layout). So the sets alive are at most limit plus
// those held, whatever ranges a program uses over its life. Releasing a
// buffer frees its sets at once (the caller knows its own command buffers
// no longer use it, as for the buffer itself); the pools, and the set
// layouts (one per binding count), live until the context's Release,
// except pools left empty.

// setsPerPool and descriptorsPerPool size each descriptor pool; when no
// pool has room, a new one is made.
const (
	setsPerPool        = 64
	descriptorsPerPool = setsPerPool * 8
)

// rangeKey is one binding of a set.
type rangeKey struct {
	buffer       *Buffer
	offset, size uint64
}

type setKey struct {
	layout uint64
	n      int
	ranges [maxBindings]rangeKey
}

// uses reports whether the set binds b.
func (k *setKey) uses(b *Buffer) bool {
	for _, r := range k.ranges[:k.n] {
		if r.buffer == b {
			return true
		}
	}
	return false
}

// setEntry is one cached set.
type setEntry struct {
	key  setKey
	set  uint64 // VkDescriptorSet
	pool *setPool
	// holds counts the recordings holding the set; by and gen are the last
	// one to take it, so that a recording that binds it again takes it once.
	holds int
	by    *holder
	gen   uint64
	// prev and next link the idle sets (holds == 0), most recent first.
	prev, next *setEntry
	dead       bool // freed with its buffer while held
}

// holder is one recording's hold on the sets it bound.
type holder struct {
	gen    uint64 // advanced at each release
	sets   []*setEntry
	engine bool // an engine's command buffer's (Wrap): its holds count against maxWrappedHolds
}

type setPool struct {
	h    uint64 // VkDescriptorPool
	live int    // sets allocated from it and not freed
}

// setCache is a context's descriptor sets.
type setCache struct {
	mu      sync.Mutex
	limit   int            // idle sets kept
	layouts map[int]uint64 // VkDescriptorSetLayout by binding count
	sets    map[setKey]*setEntry
	idle    setEntry // the idle list's sentinel: idle.next is the most recently used
	nIdle   int
	pools   []*setPool
	// engineHolds counts the holds of the engine's command buffers
	// (holder.engine), bounded by maxWrappedHolds.
	engineHolds int
}

func newSetCache(limit int) *setCache {
	s := &setCache{limit: limit, layouts: map[int]uint64{}, sets: map[setKey]*setEntry{}}
	s.idle.prev, s.idle.next = &s.idle, &s.idle
	return s
}

// layout returns the set layout of count storage buffers, creating it on
// first use.
func (s *setCache) layout(f *deviceFuncs, count int) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.layouts[count]; ok {
		return l, nil
	}
	l, r := f.createSetLayout(count, false)
	if err := check("vkCreateDescriptorSetLayout", r); err != nil {
		return 0, err
	}
	s.layouts[count] = l
	return l, nil
}

// get returns the set of layout holding bindings (a holds them as the C
// layer takes them), creating it (or rewriting an idle one) on first use,
// and makes h hold it.
func (s *setCache) get(f *deviceFuncs, layout uint64, bindings []Range, a *bindingArrays, h *holder) (uint64, error) {
	key := setKey{layout: layout, n: len(bindings)}
	for i, r := range bindings {
		key.ranges[i] = rangeKey{r.Buffer, r.Offset, r.Size}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.sets[key]
	if ok && e.by == h && e.gen == h.gen {
		return e.set, nil // held by this recording already
	}
	if h.engine && s.engineHolds >= maxWrappedHolds {
		return 0, errorf(ErrInvalid, "vk: the engine's command buffers hold %d descriptor sets, the most the library keeps for them (MaxWrappedDescriptorSets): report each command buffer that recorded library work with Context.Submitted after submitting it, or Context.Completed once it has completed", s.engineHolds)
	}
	switch {
	case !ok:
		var err error
		if e, err = s.createLocked(f, &key, a); err != nil {
			return 0, err
		}
		s.sets[key] = e
	case e.holds == 0:
		s.unlinkIdle(e)
	}
	if h.engine {
		s.engineHolds++
	}
	e.holds++
	e.by, e.gen = h, h.gen
	h.sets = append(h.sets, e)
	return e.set, nil
}

// createLocked returns an entry for key with a's descriptors written: the
// least recently used idle set rewritten, once limit sets are idle and it
// has key's layout; otherwise a set allocated (the idle one freed).
func (s *setCache) createLocked(f *deviceFuncs, key *setKey, a *bindingArrays) (*setEntry, error) {
	if s.nIdle > 0 && s.nIdle >= s.limit {
		old := s.idle.prev
		s.unlinkIdle(old)
		delete(s.sets, old.key)
		if old.key.layout == key.layout {
			f.writeSet(old.set, a)
			*old = setEntry{key: *key, set: old.set, pool: old.pool}
			return old, nil
		}
		s.freeLocked(f, old)
	}
	set, pool, err := s.allocateLocked(f, key.layout, a.n)
	if err != nil {
		return nil, err
	}
	f.writeSet(set, a)
	return &setEntry{key: *key, set: set, pool: pool}, nil
}

// allocateLocked allocates a set of layout for n bindings from a pool with
// room, or from a new pool.
func (s *setCache) allocateLocked(f *deviceFuncs, layout uint64, n int) (uint64, *setPool, error) {
	for i := len(s.pools) - 1; i >= 0; i-- {
		p := s.pools[i]
		if p.live >= setsPerPool {
			continue
		}
		set, r := f.allocateSet(p.h, layout)
		switch r {
		case resultSuccess:
			p.live++
			return set, p, nil
		case resultOutOfPoolMemory, resultFragmentedPool:
			// The next pool, or a new one below.
		default:
			return 0, nil, newError("vkAllocateDescriptorSets", r)
		}
	}
	h, r := f.createDescriptorPool(setsPerPool, max(descriptorsPerPool, uint32(n)))
	if err := check("vkCreateDescriptorPool", r); err != nil {
		return 0, nil, err
	}
	p := &setPool{h: h}
	s.pools = append(s.pools, p)
	set, r := f.allocateSet(h, layout)
	if err := check("vkAllocateDescriptorSets", r); err != nil {
		s.dropPoolIfEmpty(f, p)
		return 0, nil, fmt.Errorf("a new descriptor pool: %w", err)
	}
	p.live++
	return set, p, nil
}

// freeLocked frees e's set, and its pool once empty if another empty one
// is kept.
func (s *setCache) freeLocked(f *deviceFuncs, e *setEntry) {
	f.freeSet(e.pool.h, e.set)
	e.pool.live--
	s.dropPoolIfEmpty(f, e.pool)
	e.set, e.pool = 0, nil
}

// dropPoolIfEmpty destroys p if it holds no set and another pool is empty
// too: one empty pool is kept, so that a count of sets swinging across a
// pool's size does not create and destroy pools.
func (s *setCache) dropPoolIfEmpty(f *deviceFuncs, p *setPool) {
	if p.live > 0 {
		return
	}
	for _, q := range s.pools {
		if q != p && q.live == 0 {
			f.destroy(objDescriptorPool, p.h)
			if i := slices.Index(s.pools, p); i >= 0 {
				s.pools = slices.Delete(s.pools, i, i+1)
			}
			return
		}
	}
}

func (s *setCache) unlinkIdle(e *setEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
	s.nIdle--
}

func (s *setCache) pushIdle(e *setEntry) {
	e.prev, e.next = &s.idle, s.idle.next
	e.next.prev = e
	s.idle.next = e
	s.nIdle++
}

// release ends h's hold on its sets: those no other recording holds
// become idle, the least recently used beyond the limit are freed.
func (s *setCache) release(f *deviceFuncs, h *holder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releaseLocked(f, h)
}

func (s *setCache) releaseLocked(f *deviceFuncs, h *holder) {
	if h.engine {
		s.engineHolds -= len(h.sets) // one for each hold taken, dead sets' too
	}
	for _, e := range h.sets {
		if e.dead {
			continue
		}
		if e.holds--; e.holds == 0 {
			s.pushIdle(e)
		}
	}
	clear(h.sets)
	h.sets = h.sets[:0]
	h.gen++
	for s.nIdle > s.limit {
		old := s.idle.prev
		s.unlinkIdle(old)
		delete(s.sets, old.key)
		s.freeLocked(f, old)
	}
}

// forget frees the sets that bind b, held or not: b is being destroyed, so
// no recording that may run uses them.
func (s *setCache) forget(f *deviceFuncs, b *Buffer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, e := range s.sets {
		if !key.uses(b) {
			continue
		}
		delete(s.sets, key)
		if e.holds == 0 {
			s.unlinkIdle(e)
		}
		e.dead = true // the holders' lists skip it
		s.freeLocked(f, e)
	}
}

// destroy destroys the pools (and their sets) and the layouts.
func (s *setCache) destroy(f *deviceFuncs) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pools {
		f.setsGone(p.live)
		f.destroy(objDescriptorPool, p.h)
	}
	for _, l := range s.layouts {
		f.destroy(objSetLayout, l)
	}
	s.pools, s.layouts, s.sets, s.nIdle = nil, nil, nil, 0
	s.idle.prev, s.idle.next = &s.idle, &s.idle
}

// DescriptorSets reports how many descriptor sets the context holds: 0
// where it pushes its buffers with VK_KHR_push_descriptor; otherwise at
// most Options.CachedDescriptorSets idle ones plus those that recordings
// which may still run have bound.
func (c *Context) DescriptorSets() int {
	if c == nil || c.sets == nil || c.fns == nil {
		return 0
	}
	return int(c.fns.live[objDescriptorSet].Load())
}

// PushDescriptors reports whether the context pushes its kernels' buffers
// with VK_KHR_push_descriptor (otherwise it binds cached descriptor sets).
func (c *Context) PushDescriptors() bool { return c != nil && c.push }

// ObjectCounts are the objects a context holds, for leak checks.
type ObjectCounts struct {
	// Buffers, Pipelines and Timers not released yet (wrapped buffers
	// included), and Retired objects released while a submission that may
	// use them was outstanding, waiting for it.
	Buffers, Pipelines, Timers, Retired int
	// Vulkan counts the Vulkan objects the context has created and not
	// destroyed.
	Vulkan VulkanObjects
	// WrappedCommandBuffers counts the engine's command buffers the
	// context knows (Context.Wrap, until it knows them complete:
	// Context.Completed, the fences given to Context.Submitted signalled,
	// or a Wrap after Submitted), and HeldDescriptorSets the sets that
	// recordings which may still run hold (Vulkan.DescriptorSets counts
	// the idle ones too).
	WrappedCommandBuffers, HeldDescriptorSets int
	// StagingBytes is the memory of the staging buffer the context keeps
	// for transfers where device memory is not host-visible (counted in
	// AllocatedBytes too; 0 when it has none).
	StagingBytes uint64
}

// VulkanObjects counts Vulkan objects by kind, at the calls that create
// (or allocate) and destroy (or free) them: every kind the library makes,
// except the instance and device of a context from Open.
type VulkanObjects struct {
	Buffers, DeviceMemory                      int
	CommandPools, CommandBuffers, Fences       int
	ShaderModules, SetLayouts, PipelineLayouts int
	Pipelines, QueryPools                      int
	DescriptorPools, DescriptorSets            int
	PipelineCaches                             int // one while the context keeps a pipeline cache (Options.PipelineCacheDir)
}

// Objects counts the objects the context holds now (zero after Release).
func (c *Context) Objects() ObjectCounts {
	if c == nil {
		return ObjectCounts{}
	}
	c.mu.Lock()
	var n ObjectCounts
	for x := range c.children {
		switch x.(type) {
		case *Buffer:
			n.Buffers++
		case *ComputePipeline:
			n.Pipelines++
		case *Timer:
			n.Timers++
		}
	}
	n.Retired = len(c.retire)
	if f := c.fns; f != nil {
		n.Vulkan = f.liveObjects()
	}
	c.mu.Unlock()
	c.stagingMu.Lock()
	if c.staging != nil {
		n.StagingBytes = c.staging.memSize
	}
	c.stagingMu.Unlock()
	c.wrapMu.Lock()
	n.WrappedCommandBuffers = len(c.wrapped)
	c.wrapMu.Unlock()
	if c.sets != nil {
		c.sets.mu.Lock()
		for _, p := range c.sets.pools {
			n.HeldDescriptorSets += p.live
		}
		n.HeldDescriptorSets -= c.sets.nIdle
		c.sets.mu.Unlock()
	}
	return n
}

// liveObjects counts the objects created through d and not destroyed.
func (d *deviceFuncs) liveObjects() VulkanObjects {
	l := func(k objectKind) int { return int(d.live[k].Load()) }
	return VulkanObjects{
		Buffers: l(objBuffer), DeviceMemory: l(objMemory),
		CommandPools: l(objCommandPool), CommandBuffers: l(objCommandBuffer), Fences: l(objFence),
		ShaderModules: l(objShaderModule), SetLayouts: l(objSetLayout), PipelineLayouts: l(objPipelineLayout),
		Pipelines: l(objPipeline), QueryPools: l(objQueryPool),
		DescriptorPools: l(objDescriptorPool), DescriptorSets: l(objDescriptorSet),
		PipelineCaches: l(objPipelineCache),
	}
}
