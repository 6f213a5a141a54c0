package vkcompact_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/vkcompact/vkcompact"

// layers says which of the module's packages each layer may import (its
// non-test files), bottom up: the layers of ../DESIGN.md. The operations
// (compact, scan, radix) share their vocabulary through the root package
// and internal/tiling, never through each other; the helpers under
// internal/ sit below the operations, the demos above them.
var layers = map[string][]string{
	"vk":                 {"internal/faults"},
	"shaders":            {},
	"pipeline":           {"vk", "internal/glslblock"},
	".":                  {"vk", "pipeline", "shaders", "internal/align"},
	"internal/tiling":    {".", "vk", "pipeline", "internal/align"},
	"internal/bufcheck":  {"vk"},
	"internal/gotype":    {".", "vk"},
	"internal/badinput":  {"vk"},
	"internal/faults":    {},
	"internal/align":     {},
	"internal/spvtest":   {},
	"internal/fakedev":   {"vk"},
	"internal/glslblock": {},
	"compact":            {".", "vk", "pipeline", "shaders", "internal/tiling", "internal/bufcheck", "internal/gotype", "internal/faults", "internal/align"},
	"scan":               {".", "vk", "pipeline", "shaders", "internal/tiling", "internal/bufcheck", "internal/gotype", "internal/faults", "internal/align"},
	"radix":              {".", "vk", "pipeline", "shaders", "internal/tiling", "internal/bufcheck", "internal/gotype", "internal/faults", "internal/align"},
}

// TestLayers checks every package's imports of the module against layers,
// and that only the command line and the demos import the demos.
func TestLayers(t *testing.T) {
	imports := map[string][]string{} // package dir -> module packages its non-test files import
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			switch {
			case p == module:
				imports[dir] = append(imports[dir], ".")
			case strings.HasPrefix(p, module+"/"):
				imports[dir] = append(imports[dir], strings.TrimPrefix(p, module+"/"))
			default:
				imports[dir] = append(imports[dir], "")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir := range layers {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("layer %s: %v", dir, err)
		}
	}
	for dir, imps := range imports {
		allowed, ruled := layers[dir]
		for _, imp := range imps {
			switch {
			case imp == "":
			case ruled && !slices.Contains(allowed, imp):
				t.Errorf("%s imports %s: its layer may import only %v", dir, imp, allowed)
			case strings.HasPrefix(imp, "internal/demo/") && !strings.HasPrefix(dir, "internal/demo/") && dir != "cmd/vkcompact":
				t.Errorf("%s imports the demo %s: only the command line and the demos may", dir, imp)
			}
		}
	}
}
