package pipeline_test

import (
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/fakedev"
	"github.com/vkcompact/vkcompact/pipeline"
)

// TestSpecializesSPIRV holds the choice of specializing SPIR-V ahead of
// the driver to its rule: SwiftShader only, unless the environment asks
// for it everywhere or nowhere.
func TestSpecializesSPIRV(t *testing.T) {
	for _, env := range []string{"", "1", "0"} {
		t.Setenv("VKCOMPACT_SPECIALIZE_SPIRV", env)
		for _, info := range fakedev.All {
			want := info.Name == fakedev.SwiftShader.Name
			switch env {
			case "1":
				want = true
			case "0":
				want = false
			}
			if got := pipeline.SpecializesSPIRV(info); got != want {
				t.Errorf("VKCOMPACT_SPECIALIZE_SPIRV=%q, %s: %v, want %v", env, info.Name, got, want)
			}
		}
	}
}
