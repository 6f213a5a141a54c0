package main

import (
	"encoding/json"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// TestLongwork runs the program on a small sort, 8 times in one
// submission, under a 1 ms bound: whether or not the wait times out, it
// must check the keys, release everything and exit 0.
func TestLongwork(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("go run needs Go on the machine")
	}
	vktest.Open(t) // skips without a device, fails without one in CI
	cmd := exec.Command("go", "run", ".", "-n", "65536", "-sorts", "8", "-timeout", "1ms", "-verify")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run: %v\n%s%s", err, out, stderr.String())
	}
	var rep report
	if err := json.Unmarshal(out, &rep); err != nil || !rep.Verified {
		t.Fatalf("the report %s (%v): want the keys verified", out, err)
	}
	t.Logf("%s", out)
}
