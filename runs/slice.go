package runs

import (
	"fmt"
	"reflect"

	"github.com/vkcompact/vkcompact/internal/gotype"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"github.com/vkcompact/vkcompact/vk"
)

// EncodeSlice run-length encodes data on the GPU: each run's first
// element and its length. For a key type T a zero enc.Elem means T's
// keys; for a struct, enc.Elem says where its key is, as
// compact.SelectSlice takes it. enc.Op is set to Encode.
func EncodeSlice[T any](ctx *vk.Context, data []T, enc Encoding) (keys []T, lengths []uint32, err error) {
	enc.Op = Encode
	var r sliceRun
	if err := r.run(ctx, uint64(len(data)), reflect.TypeFor[T](), enc, func(src vk.Range) error { return vk.Upload(src, data) }); err != nil {
		return nil, nil, err
	}
	defer r.release()
	keys = make([]T, r.res.Runs)
	if err := vk.Download(r.b.Keys.Sub(0, uint64(len(keys))*r.size), keys); err != nil {
		return nil, nil, err
	}
	if lengths, err = r.lengths(); err != nil {
		return nil, nil, err
	}
	return keys, lengths, nil
}

// NonTrivialSlice finds the runs longer than one of data on the GPU: each
// one's offset and length. T and enc.Elem are as EncodeSlice takes them;
// enc.Op is set to NonTrivial.
func NonTrivialSlice[T any](ctx *vk.Context, data []T, enc Encoding) (offsets, lengths []uint32, err error) {
	enc.Op = NonTrivial
	var r sliceRun
	if err := r.run(ctx, uint64(len(data)), reflect.TypeFor[T](), enc, func(src vk.Range) error { return vk.Upload(src, data) }); err != nil {
		return nil, nil, err
	}
	defer r.release()
	offsets = make([]uint32, r.res.Runs)
	if err := vk.Download(r.b.Offsets.Sub(0, uint64(len(offsets))*4), offsets); err != nil {
		return nil, nil, err
	}
	if lengths, err = r.lengths(); err != nil {
		return nil, nil, err
	}
	return offsets, lengths, nil
}

// sliceRun is one run of a plan over a Go slice, with its buffers.
type sliceRun struct {
	bufs planrun.Buffers
	b    Buffers
	res  Result
	size uint64
}

func (s *sliceRun) release() { s.bufs.Release() }

// newBuf returns a range of at least 4 bytes, each bound.
func (s *sliceRun) newBuf(ctx *vk.Context, size uint64) (vk.Range, error) {
	return s.bufs.New(ctx, max(size, 4))
}

// run plans enc for n elements of Go type t, uploads them, runs the plan
// and checks its result; on failure it releases what it made.
func (s *sliceRun) run(ctx *vk.Context, n uint64, t reflect.Type, enc Encoding, upload func(vk.Range) error) (err error) {
	defer func() {
		if err != nil {
			s.release()
		}
	}()
	elem, err := gotype.Elem(t, enc.Elem, "Encoding.Elem")
	if err != nil {
		return fmt.Errorf("runs: %w", err)
	}
	enc.Elem = elem
	p, err := NewPlan(ctx, n, enc)
	if err != nil {
		return err
	}
	s.size = uint64(elem.Size())
	bytes := n * s.size
	if s.b.Src, err = s.newBuf(ctx, bytes); err != nil {
		return err
	}
	if n > 0 {
		if err := upload(s.b.Src); err != nil {
			return err
		}
	}
	out := &s.b.Keys
	outBytes := bytes
	if enc.Op == NonTrivial {
		out, outBytes = &s.b.Offsets, n/2*4
	}
	if *out, err = s.newBuf(ctx, outBytes); err != nil {
		return err
	}
	if s.b.Lengths, err = s.newBuf(ctx, p.lengths()*4); err != nil {
		return err
	}
	if s.res, err = p.Run(s.b); err != nil {
		return err
	}
	if s.res.Total != uint32(n) || uint64(s.res.Runs) > p.lengths() {
		return fmt.Errorf("runs: the GPU reported %d runs of %d elements for %d", s.res.Runs, s.res.Total, n)
	}
	return nil
}

func (s *sliceRun) lengths() ([]uint32, error) {
	l := make([]uint32, s.res.Runs)
	if err := vk.Download(s.b.Lengths.Sub(0, uint64(len(l))*4), l); err != nil {
		return nil, err
	}
	return l, nil
}
