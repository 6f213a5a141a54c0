package vktest

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/vkcompact/vkcompact/vk"
)

// Poison is the word every output is filled with before a test writes it,
// so that a slot the GPU left unwritten cannot pass for a result.
const Poison = 0xDEADBEEF

// PoisonBytes returns n bytes of Poison words (a trailing partial word
// stays zero).
func PoisonBytes(n uint64) []byte {
	b := make([]byte, n)
	for i := 0; i+4 <= len(b); i += 4 {
		binary.LittleEndian.PutUint32(b[i:], Poison)
	}
	return b
}

// NewPoisoned returns a device-local buffer of size bytes (at least 16)
// filled with Poison, released when t ends.
func NewPoisoned(t testing.TB, ctx *vk.Context, size uint64) *vk.Buffer {
	t.Helper()
	b, err := ctx.NewBuffer(max(size, 16), vk.DeviceLocal)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Release)
	if err := vk.Upload(b.All(), PoisonBytes(b.Size())); err != nil {
		t.Fatal(err)
	}
	return b
}

// Rand returns a generator seeded from the clock, and logs the seed so
// that a failure can be replayed.
func Rand(t testing.TB) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, 11))
}

// EnvInt reads a non-negative count from the environment variable name
// (the stress tests' repeat counts), def when it is unset; anything else
// fails t.
func EnvInt(t testing.TB, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		t.Fatalf("%s=%q: want a count", name, s)
	}
	return v
}

// PoisonWords returns n Poison words.
func PoisonWords(n int) []uint32 {
	w := make([]uint32, n)
	for i := range w {
		w[i] = Poison
	}
	return w
}
