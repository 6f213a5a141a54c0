package runs_test

import (
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/compact"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/runs"
)

// TestTuning checks what Plan.Tuning reports: the selection's tuning, on
// the path asked for, and the second dispatch's grid within the device's
// limits, one workgroup at least (it writes the result block even for no
// runs).
func TestTuning(t *testing.T) {
	ctx := vktest.Shared(t)
	info := ctx.Info()
	if (*runs.Plan)(nil).Tuning() != (runs.Tuning{}) {
		t.Error("a nil plan's tuning is not zero")
	}
	for _, n := range []uint64{0, 1000, 1 << 18} {
		for _, path := range []vkcompact.Path{vkcompact.PathThreePhase, vkcompact.PathSinglePass} {
			p, err := runs.NewPlan(ctx, n, runs.Encoding{Op: runs.NonTrivial, Options: compact.Options{Path: path}})
			if err != nil {
				t.Fatal(err)
			}
			tu := p.Tuning()
			if tu.Selection.Path != path {
				t.Errorf("n=%d %v: the selection's path is %v", n, path, tu.Selection.Path)
			}
			if tu.FinishWorkgroupSize == 0 || tu.FinishWorkgroupSize > info.MaxWorkgroupInvocations || tu.FinishWorkgroups == 0 ||
				tu.FinishWorkgroups > uint64(info.MaxWorkgroupCount[0]) {
				t.Errorf("n=%d %v: the second dispatch's grid is %d workgroups of %d", n, path, tu.FinishWorkgroups, tu.FinishWorkgroupSize)
			}
		}
	}
}
