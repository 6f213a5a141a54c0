package main

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
)

// TestQuickstart runs the program and checks what it prints, and checks
// that the README's first Go block is this program.
func TestQuickstart(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```go\n")
	block, _, ok2 := strings.Cut(rest, "```\n")
	program := string(src[bytes.Index(src, []byte("package main")):])
	if !ok || !ok2 || block != program {
		t.Errorf("the README's first Go block is not examples/quickstart/main.go (from its package clause on)")
	}
	if runtime.GOOS == "windows" {
		t.Skip("go run needs Go on the machine: scripts/wine.sh runs the program built for Windows itself")
	}
	vktest.Open(t) // skips without a device, fails without one in CI; checks the layer
	out, err := exec.Command("go", "run", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	const want = "[3.5 0.25 8 1] 4 of 6\n[0.25 1 3.5 8] [1 3 0 2]\n"
	if string(out) != want {
		t.Errorf("the program printed\n%s\nwant\n%s", out, want)
	}
}
