package vktest

import (
	_ "embed"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/vkcompact/vkcompact/vk"
)

//go:generate glslc --target-env=vulkan1.1 -O -Werror spin.comp -o spin.spv

//go:embed spin.spv
var spinSPIRV []byte

// SpinDeadline is how long a Spin may hold its work in flight: past it the
// Spin ends the work itself and fails its test, so that a test whose code
// waits for the work forever (a Release that waits for a fence nobody will
// signal, say) fails instead of hanging its binary.
const SpinDeadline = 3 * time.Minute

// SpinBytes is the size of a Spin's words: go, then the workgroups
// begun, the polls and the workgroups finished, one uint32 each.
const SpinBytes = 16

// SpinDispatches is how many dispatches of one workgroup of the kernel a
// Spin records, one after the other. On lavapipe each runs for minutes
// (the kernel's comment says why it ends there at all); on other drivers
// the first one polls until End.
const SpinDispatches = 16

// Spin is work that certainly runs until the test ends it, whatever the
// driver's speed: a kernel (spin.comp) whose invocations poll a word of
// host-visible memory until the host sets it, dispatched SpinDispatches
// times. A test records it into a command buffer, lets a wait time out,
// and ends it (End) at the point of its choosing, such as when a Release
// has begun waiting: what the library does with work in flight is then
// tested against work that is in flight, not work the fault seam only
// pretends is (HoldInFlight).
type Spin struct {
	t        testing.TB
	pipeline *vk.ComputePipeline
	words    vk.Range
	mapped   *[4]uint32

	ended atomic.Bool // End was called: the word is set, and never written again

	mu       sync.Mutex
	watchdog *time.Timer
	over     bool // t has ended: the watchdog must not report
}

// NewSpin creates the spin kernel's pipeline on ctx. words is a range of
// SpinBytes bytes of host-visible, host-coherent memory of ctx's device,
// and mapped the host's view of it (the buffer's mapping at the range's
// offset): the kernel and the host talk through it while the kernel runs.
// When t ends the Spin ends its work unless End has been called (a test
// that fails half-way must not leave its kernel spinning under the
// context's Release); the memory must be alive then.
func NewSpin(t testing.TB, ctx *vk.Context, words vk.Range, mapped unsafe.Pointer) *Spin {
	t.Helper()
	if words.Size != SpinBytes || mapped == nil {
		t.Fatalf("NewSpin: want %d bytes of mapped memory, got a range of %d bytes at %p", SpinBytes, words.Size, mapped)
	}
	code := make([]uint32, len(spinSPIRV)/4)
	for i := range code {
		code[i] = binary.LittleEndian.Uint32(spinSPIRV[4*i:])
	}
	info := ctx.Info()
	size := min(256, info.MaxWorkgroupInvocations, info.MaxWorkgroupSize[0]) // every lane of a SIMD batch polls (spin.comp)
	p, err := ctx.NewComputePipeline(vk.PipelineDesc{Name: "spin", Code: code, Bindings: 1, Constants: []uint32{size}})
	if err != nil {
		t.Fatalf("the spin kernel: %v", err)
	}
	s := &Spin{t: t, pipeline: p, words: words, mapped: (*[4]uint32)(mapped)}
	t.Cleanup(func() {
		s.mu.Lock()
		s.over = true
		if s.watchdog != nil {
			s.watchdog.Stop()
		}
		s.mu.Unlock()
		s.End()
	})
	return s
}

// Pipeline returns the spin kernel's pipeline (a test may release it while
// the work is in flight).
func (s *Spin) Pipeline() *vk.ComputePipeline { return s.pipeline }

// Record clears the words and records the kernel's dispatches into cb,
// with a barrier between each two (each writes the words): the work then
// runs until End. It starts the watchdog: past SpinDeadline from here, the
// Spin ends the work and fails the test.
func (s *Spin) Record(cb vk.CommandBuffer) error {
	for i := range s.mapped {
		atomic.StoreUint32(&s.mapped[i], 0) // made visible to the device by the submission
	}
	s.ended.Store(false)
	s.mu.Lock()
	if s.watchdog == nil && !s.over {
		s.watchdog = time.AfterFunc(SpinDeadline, func() {
			s.mu.Lock()
			if !s.over {
				s.t.Errorf("the spin kernel was still held in flight %v after it was recorded: ending it (a wait that never ends?)", SpinDeadline)
			}
			s.mu.Unlock()
			s.End()
		})
	}
	s.mu.Unlock()
	for i := range SpinDispatches {
		if i > 0 {
			cb.MemoryBarrier(vk.StageComputeShader, vk.StageComputeShader, vk.AccessShaderWrite, vk.AccessShaderRead|vk.AccessShaderWrite)
		}
		if err := cb.Dispatch(s.pipeline, nil, []vk.Range{s.words}, 1, 1, 1); err != nil {
			return err
		}
	}
	return nil
}

// End lets the kernel finish: it sets the word the kernel polls. It is
// safe from any goroutine; the first call writes the word, later ones
// write nothing (the memory may be gone by then).
func (s *Spin) End() {
	if !s.ended.Swap(true) {
		atomic.StoreUint32(&s.mapped[0], 1)
	}
}

// Ended reports whether End was called (without reading the memory).
func (s *Spin) Ended() bool { return s.ended.Load() }

// Started reports whether the kernel has begun.
func (s *Spin) Started() bool { return atomic.LoadUint32(&s.mapped[1]) != 0 }

// Done reports whether every dispatch of the kernel has run to its end.
func (s *Spin) Done() bool { return atomic.LoadUint32(&s.mapped[3]) == SpinDispatches }

// Polls reports how many times the kernel has read the word End sets,
// counted as each dispatch ends.
func (s *Spin) Polls() uint32 { return atomic.LoadUint32(&s.mapped[2]) }
