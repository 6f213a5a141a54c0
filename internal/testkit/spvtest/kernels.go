package spvtest

import (
	"io/fs"
	"slices"
	"testing"

	"github.com/vkcompact/vkcompact/internal/glslblock"
)

// CheckKernels holds each kernel's Go structs to its GLSL in fsys
// (glslblock.CheckKernel): name.comp at fsys's root or in one of its
// folders (shaders/compact/, ...). It fails t unless the kernels are
// exactly those named in want (a package's kernels in package shaders).
func CheckKernels(t testing.TB, fsys fs.FS, want []string, kernels ...glslblock.Interface) {
	t.Helper()
	var listed []string
	for _, k := range kernels {
		listed = append(listed, k.Name)
		src := k.Name + ".comp"
		if _, err := fs.Stat(fsys, src); err != nil {
			if found, _ := fs.Glob(fsys, "*/"+src); len(found) == 1 {
				src = found[0]
			}
		}
		if err := glslblock.CheckKernel(fsys, src, k.PushWords, k.Push, k.Spec, k.Bindings); err != nil {
			t.Error(err)
		}
	}
	slices.Sort(listed)
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(listed, want) {
		t.Errorf("kernels checked %v, the package's kernels %v", listed, want)
	}
}
