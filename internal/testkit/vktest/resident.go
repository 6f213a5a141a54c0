package vktest

import (
	"os"
	"runtime"
	"strconv"
	"strings"
)

// ResidentBytes returns the process's resident set size, and false where
// this platform gives none the tests read (only Linux's /proc is read:
// elsewhere the memory checks that use it are skipped).
func ResidentBytes() (uint64, bool) {
	if runtime.GOOS != "linux" {
		return 0, false
	}
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * uint64(os.Getpagesize()), true
}
