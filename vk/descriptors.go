package vk

import (
	"fmt"
	"sync"
)

// Descriptor sets: how the kernels get their buffers unless
// Options.PushDescriptors (or Handles.PushDescriptor) asks for
// VK_KHR_push_descriptor.
//
// Each dispatch needs a set holding its storage-buffer ranges. The cache
// keeps one set per distinct (binding count, ranges) and hands the same
// set to every later dispatch over the same ranges, so a frame loop that
// records the same plans over the same buffers allocates nothing after its
// first frame. A set is updated only when created, so it may be bound by
// any number of command buffers at once. The sets of a buffer are freed
// when the buffer is destroyed (Buffer.Release, after the library's
// submissions that may use it; the caller must know its own command
// buffers no longer use it, as for the buffer itself); the pools, and the
// set layouts (one per binding count), live until the context's Release.

// setsPerPool and descriptorsPerPool size each descriptor pool; a full pool
// is followed by a new one.
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

type cachedSet struct{ set, pool uint64 }

// setCache is a context's descriptor sets.
type setCache struct {
	mu       sync.Mutex
	layouts  map[int]uint64 // VkDescriptorSetLayout by binding count
	sets     map[setKey]cachedSet
	byBuffer map[*Buffer][]setKey
	pools    []uint64 // the newest last: sets are allocated from it
	live     int      // sets allocated and not freed
}

func newSetCache() *setCache {
	return &setCache{layouts: map[int]uint64{}, sets: map[setKey]cachedSet{}, byBuffer: map[*Buffer][]setKey{}}
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

// get returns the set of p's layout holding bindings (a holds them as the
// C layer takes them), creating it on first use.
func (s *setCache) get(f *deviceFuncs, p *ComputePipeline, bindings []Range, a *bindingArrays) (uint64, error) {
	key := setKey{layout: p.setSpec, n: len(bindings)}
	for i, r := range bindings {
		key.ranges[i] = rangeKey{r.Buffer, r.Offset, r.Size}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.sets[key]; ok {
		return c.set, nil
	}
	c, err := s.createLocked(f, p.setSpec, a)
	if err != nil {
		return 0, err
	}
	s.live++
	s.sets[key] = c
	for i := range key.n {
		b := key.ranges[i].buffer
		if i > 0 && slicesContainBuffer(key.ranges[:i], b) {
			continue
		}
		s.byBuffer[b] = append(s.byBuffer[b], key)
	}
	return c.set, nil
}

func slicesContainBuffer(ranges []rangeKey, b *Buffer) bool {
	for _, r := range ranges {
		if r.buffer == b {
			return true
		}
	}
	return false
}

// createLocked allocates and writes a set, from the newest pool or, when
// that is full, from a new one.
func (s *setCache) createLocked(f *deviceFuncs, layout uint64, a *bindingArrays) (cachedSet, error) {
	n := a.n
	if len(s.pools) > 0 {
		pool := s.pools[len(s.pools)-1]
		set, r := f.createStorageSet(pool, layout, a.buffers[:n], a.offsets[:n], a.ranges[:n])
		switch r {
		case resultSuccess:
			return cachedSet{set, pool}, nil
		case resultOutOfPoolMemory, resultFragmentedPool:
			// A new pool below.
		default:
			return cachedSet{}, newError("vkAllocateDescriptorSets", r)
		}
	}
	pool, r := f.createDescriptorPool(setsPerPool, max(descriptorsPerPool, uint32(n)))
	if err := check("vkCreateDescriptorPool", r); err != nil {
		return cachedSet{}, err
	}
	s.pools = append(s.pools, pool)
	set, r := f.createStorageSet(pool, layout, a.buffers[:n], a.offsets[:n], a.ranges[:n])
	if err := check("vkAllocateDescriptorSets", r); err != nil {
		return cachedSet{}, fmt.Errorf("a new descriptor pool: %w", err)
	}
	return cachedSet{set, pool}, nil
}

// forget frees the sets that hold b.
func (s *setCache) forget(f *deviceFuncs, b *Buffer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, key := range s.byBuffer[b] {
		if c, ok := s.sets[key]; ok {
			f.freeSet(c.pool, c.set)
			s.live--
			delete(s.sets, key)
		}
	}
	delete(s.byBuffer, b)
}

// count returns the number of sets allocated and not freed.
func (s *setCache) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live
}

// destroy destroys the pools (and their sets) and the layouts.
func (s *setCache) destroy(f *deviceFuncs) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pools {
		f.destroy(objDescriptorPool, p)
	}
	for _, l := range s.layouts {
		f.destroy(objSetLayout, l)
	}
	s.pools, s.layouts, s.sets, s.byBuffer, s.live = nil, nil, nil, nil, 0
}

// DescriptorSets reports how many descriptor sets the context holds: 0
// where it pushes its buffers with VK_KHR_push_descriptor; otherwise one
// per distinct set of buffer ranges a dispatch has bound, until one of
// those buffers is released.
func (c *Context) DescriptorSets() int {
	if c == nil || c.sets == nil {
		return 0
	}
	return c.sets.count()
}

// PushDescriptors reports whether the context pushes its kernels' buffers
// with VK_KHR_push_descriptor (otherwise it binds cached descriptor sets).
func (c *Context) PushDescriptors() bool { return c != nil && c.push }

// ObjectCounts are the Vulkan objects a context holds, for leak checks.
type ObjectCounts struct {
	// Buffers, Pipelines and Timers not released yet (wrapped buffers
	// included), and Retired objects released while a submission that may
	// use them was outstanding, waiting for it.
	Buffers, Pipelines, Timers, Retired int
	// CommandPools and Fences of the library's own submissions: free ones
	// kept for the next, and those in use.
	CommandPools, Fences int
	// DescriptorSets and DescriptorPools of the set cache (0 with push
	// descriptors).
	DescriptorSets, DescriptorPools int
	// StagingBytes is the memory of the staging buffer the context keeps
	// for transfers where device memory is not host-visible (counted in
	// AllocatedBytes too; 0 when it has none).
	StagingBytes uint64
}

// Objects counts the Vulkan objects the context holds now (zero after
// Release).
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
	n.CommandPools = len(c.freePools) + len(c.outstanding)
	n.Fences = len(c.freeFences) + len(c.outstanding)
	c.mu.Unlock()
	c.stagingMu.Lock()
	if c.staging != nil {
		n.StagingBytes = c.staging.memSize
	}
	c.stagingMu.Unlock()
	if c.sets != nil {
		c.sets.mu.Lock()
		n.DescriptorSets, n.DescriptorPools = c.sets.live, len(c.sets.pools)
		c.sets.mu.Unlock()
	}
	return n
}
