package vk_test

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/transfer"
	"github.com/vkcompact/vkcompact/vk"
)

// newRand returns a generator seeded afresh for each test, logging the
// seed so that a failure can be replayed.
func newRand(t *testing.T) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// expectedSubgroupSize is lavapipe's subgroup size under the test's
// LP_NATIVE_VECTOR_WIDTH (128 bits: 4 lanes; 256 or unset: 8; 512: 16).
func expectedSubgroupSize() uint32 {
	switch os.Getenv("LP_NATIVE_VECTOR_WIDTH") {
	case "128":
		return 4
	case "512":
		return 16
	}
	return 8
}

func TestDevices(t *testing.T) {
	ctx := vktest.Open(t) // skips (or fails in CI) without a device
	if vktest.InCI() && vktest.ValidationWanted() && !ctx.Validating() {
		t.Error("CI runs without the validation layer")
	}
	infos, def, err := vk.Devices()
	if err != nil {
		t.Fatal(err)
	}
	if def < 0 || def >= len(infos) || !infos[def].Default || !infos[def].Usable() {
		t.Fatalf("default device %d is not a usable, marked device: %+v", def, infos)
	}
	info := ctx.Info()
	if info.SubgroupSize == 0 || info.MaxStorageBufferRange == 0 || info.MaxWorkgroupCount[0] == 0 || len(info.MemoryHeaps) == 0 {
		t.Errorf("incomplete device information: %+v", info)
	}
	if !slices.Contains(info.SubgroupOperations, "ballot") || !slices.Contains(info.SubgroupOperations, "arithmetic") {
		t.Errorf("subgroup operations %v lack ballot or arithmetic", info.SubgroupOperations)
	}
	if strings.Contains(info.Name, "llvmpipe") {
		if want := expectedSubgroupSize(); info.SubgroupSize != want {
			t.Errorf("lavapipe subgroup size %d, want %d under LP_NATIVE_VECTOR_WIDTH=%q", info.SubgroupSize, want, os.Getenv("LP_NATIVE_VECTOR_WIDTH"))
		}
		if info.DriverName != "llvmpipe" || info.MaxStorageBufferRange != 1<<27 {
			t.Errorf("lavapipe driver %q, maxStorageBufferRange %d", info.DriverName, info.MaxStorageBufferRange)
		}
	}
}

func TestOpenSelection(t *testing.T) {
	ctx := vktest.Open(t)
	name := ctx.Info().Name
	for _, tc := range []struct {
		device string
		err    error
	}{
		{"999", vk.ErrNoDevice},
		{"no-such-device-name", vk.ErrNoDevice},
		{"-3", vk.ErrNoDevice},
	} {
		c, err := vk.Open(vk.Options{Device: tc.device})
		if !errors.Is(err, tc.err) {
			c.Release()
			t.Errorf("Open(%q) = %v, want %v", tc.device, err, tc.err)
		}
	}
	// A case-changed part of the name, and the environment variable.
	part := strings.ToUpper(strings.Fields(name)[0])
	c, err := vk.Open(vk.Options{Device: part})
	if err != nil {
		t.Fatalf("Open(%q): %v", part, err)
	}
	if c.Info().Name != name {
		t.Errorf("Open(%q) chose %s", part, c.Info().Name)
	}
	c.Release()
	t.Setenv("VKCOMPACT_DEVICE", "no-such-device-name")
	if c, err := vk.Open(vk.Options{}); !errors.Is(err, vk.ErrNoDevice) {
		c.Release()
		t.Errorf("VKCOMPACT_DEVICE naming no device: %v", err)
	}
}

type particle struct {
	Pos, Vel [3]float32
	Age      float32
	Life     float32
}

// roundTrip uploads src into a poisoned buffer at an offset and downloads
// it back.
func roundTrip[T any](t *testing.T, ctx *vk.Context, src []T, elemSize uint64) {
	t.Helper()
	size := uint64(len(src)) * elemSize
	const off = 48
	buf, err := ctx.NewBuffer(size+2*off, vk.DeviceLocal)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	guard := make([]byte, buf.Size())
	for i := range guard {
		guard[i] = 0xA5
	}
	if err := vk.Upload(buf.All(), guard); err != nil {
		t.Fatal(err)
	}
	if err := vk.Upload(buf.Range(off, size), src); err != nil {
		t.Fatal(err)
	}
	got := make([]T, len(src))
	if err := vk.Download(buf.Range(off, size), got); err != nil {
		t.Fatal(err)
	}
	if !equalElems(got, src) {
		t.Fatalf("round trip of %d %T differs", len(src), src)
	}
	all := make([]byte, buf.Size())
	if err := vk.Download(buf.All(), all); err != nil {
		t.Fatal(err)
	}
	for _, i := range []uint64{0, off - 1, off + size, buf.Size() - 1} {
		if all[i] != 0xA5 {
			t.Fatalf("byte %d outside the range was overwritten: %#x", i, all[i])
		}
	}
}

// equalElems compares element by element (T may be a struct of arrays).
func equalElems[T any](a, b []T) bool {
	return slices.EqualFunc(a, b, func(x, y T) bool { return any(x) == any(y) })
}

func TestUploadDownload(t *testing.T) {
	ctx := vktest.Open(t)
	rng := newRand(t)
	for _, staged := range []bool{false, true} {
		vk.SetForceStaging(staged)
		u := make([]uint32, 1000+rng.IntN(1000))
		for i := range u {
			u[i] = rng.Uint32()
		}
		roundTrip(t, ctx, u, 4)
		f := make([]float64, 777)
		for i := range f {
			f[i] = rng.NormFloat64()
		}
		roundTrip(t, ctx, f, 8)
		p := make([]particle, 333)
		for i := range p {
			p[i] = particle{Pos: [3]float32{rng.Float32(), 1, 2}, Age: rng.Float32(), Life: 3}
		}
		roundTrip(t, ctx, p, 32)
		b := make([]uint8, 13)
		roundTrip(t, ctx, b, 1)
	}
	vk.SetForceStaging(false)
}

// TestStagingChunks moves more than one staging chunk each way.
func TestStagingChunks(t *testing.T) {
	ctx := vktest.Open(t)
	rng := newRand(t)
	vk.SetForceStaging(true)
	defer vk.SetForceStaging(false)
	n := vk.StagingChunk/4 + 12345
	src := make([]uint32, n)
	for i := range src {
		src[i] = rng.Uint32()
	}
	buf, err := ctx.NewBuffer(uint64(4*n), vk.DeviceLocal)
	if err != nil {
		t.Fatal(err)
	}
	if err := vk.Upload(buf.All(), src); err != nil {
		t.Fatal(err)
	}
	got := make([]uint32, n)
	if err := vk.Download(buf.All(), got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, src) {
		t.Fatal("staged round trip over several chunks differs")
	}
}

func TestBufferBadInput(t *testing.T) {
	ctx := vktest.Open(t)
	if _, err := ctx.NewBuffer(0, vk.DeviceLocal); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("zero-length buffer: %v", err)
	}
	// Larger than any heap: an out-of-memory error, nothing leaked (the
	// validation layer checks at Release), and the context still works.
	if _, err := ctx.NewBuffer(1<<62, vk.DeviceLocal); !errors.Is(err, vk.ErrOutOfDeviceMemory) {
		t.Errorf("over-large buffer: %v", err)
	}
	if _, err := ctx.NewBuffer(1<<62, vk.HostVisible); !errors.Is(err, vk.ErrOutOfDeviceMemory) {
		t.Errorf("over-large host buffer: %v", err)
	}
	if err := ctx.Err(); err != nil {
		t.Errorf("context unusable after an out-of-memory error: %v", err)
	}
	buf, err := ctx.NewBuffer(64, vk.DeviceLocal)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		err  error
		call func() error
	}{
		{"download into a short slice", vk.ErrInvalid, func() error { return vk.Download(buf.All(), make([]uint32, 15)) }},
		{"download into a long slice", vk.ErrInvalid, func() error { return vk.Download(buf.All(), make([]uint32, 17)) }},
		{"upload of the wrong length", vk.ErrInvalid, func() error { return vk.Upload(buf.Range(0, 8), []uint32{1, 2, 3}) }},
		{"range past the end", vk.ErrInvalid, func() error { return vk.Upload(buf.Range(60, 8), []uint32{1, 2}) }},
		{"offset past the end", vk.ErrInvalid, func() error { return vk.Download(buf.Range(1<<40, 4), []uint32{0}) }},
		{"offset overflowing", vk.ErrInvalid, func() error { return vk.Download(buf.Range(^uint64(0)-2, 4), []uint32{0}) }},
		{"pointer element type", vk.ErrInvalid, func() error { return vk.Upload(buf.Range(0, 16), []*int{nil, nil}) }},
		{"string element type", vk.ErrInvalid, func() error { return vk.Upload(buf.Range(0, 16), []string{""}) }},
		{"nil buffer", vk.ErrInvalid, func() error { return vk.Download(vk.Range{Size: 4}, []uint32{0}) }},
	}
	for _, tc := range cases {
		if err := tc.call(); !errors.Is(err, tc.err) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.err)
		}
	}
	buf.Release()
	buf.Release() // idempotent
	if err := vk.Download(buf.All(), make([]uint32, 16)); !errors.Is(err, vk.ErrReleased) {
		t.Errorf("download after Release: %v", err)
	}
	if err := vk.Upload(buf.All(), make([]uint32, 16)); !errors.Is(err, vk.ErrReleased) {
		t.Errorf("upload after Release: %v", err)
	}
}

func TestContextRelease(t *testing.T) {
	ctx := vktest.Open(t)
	buf, err := ctx.NewBuffer(16, vk.DeviceLocal) // left for Release to free
	if err != nil {
		t.Fatal(err)
	}
	ctx.Release()
	ctx.Release() // idempotent
	if err := ctx.Err(); !errors.Is(err, vk.ErrReleased) {
		t.Errorf("Err after Release: %v", err)
	}
	if _, err := ctx.NewBuffer(16, vk.DeviceLocal); !errors.Is(err, vk.ErrReleased) {
		t.Errorf("NewBuffer after Release: %v", err)
	}
	if err := vk.Download(buf.All(), make([]uint32, 4)); !errors.Is(err, vk.ErrReleased) {
		t.Errorf("download from a buffer of a released context: %v", err)
	}
	buf.Release() // harmless after the context's Release
	if err := ctx.Submit(func(vk.CommandBuffer) error { return nil }); !errors.Is(err, vk.ErrReleased) {
		t.Errorf("Submit after Release: %v", err)
	}
}

func TestDeviceLostIsSticky(t *testing.T) {
	ctx := vktest.Open(t)
	if err := vk.MarkLost(ctx); !errors.Is(err, vk.ErrDeviceLost) {
		t.Fatalf("MarkLost: %v", err)
	}
	if err := ctx.Err(); !errors.Is(err, vk.ErrDeviceLost) {
		t.Errorf("Err after device loss: %v", err)
	}
	if _, err := ctx.NewBuffer(16, vk.DeviceLocal); !errors.Is(err, vk.ErrDeviceLost) {
		t.Errorf("NewBuffer after device loss: %v", err)
	}
	if err := ctx.Submit(func(vk.CommandBuffer) error { return nil }); !errors.Is(err, vk.ErrDeviceLost) {
		t.Errorf("Submit after device loss: %v", err)
	}
}

// TestSubmitTimeout: a copy whose wait times out (the fault seam's
// VK_TIMEOUT, the copy still in flight for the library until the test
// lets it complete) returns ErrTimeout instead of hanging; the context
// stays usable, a buffer released meanwhile is retired until the copy
// completes, and the copy's result is right.
func TestSubmitTimeout(t *testing.T) {
	ctx := vktest.Open(t)
	const n = 1 << 20
	src, err := ctx.NewBuffer(4*n, vk.DeviceLocal)
	if err != nil {
		t.Fatal(err)
	}
	dst := poisoned(t, ctx, n)
	pattern := make([]uint32, n)
	for i := range pattern {
		pattern[i] = uint32(i) * 2654435761
	}
	if err := vk.Upload(src.All(), pattern); err != nil {
		t.Fatal(err)
	}
	before := ctx.AllocatedBytes()
	complete := vktest.HoldInFlight(t, ctx, 1)
	err = transfer.Copy(ctx, dst.All(), src.All(), transfer.CopyOptions{})
	if !errors.Is(err, vk.ErrTimeout) {
		t.Fatalf("copy whose wait times out: %v, want ErrTimeout", err)
	}
	if err := ctx.Err(); err != nil {
		t.Fatalf("context unusable after a timeout: %v", err)
	}
	if err := ctx.Submit(func(vk.CommandBuffer) error { return nil }); err != nil {
		t.Fatalf("a submission after the timeout: %v", err)
	}
	// Releasing a buffer the timed-out copy still uses defers its freeing.
	src.Release()
	if p, o := ctx.Pending(), ctx.Objects(); p != 1 || o.Retired != 1 || ctx.AllocatedBytes() != before {
		t.Fatalf("the copy in flight: %d pending, %d retired, %d bytes allocated; want 1, 1 and %d", p, o.Retired, ctx.AllocatedBytes(), before)
	}
	complete()
	settle(t, ctx)
	if o := ctx.Objects(); o.Retired != 0 || ctx.AllocatedBytes() != before-4*n {
		t.Fatalf("the copy completed: %d retired, %d bytes allocated; want 0 and %d", o.Retired, ctx.AllocatedBytes(), before-4*n)
	}
	got := make([]uint32, n)
	if err := vk.Download(dst.All(), got); err != nil {
		t.Fatalf("download after the timeout: %v", err)
	}
	if !slices.Equal(got, pattern) {
		t.Errorf("the timed-out copy's result differs from its source")
	}
}

// TestValidationSeesHazard proves the validation setup: two writes to one
// buffer with no barrier between them must draw a synchronisation hazard.
func TestValidationSeesHazard(t *testing.T) {
	ctx := openValidated(t)
	src, _ := ctx.NewBuffer(256, vk.DeviceLocal)
	dst, _ := ctx.NewBuffer(256, vk.DeviceLocal)
	err := ctx.Submit(func(cb vk.CommandBuffer) error {
		cb.CopyBuffer(src.All(), dst.All())
		cb.CopyBuffer(src.All(), dst.All()) // write after write, no barrier
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !hasMessage(ctx, "SYNC-HAZARD-WRITE-AFTER-WRITE") {
		t.Fatalf("the layer did not report the write-after-write hazard; messages: %v", ctx.Messages())
	}
	// The same two copies with a barrier between them draw nothing.
	ctx.ClearMessages()
	err = ctx.Submit(func(cb vk.CommandBuffer) error {
		cb.MemoryBarrier(vk.StageAllCommands, vk.StageTransfer, vk.AccessMemoryWrite, vk.AccessTransferWrite)
		cb.CopyBuffer(src.All(), dst.All())
		cb.BufferBarrier(vk.StageTransfer, vk.StageTransfer, vk.AccessTransferWrite, vk.AccessTransferWrite, dst.All())
		cb.CopyBuffer(src.All(), dst.All())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if msgs := ctx.Messages(); len(msgs) > 0 {
		t.Fatalf("messages with the barrier in place: %v", msgs)
	}
	src.Release()
	dst.Release()
}

func TestTimer(t *testing.T) {
	ctx := vktest.Open(t)
	const n = 1 << 20
	src, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	dst, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	timer, err := ctx.NewTimer(2)
	if err != nil {
		t.Fatal(err)
	}
	defer timer.Release()
	err = ctx.Submit(func(cb vk.CommandBuffer) error {
		timer.Reset(cb)
		timer.Stamp(cb, 0)
		cb.CopyBuffer(src.All(), dst.All())
		timer.Stamp(cb, 1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ns, err := timer.Nanoseconds(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if ns <= 0 || ns > 10e9 {
		t.Errorf("copy of 4 MiB took %v ns by the timestamps", ns)
	}
	if _, err := timer.Nanoseconds(0, 2); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("timestamp out of range: %v", err)
	}
	if _, err := ctx.NewTimer(0); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("NewTimer(0): %v", err)
	}
}

// TestBorrow builds a context on another context's device, as an engine
// would hand its own: work runs, and releasing the borrowed context leaves
// the owner's device intact.
func TestBorrow(t *testing.T) {
	owner := vktest.Open(t)
	if _, err := vk.Borrow(vk.Handles{}); !errors.Is(err, vk.ErrInvalid) {
		t.Errorf("Borrow of nil handles: %v", err)
	}
	b, err := vk.Borrow(vk.OwnedHandles(owner))
	if err != nil {
		t.Fatal(err)
	}
	if !b.Borrowed() || b.Info().Name != owner.Info().Name {
		t.Fatalf("borrowed context: %+v", b.Info())
	}
	// shaderInt64: Open enables it where the device has it, Handles says
	// so, and a borrowed context takes it only where Handles says so.
	if owner.ShaderInt64() != owner.Info().ShaderInt64 || b.ShaderInt64() != owner.ShaderInt64() {
		t.Errorf("shaderInt64: owner %v (device %v), borrowed %v", owner.ShaderInt64(), owner.Info().ShaderInt64, b.ShaderInt64())
	}
	h := vk.OwnedHandles(owner)
	h.ShaderInt64 = false
	if off, err := vk.Borrow(h); err != nil || off.ShaderInt64() {
		t.Errorf("Borrow with Handles.ShaderInt64 false: %v, shaderInt64 %v", err, off != nil && off.ShaderInt64())
	} else {
		off.Release()
	}
	src, _ := b.NewBuffer(1024, vk.DeviceLocal)
	dst, _ := b.NewBuffer(1024, vk.DeviceLocal)
	want := make([]uint32, 256)
	for i := range want {
		want[i] = uint32(i * 3)
	}
	if err := vk.Upload(src.All(), want); err != nil {
		t.Fatal(err)
	}
	if err := transfer.Copy(b, dst.All(), src.All(), transfer.CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	got := make([]uint32, 256)
	if err := vk.Download(dst.All(), got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatal("copy on a borrowed device differs")
	}
	b.Release() // frees src, dst and the cached pipeline, not the device
	// The owner's device must still work.
	buf, err := owner.NewBuffer(64, vk.DeviceLocal)
	if err != nil {
		t.Fatalf("owner after the borrower's Release: %v", err)
	}
	if err := vk.Upload(buf.All(), make([]uint32, 16)); err != nil {
		t.Fatalf("owner after the borrower's Release: %v", err)
	}
}

// TestLeakReported proves that the leak check of vktest is real: an object
// left alive when the device is destroyed draws a validation message. (A
// context destroys what the caller forgot to release; only an object it
// lost track of can leak.)
func TestLeakReported(t *testing.T) {
	ctx := openValidated(t)
	p, err := ctx.NewComputePipeline(vk.PipelineDesc{Name: "copy", Code: shaders.MustSPIRV("copy"), Bindings: 4, PushSize: 4, Constants: []uint32{64, 1}})
	if err != nil {
		t.Fatal(err)
	}
	vk.Orphan(ctx, p) // lose track of it, so Release leaves it alive
	ctx.Release()
	if !hasMessage(ctx, "has not been destroyed") {
		t.Fatalf("no leak report for an unreleased pipeline; messages: %v", ctx.Messages())
	}
}

// TestValidationSeesComputeHazard: the layer tracks buffers bound with push
// descriptors, and with descriptor sets, so a missing barrier between two
// dependent dispatches is reported. This is what makes the pipeline
// tests' silence meaningful.
func TestValidationSeesComputeHazard(t *testing.T) {
	for _, push := range []bool{false, true} {
		t.Run(fmt.Sprintf("push=%v", push), func(t *testing.T) {
			ctx := openValidatedOptions(t, vk.Options{Validate: true, PushDescriptors: push})
			if push != ctx.PushDescriptors() {
				if push && !ctx.Info().PushDescriptor {
					t.Skip("the device has no VK_KHR_push_descriptor")
				}
				if !push && os.Getenv("VKCOMPACT_PUSH_DESCRIPTORS") == "1" {
					t.Skip("VKCOMPACT_PUSH_DESCRIPTORS=1 asks for push descriptors")
				}
				t.Fatalf("Options.PushDescriptors %v, the context pushes: %v", push, ctx.PushDescriptors())
			}
			p, err := ctx.NewComputePipeline(vk.PipelineDesc{Name: "copy", Code: shaders.MustSPIRV("copy"), Bindings: 4, PushSize: 4, Constants: []uint32{64, 1}})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Release()
			a, _ := ctx.NewBuffer(1024, vk.DeviceLocal)
			b, _ := ctx.NewBuffer(1024, vk.DeviceLocal)
			c, _ := ctx.NewBuffer(1024, vk.DeviceLocal)
			err = ctx.Submit(func(cb vk.CommandBuffer) error {
				if err := cb.Dispatch(p, []uint32{256}, []vk.Range{a.All(), b.All(), a.All(), b.All()}, 1, 1, 1); err != nil { // b = a
					return err
				}
				return cb.Dispatch(p, []uint32{256}, []vk.Range{b.All(), c.All(), b.All(), c.All()}, 1, 1, 1) // c = b, no barrier
			})
			if err != nil {
				t.Fatal(err)
			}
			if !hasMessage(ctx, "SYNC-HAZARD-READ-AFTER-WRITE") {
				t.Fatalf("the layer did not report the read-after-write hazard; messages: %v", ctx.Messages())
			}
			a.Release()
			b.Release()
			c.Release()
		})
	}
}

// TestConcurrentUseAndRelease runs transfers and copies from several
// goroutines while the context is released under them: each call either
// completes or reports ErrReleased; nothing crashes or hangs.
func TestConcurrentUseAndRelease(t *testing.T) {
	ctx := vktest.Open(t)
	timer, err := ctx.NewTimer(2)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	var completed, inFlight atomic.Int32
	for g := range 6 {
		wg.Go(func() {
			// Until Release stops it (a bound keeps a broken Release from
			// looping forever).
			for i := range 100000 {
				inFlight.Add(1)
				n := 1024 * (1 + (g+i)%7)
				a, err := ctx.NewBuffer(uint64(4*n), vk.DeviceLocal)
				if err != nil {
					errs <- err
					return
				}
				b, err := ctx.NewBuffer(uint64(4*n), vk.DeviceLocal)
				if err != nil {
					a.Release()
					errs <- err
					return
				}
				data := make([]uint32, n)
				for j := range data {
					data[j] = uint32(j * (g + 1))
				}
				err = vk.Upload(a.All(), data)
				if err == nil {
					err = transfer.Copy(ctx, b.All(), a.All(), transfer.CopyOptions{})
				}
				got := make([]uint32, n)
				if err == nil {
					err = vk.Download(b.All(), got)
				}
				if err == nil && !slices.Equal(got, data) {
					err = errors.New("concurrent copy produced wrong data")
				}
				a.Release()
				b.Release()
				inFlight.Add(-1)
				if err != nil {
					errs <- err
					return
				}
				completed.Add(1)
			}
			errs <- errors.New("no ErrReleased after 100000 rounds")
		})
	}
	// Release while the goroutines are busy: after some rounds have
	// completed, and while at least two are running.
	deadline := time.Now().Add(time.Minute)
	for completed.Load() < 6 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	running := int32(0)
	for running < 2 && time.Now().Before(deadline) {
		running = inFlight.Load()
	}
	ctx.Release()
	wg.Wait()
	close(errs)
	t.Logf("%d rounds completed, %d running at Release", completed.Load(), running)
	if completed.Load() < 6 || running < 2 {
		t.Errorf("%d rounds completed and %d running at Release: want at least 6 and 2", completed.Load(), running)
	}
	ended := 0
	for err := range errs {
		ended++
		if !errors.Is(err, vk.ErrReleased) {
			t.Errorf("concurrent call during Release: %v", err)
		}
	}
	if ended != 6 {
		t.Errorf("%d goroutines ended with an error, want all 6 with ErrReleased", ended)
	}
	timer.Release() // after the context's Release: a no-op
	if _, err := timer.Ticks(); !errors.Is(err, vk.ErrReleased) {
		t.Errorf("Ticks after Release: %v", err)
	}
}

// TestGCPressure records, submits, creates pipelines and enumerates devices
// while other goroutines force garbage collections. The binding frees the C
// copies of slice arguments from finalizers that a collection can run in
// the middle of the call; vk must not hand it such arguments (this crashed
// before vk made those calls itself).
func TestGCPressure(t *testing.T) {
	ctx := vktest.Open(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					runtime.GC()
				}
			}
		})
	}
	defer func() { close(stop); wg.Wait() }()
	a, _ := ctx.NewBuffer(4096, vk.DeviceLocal)
	b, _ := ctx.NewBuffer(4096, vk.DeviceLocal)
	defer a.Release()
	defer b.Release()
	for i := range 1500 {
		err := ctx.Submit(func(cb vk.CommandBuffer) error {
			for range 8 {
				cb.CopyBuffer(a.All(), b.All())
				cb.BufferBarrier(vk.StageTransfer, vk.StageTransfer, vk.AccessTransferWrite, vk.AccessTransferWrite, b.All())
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if i%30 == 0 {
			p, err := ctx.NewComputePipeline(vk.PipelineDesc{Name: "copy", Code: shaders.MustSPIRV("copy"), Bindings: 4, PushSize: 4, Constants: []uint32{64, uint32(1 + i%4)}})
			if err != nil {
				t.Fatal(err)
			}
			p.Release()
			if _, _, err := vk.Devices(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestReleaseWithWorkInFlight releases the context right after a copy
// whose wait timed out (the fault seam's VK_TIMEOUT): Release must wait
// for that submission before destroying the pipeline and buffers it uses
// (the validation layer reports any object destroyed while in use).
func TestReleaseWithWorkInFlight(t *testing.T) {
	ctx := vktest.Open(t)
	const n = 16 << 20
	src, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	dst, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	vktest.HoldInFlight(t, ctx, 1)
	if err := transfer.Copy(ctx, dst.All(), src.All(), transfer.CopyOptions{}); !errors.Is(err, vk.ErrTimeout) {
		t.Fatalf("copy whose wait times out: %v", err)
	}
	src.Release() // retired: the copy still reads it
	ctx.Release() // its own wait for the copy is not held
	if n := ctx.AllocatedBytes(); n != 0 {
		t.Errorf("%d bytes allocated after Release", n)
	}
}

// TestStagingAfterTimeout: a staged transfer whose wait times out (the
// fault seam's VK_TIMEOUT) leaves its copy in flight; the next transfers
// must neither free nor overwrite the staging memory that copy uses: they
// take a staging buffer of their own while it is held.
func TestStagingAfterTimeout(t *testing.T) {
	ctx := vktest.Open(t)
	vk.SetForceStaging(true)
	defer vk.SetForceStaging(false)
	rng := newRand(t)
	const n = 1 << 20
	a, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	b, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	wantA, wantB := make([]uint32, n), make([]uint32, n)
	for i := range wantA {
		wantA[i], wantB[i] = rng.Uint32(), rng.Uint32()
	}
	base := ctx.AllocatedBytes()
	complete := vktest.HoldInFlight(t, ctx, 1)
	if err := vk.Upload(a.All(), wantA); !errors.Is(err, vk.ErrTimeout) {
		t.Fatalf("upload whose wait times out: %v, want ErrTimeout", err)
	}
	held := ctx.AllocatedBytes() - base // the first staging buffer, in flight
	// Same size: must not reuse the staging buffer the first copy reads.
	if err := vk.Upload(b.All(), wantB); err != nil {
		t.Fatal(err)
	}
	if got := ctx.AllocatedBytes() - base; held == 0 || got < 2*held {
		t.Errorf("a second upload while the first is in flight: %d bytes of staging, the first alone %d: want a second buffer", got, held)
	}
	complete()
	settle(t, ctx)
	got := make([]uint32, n)
	for name, c := range map[string]struct {
		buf  *vk.Buffer
		want []uint32
	}{"a": {a, wantA}, "b": {b, wantB}} {
		if err := vk.Download(c.buf.All(), got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("buffer %s differs after a timed-out upload", name)
		}
	}
	// A download that times out, then a larger one: the first's staging
	// buffer must outlive its copy, and the caller's slice stays as it was.
	complete = vktest.HoldInFlight(t, ctx, 1)
	poison := slices.Repeat([]uint32{poisonWord}, n/2)
	half := slices.Clone(poison)
	if err := vk.Download(a.Range(0, 4*n/2), half); !errors.Is(err, vk.ErrTimeout) {
		t.Fatalf("download whose wait times out: %v, want ErrTimeout", err)
	}
	if !slices.Equal(half, poison) {
		t.Errorf("a timed-out download wrote into the caller's slice")
	}
	if err := vk.Download(a.All(), got); err != nil || !slices.Equal(got, wantA) {
		t.Fatalf("download after a timed-out download: %v", err)
	}
	complete()
}

// settle waits up to a minute for ctx's submissions in flight to complete
// (after a HoldInFlight's release, the work may still be running).
func settle(t *testing.T, ctx *vk.Context) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for ctx.Pending() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if p := ctx.Pending(); p != 0 {
		t.Fatalf("%d submissions still in flight after a minute", p)
	}
}

// TestReleaseWhileRecording releases a buffer that the command buffer
// being recorded uses: it must live until that submission completes.
func TestReleaseWhileRecording(t *testing.T) {
	ctx := vktest.Open(t)
	a, _ := ctx.NewBuffer(1024, vk.DeviceLocal)
	b, _ := ctx.NewBuffer(1024, vk.DeviceLocal)
	want := make([]uint32, 256)
	for i := range want {
		want[i] = uint32(i + 1)
	}
	if err := vk.Upload(a.All(), want); err != nil {
		t.Fatal(err)
	}
	err := ctx.Submit(func(cb vk.CommandBuffer) error {
		cb.CopyBuffer(a.All(), b.All())
		a.Release() // recorded but not yet submitted
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]uint32, 256)
	if err := vk.Download(b.All(), got); err != nil || !slices.Equal(got, want) {
		t.Fatalf("copy from a buffer released while recording: %v", err)
	}
}

// TestTimerUnwritten: reading a timestamp that was never written is an
// error, not a hang.
func TestTimerUnwritten(t *testing.T) {
	ctx := vktest.Open(t)
	timer := stampedTimer(t, ctx, 3)
	if _, err := timer.Nanoseconds(0, 1); err != nil {
		t.Errorf("written stamps: %v", err)
	}
	if _, err := timer.Ticks(); !errors.Is(err, vk.ErrInvalid) || !strings.Contains(err.Error(), "timestamp 2") {
		t.Errorf("unwritten stamp: %v", err)
	}
}

func TestBorrowBadQueueFamily(t *testing.T) {
	owner := vktest.Open(t)
	h := vk.OwnedHandles(owner)
	h.QueueFamily = 99
	if c, err := vk.Borrow(h); !errors.Is(err, vk.ErrInvalid) {
		c.Release()
		t.Errorf("Borrow with queue family 99: %v", err)
	}
}

// openValidated opens a context with validation on, outside vktest: these
// tests provoke messages on purpose and inspect them. It is released when
// the test ends (a second Release is harmless).
func openValidated(t *testing.T) *vk.Context {
	t.Helper()
	return openValidatedOptions(t, vk.Options{Validate: true})
}

func openValidatedOptions(t *testing.T, opts vk.Options) *vk.Context {
	t.Helper()
	if !vktest.ValidationWanted() {
		t.Skip("VKCOMPACT_VALIDATE=0: the validation layer is off (the Windows leg: Wine's loader offers no layers)")
	}
	ctx, err := vk.Open(opts)
	if err != nil {
		if !vktest.InCI() {
			t.Skipf("no validation layer or device: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(ctx.Release)
	return ctx
}

// hasMessage reports whether the layer has said something containing text.
func hasMessage(ctx *vk.Context, text string) bool {
	return slices.ContainsFunc(ctx.Messages(), func(m vk.Message) bool { return strings.Contains(m.Text, text) })
}

// TestTimerReadVersusRelease reads a timer while another goroutine
// releases it: each read succeeds or reports ErrReleased, never touches a
// destroyed pool.
func TestTimerReadVersusRelease(t *testing.T) {
	ctx := vktest.Open(t)
	for range 300 {
		timer := stampedTimer(t, ctx, 2)
		done := make(chan error)
		go func() { _, err := timer.Ticks(); done <- err }()
		timer.Release()
		if err := <-done; err != nil && !errors.Is(err, vk.ErrReleased) {
			t.Fatalf("Ticks racing Release: %v", err)
		}
	}
}

// TestReleaseVersusPending releases the context while another goroutine
// polls Pending with submissions in flight: Release must return, and
// destroy each fence once.
func TestReleaseVersusPending(t *testing.T) {
	ctx := vktest.Open(t)
	const n = 8 << 20
	src, _ := ctx.NewBuffer(4*n, vk.DeviceLocal)
	dsts := make([]*vk.Buffer, 3)
	vktest.HoldInFlight(t, ctx, len(dsts))
	for i := range dsts {
		dsts[i], _ = ctx.NewBuffer(4*n, vk.DeviceLocal)
		if err := transfer.Copy(ctx, dsts[i].All(), src.All(), transfer.CopyOptions{}); !errors.Is(err, vk.ErrTimeout) {
			t.Fatalf("copy whose wait times out: %v", err)
		}
	}
	if p := ctx.Pending(); p != len(dsts) {
		t.Fatalf("%d submissions pending, want %d", p, len(dsts))
	}
	stop := make(chan struct{})
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		for {
			select {
			case <-stop:
				return
			default:
				ctx.Pending()
			}
		}
	}()
	released := make(chan struct{})
	go func() { ctx.Release(); close(released) }()
	select {
	case <-released:
	case <-time.After(time.Minute):
		t.Fatal("Release did not return within a minute while Pending was polled")
	}
	close(stop)
	<-polled
}

// TestSubmitCallbackPanics: a record callback that panics leaves nothing
// outstanding and nothing leaked (the layer would report the command pool
// and fence at Release).
func TestSubmitCallbackPanics(t *testing.T) {
	ctx := vktest.Open(t)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the callback's panic did not propagate")
			}
		}()
		ctx.Submit(func(vk.CommandBuffer) error { panic("recording failed") })
	}()
	if n := vk.Outstanding(ctx); n != 0 {
		t.Errorf("%d submissions outstanding after a panicking callback", n)
	}
	if err := ctx.Submit(func(vk.CommandBuffer) error { return nil }); err != nil {
		t.Errorf("Submit after a panicking callback: %v", err)
	}
}

// stampedTimer makes a timer of count timestamps and writes stamps 0 and 1.
func stampedTimer(t *testing.T, ctx *vk.Context, count uint32) *vk.Timer {
	t.Helper()
	timer, err := ctx.NewTimer(count)
	if err != nil {
		t.Fatal(err)
	}
	err = ctx.Submit(func(cb vk.CommandBuffer) error {
		timer.Reset(cb)
		timer.Stamp(cb, 0)
		timer.Stamp(cb, 1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return timer
}

// TestCloseReleases checks that every object owning Vulkan objects is an
// io.Closer whose Close releases it, as Release does, and may be called
// again.
func TestCloseReleases(t *testing.T) {
	ctx := vktest.Open(t)
	buf, err := ctx.NewBuffer(16, vk.DeviceLocal)
	if err != nil {
		t.Fatal(err)
	}
	timer, err := ctx.NewTimer(2)
	if err != nil {
		t.Fatal(err)
	}
	pipe, err := ctx.NewComputePipeline(vk.PipelineDesc{Name: "copy", Code: shaders.MustSPIRV("copy"), Bindings: 4, PushSize: 4, Constants: []uint32{64, 1}})
	if err != nil {
		t.Fatal(err)
	}
	before := ctx.Objects()
	for _, c := range []struct {
		name   string
		closer io.Closer
		count  func(vk.ObjectCounts) int
	}{
		{"Buffer", buf, func(o vk.ObjectCounts) int { return o.Vulkan.Buffers }},
		{"Timer", timer, func(o vk.ObjectCounts) int { return o.Vulkan.QueryPools }},
		{"ComputePipeline", pipe, func(o vk.ObjectCounts) int { return o.Vulkan.Pipelines }},
	} {
		for range 2 {
			if err := c.closer.Close(); err != nil {
				t.Errorf("%s.Close: %v", c.name, err)
			}
		}
		if got, was := c.count(ctx.Objects()), c.count(before); got != was-1 {
			t.Errorf("%s.Close: %d of its Vulkan objects live, %d before: want one fewer", c.name, got, was)
		}
	}
	if err := ctx.Close(); err != nil {
		t.Errorf("Context.Close: %v", err)
	}
	if err := ctx.Close(); err != nil {
		t.Errorf("Context.Close again: %v", err)
	}
	if err := ctx.Err(); !errors.Is(err, vk.ErrReleased) {
		t.Errorf("Err after Close: %v", err)
	}
}
