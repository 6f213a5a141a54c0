package main

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// TestFrameloop runs the program for 1200 iterations (200 of warm-up): it
// must check every output, hold its objects and memory flat and exit 0.
func TestFrameloop(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("go run needs Go on the machine: scripts/wine.sh runs the program built for Windows itself")
	}
	vktest.Open(t) // skips without a device, fails without one in CI
	out, err := exec.Command("go", "run", ".", "-iterations", "1200", "-warmup", "200", "-every", "250").CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	if lines := strings.Count(string(out), "\"iteration\""); lines != 5 {
		t.Errorf("%d samples printed, want 5:\n%s", lines, out)
	}
	t.Logf("%s", out)
}
