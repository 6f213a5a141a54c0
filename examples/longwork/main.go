// Command longwork submits one long piece of GPU work (-sorts radix sorts
// of -n keys, in place, in one submission) under a short bound on the
// wait (-timeout, 100 ms), and shows what a program may then do with the
// work still in flight: with -verify it waits for the work (polling
// Context.Pending) and checks the keys against Go's sort; either way it
// then releases the keys and scratch buffers and the context at once,
// with the work possibly still running. The library destroys nothing the
// work uses before it has completed: Release waits for it, however long,
// and the program exits 0.
//
//	go run ./examples/longwork                   # about 30 s of work on lavapipe
//	go run ./examples/longwork -n 65536 -sorts 4 -verify
//
// It prints one JSON line: the submission's error, how long Submit took
// to return, how long Release took, and whether the keys were checked.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/vkcompact/vkcompact/pipeline"
	"github.com/vkcompact/vkcompact/radix"
	"github.com/vkcompact/vkcompact/vk"
)

type report struct {
	Device         string  `json:"device"`
	Keys           uint64  `json:"keys"`
	Sorts          int     `json:"sorts"`
	Timeout        string  `json:"timeout"`
	SubmitError    string  `json:"submit_error"`
	SubmitSeconds  float64 `json:"submit_seconds"`
	PendingAfter   int     `json:"pending_after_submit"`
	Verified       bool    `json:"verified"`
	ReleaseSeconds float64 `json:"release_seconds"`
}

func main() {
	n := flag.Uint64("n", 1<<22, "keys to sort")
	sorts := flag.Int("sorts", 200, "sorts of the keys in the one submission")
	timeout := flag.Duration("timeout", 100*time.Millisecond, "the bound on the wait (0: none)")
	verify := flag.Bool("verify", false, "wait for the work and check the keys before releasing")
	flag.Parse()
	if err := run(*n, *sorts, *timeout, *verify); err != nil {
		fmt.Fprintln(os.Stderr, "longwork:", err)
		os.Exit(1)
	}
}

func run(n uint64, sorts int, timeout time.Duration, verify bool) error {
	if n == 0 || sorts < 1 {
		return fmt.Errorf("-n %d, -sorts %d: want at least one key and one sort", n, sorts)
	}
	ctx, err := vk.Open(vk.Options{Timeout: timeout})
	if err != nil {
		return err
	}
	rep := report{Device: ctx.Info().Name, Keys: n, Sorts: sorts, Timeout: timeout.String()}
	keys, want, err := prepare(ctx, n)
	if err != nil {
		ctx.Release()
		return err
	}
	var scratch *vk.Buffer
	plan, err := radix.NewPlan(ctx, n, radix.Sort{InPlace: true})
	if err == nil {
		scratch, err = ctx.NewBuffer(max(plan.ScratchSize(), 4), vk.DeviceLocal)
	}
	if err != nil {
		ctx.Release()
		return err
	}

	start := time.Now()
	err = pipeline.Run(ctx, func(r *pipeline.Recorder) {
		for range sorts {
			plan.Record(r, radix.Buffers{Keys: keys.All(), Scratch: scratch.All()})
		}
	})
	rep.SubmitSeconds = time.Since(start).Seconds()
	rep.PendingAfter = ctx.Pending()
	if err != nil {
		rep.SubmitError = err.Error()
		if !errors.Is(err, vk.ErrTimeout) {
			ctx.Release()
			return err
		}
	}
	if verify {
		for ctx.Pending() > 0 {
			time.Sleep(10 * time.Millisecond)
		}
		got := make([]uint32, n)
		if err := vk.Download(keys.All(), got); err != nil {
			ctx.Release()
			return err
		}
		if !slices.Equal(got, want) {
			ctx.Release()
			return errors.New("the sorted keys differ from Go's sort")
		}
		rep.Verified = true
	}

	// Release what the work uses, then the context, the work perhaps still
	// in flight: the buffers are retired until it completes, and Release
	// waits for it.
	start = time.Now()
	keys.Release()
	scratch.Release()
	ctx.Release()
	rep.ReleaseSeconds = time.Since(start).Seconds()
	return json.NewEncoder(os.Stdout).Encode(rep)
}

// prepare uploads n random keys and returns them with Go's sort of them.
func prepare(ctx *vk.Context, n uint64) (keys *vk.Buffer, want []uint32, err error) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 47))
	in := make([]uint32, n)
	for i := range in {
		in[i] = rng.Uint32()
	}
	if keys, err = vk.NewBufferOf[uint32](ctx, int(n), vk.DeviceLocal); err != nil {
		return nil, nil, err
	}
	if err = vk.Upload(keys.All(), in); err != nil {
		return nil, nil, err
	}
	want = slices.Clone(in)
	slices.Sort(want)
	return keys, want, nil
}
