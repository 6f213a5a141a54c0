package runs

import (
	"os"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/fakedev"
	"github.com/vkcompact/vkcompact/internal/testkit/spvtest"
	"github.com/vkcompact/vkcompact/shaders"
)

// TestKernelBlocks holds runs_finish's Go push and specialization
// constants to its GLSL, field by field.
func TestKernelBlocks(t *testing.T) {
	spvtest.CheckKernels(t, os.DirFS("../shaders"), shaders.NamesWith("runs_"), finishKernel.Interface())
}

// TestFinishGrid holds runs_finish's shape on every fake device, as a
// table: the workgroup within the device's limits, at least one
// workgroup (it writes the result block), no more than the elements need
// nor than the table's per compute unit.
func TestFinishGrid(t *testing.T) {
	for _, dev := range fakedev.All {
		for _, n := range []uint64{0, 1, 63, 64, 65, 1 << 20, 1<<32 - 1} {
			wg, groups := finishGrid(dev, n)
			tab := finishTable.gpu
			if dev.CPU() {
				tab = finishTable.cpu
			}
			if wg == 0 || wg > dev.MaxWorkgroupInvocations || wg > dev.MaxWorkgroupSize[0] || wg > tab.workgroup {
				t.Errorf("%s n=%d: workgroup %d", dev.Name, n, wg)
			}
			need := max((n+uint64(wg)-1)/uint64(wg), 1)
			if groups < 1 || groups > need || groups > uint64(dev.ComputeUnits)*uint64(tab.groupsPerCU) {
				t.Errorf("%s n=%d: %d workgroups of %d (need %d)", dev.Name, n, groups, wg, need)
			}
			if n == 1<<20 && groups != min(need, uint64(dev.ComputeUnits)*uint64(tab.groupsPerCU)) {
				t.Errorf("%s n=%d: %d workgroups, want as many as the table allows", dev.Name, n, groups)
			}
		}
	}
	if wg, g := finishGrid(fakedev.H100, 1<<28); wg != 256 || g != 132*8 {
		t.Errorf("H100 at 2^28: %d workgroups of %d, want 1056 of 256", g, wg)
	}
}
