package tiling_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/tiling"
)

// TestKeyCode holds KeyCode to the KEY_* constants that
// shaders/include/select.glsl and shaders/radix/radix.glsl declare, by type name; Unset
// takes u32's code, and an unknown type NoKeyCode.
func TestKeyCode(t *testing.T) {
	decl := regexp.MustCompile(`KEY_(U32|I32|F32|U64|I64|F64) = (\d+)`)
	for _, file := range []string{"../../shaders/include/select.glsl", "../../shaders/radix/radix.glsl"} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		found := decl.FindAllStringSubmatch(string(src), -1)
		if len(found) < 4 {
			t.Fatalf("%s: %d KEY_* constants, want at least u32, i32, f32 and u64", file, len(found))
		}
		for _, m := range found {
			want, _ := strconv.Atoi(m[2])
			typ, err := vkcompact.ParseType(strings.ToLower(m[1]))
			if err != nil {
				t.Fatal(err)
			}
			if got := tiling.KeyCode(typ); got != uint32(want) {
				t.Errorf("%s: KeyCode(%v) = %d, KEY_%s = %d", file, typ, got, m[1], want)
			}
		}
	}
	if got := tiling.KeyCode(vkcompact.Unset); got != tiling.KeyCode(vkcompact.Uint32) {
		t.Errorf("KeyCode(Unset) = %d, want u32's %d", got, tiling.KeyCode(vkcompact.Uint32))
	}
	if got := tiling.KeyCode(vkcompact.Type(9)); got != tiling.NoKeyCode {
		t.Errorf("KeyCode(Type(9)) = %d, want NoKeyCode", got)
	}
}
