package vktest

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// TempDir is t.TempDir, except on Windows, where it makes the directory
// itself and removes it file by file when t ends: under Wine 8.0 (the
// Windows leg) os.RemoveAll fails, and with it t.TempDir's cleanup, since
// Go's deletion with POSIX semantics gets an answer from Wine it does not
// fall back from ("unlinkat ...: Invalid function"); os.Remove works.
func TempDir(t testing.TB) string {
	t.Helper()
	if runtime.GOOS != "windows" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("", "vkcompact-test-")
	if err != nil {
		t.Fatalf("TempDir: %v", err)
	}
	t.Cleanup(func() {
		var paths []string
		filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
			if err == nil {
				paths = append(paths, p)
			}
			return nil
		})
		slices.Reverse(paths) // children before their directories
		for _, p := range paths {
			if err := os.Remove(p); err != nil {
				t.Errorf("TempDir cleanup: %v", err)
			}
		}
	})
	return dir
}
