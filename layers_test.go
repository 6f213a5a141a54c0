package vkcompact_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/vkcompact/vkcompact"

// layers says which of the module's packages each layer may import (its
// non-test files), bottom up. This table is the layering's one statement
// (the README's Layout section says what each package holds). The operations
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
	"internal/spvtest":   {"internal/glslblock"},
	"internal/fakedev":   {"vk"},
	"internal/glslblock": {},
	"compact":            {".", "vk", "pipeline", "shaders", "internal/tiling", "internal/bufcheck", "internal/gotype", "internal/faults", "internal/align"},
	"scan":               {".", "vk", "pipeline", "shaders", "internal/tiling", "internal/bufcheck", "internal/gotype", "internal/faults", "internal/align"},
	"radix":              {".", "vk", "pipeline", "shaders", "internal/tiling", "internal/bufcheck", "internal/gotype", "internal/faults", "internal/align"},
}

// library lists the packages a program using vkcompact imports: neither
// they nor anything they import may link Go's testing or flag, which
// belong to the tests and the commands.
var library = []string{".", "vk", "pipeline", "shaders", "compact", "scan", "radix"}

// moduleImports returns, for every package directory of the module, the
// module packages (as directories, "." for the root) and the other
// packages its non-test files import.
func moduleImports(t *testing.T) (mod, other map[string][]string) {
	t.Helper()
	mod, other = map[string][]string{}, map[string][]string{}
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
		if _, ok := mod[dir]; !ok {
			mod[dir] = nil // every package is listed, importing nothing of the module or not
		}
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			switch {
			case p == module:
				mod[dir] = append(mod[dir], ".")
			case strings.HasPrefix(p, module+"/"):
				mod[dir] = append(mod[dir], strings.TrimPrefix(p, module+"/"))
			default:
				other[dir] = append(other[dir], p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return mod, other
}

// TestLayers checks every package's imports of the module against layers,
// and that only the command line and the demos import the demos.
func TestLayers(t *testing.T) {
	imports, _ := moduleImports(t)
	for dir := range layers {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("layer %s: %v", dir, err)
		}
	}
	for dir, imps := range imports {
		allowed, ruled := layers[dir]
		for _, imp := range imps {
			switch {
			case ruled && !slices.Contains(allowed, imp):
				t.Errorf("%s imports %s: its layer may import only %v", dir, imp, allowed)
			case strings.HasPrefix(imp, "internal/demo/") && !strings.HasPrefix(dir, "internal/demo/") && dir != "cmd/vkcompact":
				t.Errorf("%s imports the demo %s: only the command line and the demos may", dir, imp)
			}
		}
	}
}

// TestLayersLinkNoTesting checks that no package the library's packages
// import, themselves included, imports Go's testing or flag: test helpers
// live in _test.go files and in the test kits, which only tests import.
// Where the go command is at hand, go list -deps checks the standard
// library's part of the graph as well.
func TestLayersLinkNoTesting(t *testing.T) {
	mod, other := moduleImports(t)
	testOnly := func(p string) bool { return p == "testing" || p == "flag" || strings.HasPrefix(p, "testing/") }
	seen := map[string]bool{}
	var visit func(dir, via string)
	visit = func(dir, via string) {
		if seen[dir] {
			return
		}
		seen[dir] = true
		for _, p := range other[dir] {
			if testOnly(p) {
				t.Errorf("%s imports %s, and the library links it (%s)", dir, p, via)
			}
		}
		for _, imp := range mod[dir] {
			visit(imp, via+" → "+imp)
		}
	}
	for _, dir := range library {
		if _, ok := mod[dir]; !ok {
			t.Errorf("library package %s: no Go files", dir)
		}
		visit(dir, dir)
	}
	if runtime.GOOS == "windows" {
		return // the Windows leg runs under Wine, without the go command
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Logf("go list -deps not run: %v", err)
		return
	}
	args := []string{"list", "-deps"}
	for _, dir := range library {
		args = append(args, "./"+dir)
	}
	out, err := exec.Command(goCmd, args...).Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if testOnly(p) {
			t.Errorf("go list -deps %v lists %s", library, p)
		}
	}
}
