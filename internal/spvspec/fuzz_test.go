package spvspec_test

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/spvspec"
	"github.com/vkcompact/vkcompact/shaders"
)

// words reads b as little-endian 32-bit words, dropping a partial last
// word.
func words(b []byte) []uint32 {
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}

// FuzzSpecialize: Specialize never panics and never modifies its input,
// whatever the module and the constants; a refusal is an error of the
// package; a module it leaves alone comes back as it was; one it
// changes keeps the header but for a bound no lower, and is a sequence
// of whole instructions. Seeds are three kernels with a branch, merge,
// loop, switch and OpPhi among them; `go test -fuzz FuzzSpecialize
// ./internal/spvspec` explores.
func FuzzSpecialize(f *testing.F) {
	for _, name := range []string{"fill", "copy_shifted", "struct_keys"} {
		code := shaders.MustSPIRV(name)
		b := make([]byte, 4*len(code))
		for i, w := range code {
			binary.LittleEndian.PutUint32(b[4*i:], w)
		}
		f.Add(b, []byte{64, 0, 0, 0, 1, 0, 0, 0})
	}
	f.Fuzz(func(t *testing.T, codeBytes, constantBytes []byte) {
		code, constants := words(codeBytes), words(constantBytes)
		keep := slices.Clone(code)
		out, changed, err := spvspec.Specialize(code, constants)
		if !slices.Equal(code, keep) {
			t.Fatal("Specialize modified its input")
		}
		switch {
		case err != nil:
			if !strings.HasPrefix(err.Error(), "spvspec: ") {
				t.Fatalf("error %q does not name the package", err)
			}
		case !changed:
			if !slices.Equal(out, code) {
				t.Fatal("not changed, yet the module came back different")
			}
		default:
			if len(out) < 5 || !slices.Equal(out[:3], code[:3]) || out[4] != code[4] || out[3] < code[3] {
				t.Fatalf("header %x, was %x", out[:min(len(out), 5)], code[:5])
			}
			for i := 5; i < len(out); {
				n := int(out[i] >> 16)
				if n == 0 || i+n > len(out) {
					t.Fatalf("a broken instruction at word %d of %d", i, len(out))
				}
				i += n
			}
		}
	})
}
