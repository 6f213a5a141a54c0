package vkcompact_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/vkcompact/vkcompact"

// layers lists the module's folders bottom up, each package on exactly
// one layer: the layer of the longest folder that holds it ("." holds the
// root package only). A package's non-test files may import packages of
// lower layers, and of their own layer only where within is set. This
// table is the layering's one statement (docs/layout.md says what each
// package holds). The operations (compact, scan, radix,
// histogram, permute, reduce) share
// their vocabulary through the root package and the helpers below them,
// never through each other; runs is built on compact's plans (a
// selection of indices, then its own kernel); the test kits sit above the
// library, which never imports them; the command's rooms above them (its
// files and benchmarks over the .npy format and the usage errors), and
// the command's verbs (package main), its demos and the examples on top.
var layers = []struct {
	name    string
	folders []string
	within  bool // its packages may import each other
}{
	{"helpers of every layer", []string{"internal/faults", "internal/align", "internal/glslblock", "internal/spvspec"}, false},
	{"shaders", []string{"shaders"}, false},
	{"Vulkan", []string{"vk"}, false},
	{"the error helper", []string{"internal/errs"}, false},
	{"kernels and recording", []string{"pipeline"}, false},
	{"vocabulary", []string{"."}, false},
	{"copy and fill", []string{"transfer"}, false},
	{"the operations' helpers", []string{"internal/tiling", "internal/bufcheck", "internal/gotype", "internal/planrun", "internal/keepop"}, false},
	{"operations", []string{"compact", "scan", "radix", "histogram", "permute", "reduce"}, false},
	{"operations built on an operation's plans", []string{"runs"}, false},
	{"test kits and the engine test", []string{"internal/testkit"}, false},
	{"the command's .npy format and usage errors", []string{"cmd/vkcompact/internal/npy", "cmd/vkcompact/internal/usage"}, false},
	{"the command's files and benchmarks", []string{"cmd/vkcompact/internal/fileio", "cmd/vkcompact/internal/bench"}, false},
	{"applications", []string{"cmd", "examples"}, true},
}

// layerOf returns the index in layers of the package in dir, -1 where no
// folder holds it.
func layerOf(dir string) int {
	best, bestLen := -1, -1
	for i, l := range layers {
		for _, f := range l.folders {
			if (dir == f || f != "." && strings.HasPrefix(dir, f+"/")) && len(f) > bestLen {
				best, bestLen = i, len(f)
			}
		}
	}
	return best
}

// library lists the packages a program using vkcompact imports: neither
// they nor anything they import may link Go's testing or flag, which
// belong to the tests and the commands.
var library = []string{".", "vk", "pipeline", "shaders", "transfer", "compact", "scan", "radix", "reduce", "runs", "histogram", "permute"}

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

// TestLayers checks that every package of the module sits on a layer and
// imports (in its non-test files) nothing of its own layer or above,
// except within a layer that allows it.
func TestLayers(t *testing.T) {
	imports, _ := moduleImports(t)
	for _, l := range layers {
		for _, f := range l.folders {
			if _, err := os.Stat(f); err != nil {
				t.Errorf("layer %q: %v", l.name, err)
			}
		}
	}
	for dir, imps := range imports {
		from := layerOf(dir)
		if from < 0 {
			t.Errorf("package %s sits on no layer: add its folder to layers", dir)
			continue
		}
		for _, imp := range imps {
			to := layerOf(imp)
			switch {
			case to > from:
				t.Errorf("%s (layer %q) imports %s of the higher layer %q", dir, layers[from].name, imp, layers[to].name)
			case to == from && !layers[from].within:
				t.Errorf("%s imports %s of its own layer %q, whose packages stay apart", dir, imp, layers[from].name)
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
