// Package shaders holds vkcompact's GLSL compute shaders and their SPIR-V,
// a folder per operation (compact, scan, radix, runs, histogram, permute,
// reduce, and transfer for the copy
// and the fill) and the includes they share in include/. A kernel is
// known by its name alone ("copy" for transfer/copy.comp), unique across
// the folders.
//
// The *.comp sources and the *.glsl includes are compiled by
// `go generate ./shaders` (glslc, target Vulkan 1.1); the resulting *.spv
// files are committed and embedded, so building the module needs no shader
// compiler. TestGenerated regenerates them and fails if the committed files
// differ; TestValid runs spirv-val on each.
package shaders

//go:generate go run ./internal/spvgen -src . -out .

import (
	"embed"
	"encoding/binary"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
)

//go:embed compact/*.spv scan/*.spv radix/*.spv transfer/*.spv runs/*.spv histogram/*.spv permute/*.spv reduce/*.spv
var files embed.FS

// kernels maps each embedded kernel's name to its module's path in files.
var kernels = func() map[string]string {
	m := map[string]string{}
	spvs, _ := fs.Glob(files, "*/*.spv")
	for _, p := range spvs {
		name := strings.TrimSuffix(path.Base(p), ".spv")
		if q, dup := m[name]; dup {
			panic(fmt.Sprintf("shaders: kernel %q in both %s and %s", name, q, p))
		}
		m[name] = p
	}
	return m
}()

// SPIRV returns the SPIR-V words of the named kernel ("copy" for
// transfer/copy.comp).
func SPIRV(name string) ([]uint32, error) {
	p, ok := kernels[name]
	if !ok {
		return nil, fmt.Errorf("shaders: no kernel %q", name)
	}
	return spirvAt(files, p, name)
}

// spirvFrom reads name.spv from fsys as SPIR-V words.
func spirvFrom(fsys fs.FS, name string) ([]uint32, error) {
	return spirvAt(fsys, name+".spv", name)
}

// spirvAt reads the module at path p of fsys, the kernel name's, as SPIR-V
// words.
func spirvAt(fsys fs.FS, p, name string) ([]uint32, error) {
	b, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil, fmt.Errorf("shaders: no kernel %q", name)
	}
	if len(b)%4 != 0 || len(b) < 20 || binary.LittleEndian.Uint32(b) != 0x07230203 {
		return nil, fmt.Errorf("shaders: %s.spv is not SPIR-V", name)
	}
	words := make([]uint32, len(b)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return words, nil
}

// MustSPIRV is SPIRV for kernels the package is known to hold; it panics on
// a name that is not embedded, a programming error.
func MustSPIRV(name string) []uint32 {
	w, err := SPIRV(name)
	if err != nil {
		panic(err)
	}
	return w
}

// MustSPIRVFrom is MustSPIRV for the SPIR-V another package embeds
// (cmd/vkcompact/internal/demo/particles, cmd/vkcompact/internal/demo/raytrace): name.spv of fsys.
func MustSPIRVFrom(fsys fs.FS, name string) []uint32 {
	w, err := spirvFrom(fsys, name)
	if err != nil {
		panic(err)
	}
	return w
}

// Names lists the embedded kernels.
func Names() []string {
	return NamesWith("")
}

// NamesWith lists the kernels whose names start with one of prefixes.
func NamesWith(prefixes ...string) []string {
	var names []string
	for _, name := range slices.Sorted(maps.Keys(kernels)) {
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) {
				names = append(names, name)
				break
			}
		}
	}
	return names
}
