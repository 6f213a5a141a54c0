package vk_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

// TestPipelineStatistics reads the driver's statistics of a pipeline where
// the device has VK_KHR_pipeline_executable_properties (NVIDIA's does), and
// checks the ErrUnsupported answers everywhere else: a context opened
// without Options.Statistics, and a device without the extension
// (lavapipe).
func TestPipelineStatistics(t *testing.T) {
	desc := vk.PipelineDesc{Name: "copy", Code: shaders.MustSPIRV("copy"), Bindings: 4, PushSize: 4, Constants: []uint32{64, 1}}

	plain := vktest.Open(t)
	p, err := plain.NewComputePipeline(desc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Statistics(); !errors.Is(err, vk.ErrUnsupported) || !strings.Contains(err.Error(), "statistics") {
		t.Errorf("statistics without Options.Statistics: %v, want ErrUnsupported", err)
	}

	ctx := vktest.OpenOptions(t, vk.Options{Statistics: true})
	p, err = ctx.NewComputePipeline(desc)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := p.Statistics()
	if !ctx.Info().PipelineStatistics {
		if !errors.Is(err, vk.ErrUnsupported) || !strings.Contains(err.Error(), "VK_KHR_pipeline_executable_properties") {
			t.Errorf("%s lacks the extension: got %v, want ErrUnsupported naming it", ctx.Info().Name, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) == 0 {
		t.Fatal("no statistics")
	}
	for _, s := range stats {
		if s.Name == "" {
			t.Errorf("statistic without a name: %+v", s)
		}
		t.Logf("%s (subgroup %d): %s = %g (%s)", s.Executable, s.SubgroupSize, s.Name, s.Value, s.Description)
	}
	p.Release()
	if _, err := p.Statistics(); !errors.Is(err, vk.ErrReleased) {
		t.Errorf("statistics of a released pipeline: %v, want ErrReleased", err)
	}
}
