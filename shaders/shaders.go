// Package shaders holds vkcompact's GLSL compute shaders and their SPIR-V.
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
	"path"
	"strings"
)

//go:embed *.spv
var files embed.FS

// SPIRV returns the SPIR-V words of the named kernel ("copy" for copy.comp).
func SPIRV(name string) ([]uint32, error) { return spirvFrom(files, name) }

// spirvFrom reads name.spv from fsys as SPIR-V words.
func spirvFrom(fsys fs.FS, name string) ([]uint32, error) {
	b, err := fs.ReadFile(fsys, name+".spv")
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
	entries, _ := fs.ReadDir(files, ".")
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), path.Ext(e.Name()))
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) {
				names = append(names, name)
				break
			}
		}
	}
	return names
}
