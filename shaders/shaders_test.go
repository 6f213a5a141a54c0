package shaders

import (
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/spvtest"
)

// TestGenerated regenerates the SPIR-V and compares it with the committed
// files.
func TestGenerated(t *testing.T) { spvtest.Generated(t, "./internal/spvgen", "./shaders") }

// TestValid runs spirv-val on every embedded module.
func TestValid(t *testing.T) {
	names := Names()
	var modules []string // the modules' paths, without .spv
	for _, name := range names {
		modules = append(modules, strings.TrimSuffix(kernels[name], ".spv"))
	}
	spvtest.Valid(t, modules...)
	for _, name := range names {
		if _, err := SPIRV(name); err != nil {
			t.Error(err)
		}
	}
	if _, err := SPIRV("no-such-kernel"); err == nil {
		t.Error("SPIRV of a missing kernel returned no error")
	}
}
