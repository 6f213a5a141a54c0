package tiling_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/tiling"
)

// TestKeyCode holds KeyCode to the KEY_* constants of
// shaders/include/key_types.glsl, by type name, and checks that no other shader
// declares its own; Unset takes u32's code, and an unknown type
// NoKeyCode.
func TestKeyCode(t *testing.T) {
	decl := regexp.MustCompile(`KEY_(U32|I32|F32|U64|I64|F64) = (\d+)`)
	var table []string // key_types.glsl, wherever the shaders keep it
	err := filepath.WalkDir("../../shaders", func(file string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(file, ".glsl") || strings.HasSuffix(file, ".comp")) {
			return err
		}
		if d.Name() == "key_types.glsl" {
			table = append(table, file)
			return nil
		}
		src, err := os.ReadFile(file)
		if err == nil && decl.Match(src) {
			t.Errorf("%s declares KEY_* constants: they belong in key_types.glsl alone", file)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(table) != 1 {
		t.Fatalf("shaders hold %d key_types.glsl, want 1: %v", len(table), table)
	}
	for _, file := range table {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		found := decl.FindAllStringSubmatch(string(src), -1)
		if len(found) != 6 {
			t.Fatalf("%s: %d KEY_* constants, want u32, i32, f32, u64, i64 and f64", file, len(found))
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
