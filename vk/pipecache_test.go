package vk_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/internal/faults"
	"github.com/vkcompact/vkcompact/internal/testkit/vktest"
	"github.com/vkcompact/vkcompact/shaders"
	"github.com/vkcompact/vkcompact/vk"
)

// The persistent pipeline cache (Options.PipelineCacheDir). vktest turns
// it off for every other test; these point VKCOMPACT_PIPELINE_CACHE, which
// overrides the option, at a temporary directory of their own (t.Setenv:
// none of them runs in parallel).

const pipelineCacheEnv = "VKCOMPACT_PIPELINE_CACHE"

// cachedContext opens a context with the cache in dir (dir "": the
// environment variable unset, the option deciding) and creates one
// pipeline with it.
func cachedContext(t *testing.T, dir string, opts vk.Options) *vk.Context {
	t.Helper()
	t.Setenv(pipelineCacheEnv, dir)
	ctx := vktest.OpenOptions(t, opts)
	if _, err := ctx.NewComputePipeline(vk.PipelineDesc{Name: "copy", Code: shaders.MustSPIRV("copy"), Bindings: 4, PushSize: 4, Constants: []uint32{64, 1}}); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// release releases ctx and checks that it left no object and no
// temporary file in dir.
func release(t *testing.T, ctx *vk.Context, dir string) vk.PipelineCacheInfo {
	t.Helper()
	ctx.Release()
	if o := ctx.Objects(); o != (vk.ObjectCounts{}) {
		t.Errorf("after Release: %+v", o)
	}
	vktest.Check(t, ctx)
	if tmp, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	pc := ctx.PipelineCache()
	if pc.Active {
		t.Errorf("the cache is active after Release: %+v", pc)
	}
	return pc
}

// TestPipelineCacheSavedAndLoaded: the first context starts empty, keeps
// one VkPipelineCache (counted, destroyed at Release) and saves it at
// Release; the second loads the file and creates its pipelines with it.
func TestPipelineCacheSavedAndLoaded(t *testing.T) {
	dir := vktest.TempDir(t)
	ctx := cachedContext(t, dir, vk.Options{})
	pc := ctx.PipelineCache()
	if !pc.Active || pc.LoadedBytes != 0 || pc.Rejected != "" || pc.Created != 1 || filepath.Dir(pc.Path) != dir {
		t.Fatalf("first context: %+v, want active, empty, in %s, one pipeline", pc, dir)
	}
	if n := ctx.Objects().Vulkan.PipelineCaches; n != 1 {
		t.Fatalf("%d pipeline caches, want 1", n)
	}
	pc = release(t, ctx, dir)
	if pc.SavedBytes == 0 || pc.SaveError != "" {
		t.Fatalf("first context's Release saved nothing: %+v", pc)
	}
	file, err := os.ReadFile(pc.Path)
	if err != nil {
		t.Fatal(err)
	}
	if data := vk.UnwrapPipelineCache(file); len(data) != pc.SavedBytes {
		t.Fatalf("the file holds %d bytes of valid data, Release saved %d", len(data), pc.SavedBytes)
	}

	ctx = cachedContext(t, dir, vk.Options{})
	again := ctx.PipelineCache()
	if !again.Active || again.LoadedBytes != pc.SavedBytes || again.Rejected != "" || again.Created != 1 || again.Path != pc.Path {
		t.Fatalf("second context: %+v, want the %d bytes saved at %s loaded, one pipeline created with them", again, pc.SavedBytes, pc.Path)
	}
	if again = release(t, ctx, dir); again.SaveError != "" {
		t.Fatalf("second context's Release: %+v", again)
	}
}

// TestPipelineCacheRejectsFiles: a file that is damaged, truncated, not a
// cache, of another device or unreadable never fails Open: the cache
// starts empty, says why, and Release replaces the file with a good one.
func TestPipelineCacheRejectsFiles(t *testing.T) {
	dir := vktest.TempDir(t)
	ctx := cachedContext(t, dir, vk.Options{})
	path := ctx.PipelineCache().Path
	release(t, ctx, dir)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data := vk.UnwrapPipelineCache(good)
	if len(data) < 32 {
		t.Fatalf("saved data of %d bytes", len(data))
	}
	header := func(off int, b byte) []byte {
		d := append([]byte(nil), data...)
		d[off] ^= b
		return vk.WrapPipelineCache(d)
	}
	damaged := append([]byte(nil), good...)
	damaged[len(damaged)-1] ^= 0x5a
	cases := []struct {
		name string
		file []byte
		dir  bool // a directory in the file's place
		why  string
	}{
		{name: "garbage", file: []byte(strings.Repeat("not a pipeline cache ", 20)), why: "not a vkcompact pipeline cache"},
		{name: "empty", file: []byte{}, why: "not a vkcompact pipeline cache"},
		{name: "truncated", file: good[:len(good)-7], why: "truncated"},
		{name: "damaged", file: damaged, why: "damaged"},
		{name: "other UUID", file: header(16, 0xff), why: "pipelineCacheUUID"},
		{name: "other device", file: header(12, 0x01), why: "of device"},
		{name: "other vendor", file: header(8, 0x01), why: "of device"},
		{name: "header version", file: header(4, 0x02), why: "header version"},
		{name: "header size", file: header(0, 0x40), why: "header size"},
		{name: "short data", file: vk.WrapPipelineCache(data[:20]), why: "shorter than the pipeline cache header"},
		{name: "unreadable", dir: true, why: "unreadable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			os.RemoveAll(path)
			if tc.dir {
				if err := os.Mkdir(path, 0o755); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(path, tc.file, 0o644); err != nil {
				t.Fatal(err)
			}
			ctx := cachedContext(t, dir, vk.Options{})
			pc := ctx.PipelineCache()
			if !pc.Active || pc.LoadedBytes != 0 || !strings.Contains(pc.Rejected, tc.why) {
				t.Fatalf("%+v: want active, empty, rejected for %q", pc, tc.why)
			}
			pc = release(t, ctx, dir)
			if tc.dir {
				if pc.SavedBytes != 0 || pc.SaveError == "" {
					t.Fatalf("saved over a directory: %+v", pc)
				}
				return
			}
			if pc.SavedBytes == 0 || pc.SaveError != "" {
				t.Fatalf("Release did not replace the file: %+v", pc)
			}
			file, err := os.ReadFile(path)
			if err != nil || len(vk.UnwrapPipelineCache(file)) != pc.SavedBytes {
				t.Fatalf("the replaced file: %d bytes, %v", len(file), err)
			}
		})
	}
	os.RemoveAll(path)
}

// TestPipelineCacheUnwritable: a directory that cannot be made (a file
// stands in its place) loses the save, not Release.
func TestPipelineCacheUnwritable(t *testing.T) {
	base := vktest.TempDir(t)
	blocker := filepath.Join(base, "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(blocker, "pipelines")
	ctx := cachedContext(t, dir, vk.Options{})
	if pc := ctx.PipelineCache(); !pc.Active || pc.Rejected != "" {
		t.Fatalf("%+v: want an active, empty cache", pc)
	}
	pc := release(t, ctx, dir)
	if pc.SavedBytes != 0 || pc.SaveError == "" {
		t.Fatalf("%+v: want a save error", pc)
	}
	if b, err := os.ReadFile(blocker); err != nil || string(b) != "x" {
		t.Fatalf("the file in the directory's place: %q, %v", b, err)
	}
}

// TestPipelineCacheOff: "off" in the environment or the option (the
// environment variable winning) creates no cache and writes nothing; the
// environment variable overrides the option.
func TestPipelineCacheOff(t *testing.T) {
	dir := vktest.TempDir(t)
	for _, tc := range []struct {
		name, env, opt string
		on             bool
	}{
		{"env off", "off", dir, false},
		{"env OFF", "OFF", "", false},
		{"option off", "", vk.PipelineCacheOff, false},
		{"env over option off", dir, vk.PipelineCacheOff, true},
		{"option dir", "", dir, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := cachedContext(t, tc.env, vk.Options{PipelineCacheDir: tc.opt})
			pc := ctx.PipelineCache()
			n := ctx.Objects().Vulkan.PipelineCaches
			if pc.Active != tc.on || (n == 1) != tc.on || (pc.Path != "") != tc.on {
				t.Fatalf("%+v, %d pipeline caches: want on %v", pc, n, tc.on)
			}
			if tc.on && filepath.Dir(pc.Path) != dir {
				t.Fatalf("file %s, want in %s", pc.Path, dir)
			}
			release(t, ctx, dir)
		})
	}
	for _, e := range mustReadDir(t, dir) {
		os.Remove(filepath.Join(dir, e))
	}
	ctx := cachedContext(t, "off", vk.Options{})
	release(t, ctx, dir)
	if names := mustReadDir(t, dir); len(names) != 0 {
		t.Fatalf("with the cache off, files appeared: %v", names)
	}
}

func mustReadDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// faultsAtCache sets f as the fault hook of each context opened during t,
// from its pipeline cache's creation on.
func faultsAtCache(t *testing.T, f faults.Func) {
	var clears []func()
	vk.SetBeforePipelineCache(func(c *vk.Context) { clears = append(clears, faults.Set(c, f)) })
	t.Cleanup(func() {
		vk.SetBeforePipelineCache(nil)
		for _, c := range clears {
			c()
		}
	})
}

// TestPipelineCacheFaults: a failing vkCreatePipelineCache leaves the
// context without a cache (or, when it refused the file's data, with an
// empty one), and a failing vkGetPipelineCacheData loses the save; neither
// fails Open or Release, and nothing leaks.
func TestPipelineCacheFaults(t *testing.T) {
	dir := vktest.TempDir(t)
	t.Run("vkCreatePipelineCache", func(t *testing.T) {
		f, calls := faults.Nth("vkCreatePipelineCache", 1, faults.ErrorOutOfDeviceMemory, true)
		faultsAtCache(t, f)
		ctx := cachedContext(t, dir, vk.Options{})
		pc := ctx.PipelineCache()
		if pc.Active || !strings.Contains(pc.Rejected, "vkCreatePipelineCache") || ctx.Objects().Vulkan.PipelineCaches != 0 || calls() != 1 {
			t.Fatalf("%+v after %d calls: want no cache", pc, calls())
		}
		if pc = release(t, ctx, dir); pc.SavedBytes != 0 {
			t.Fatalf("%+v: saved without a cache", pc)
		}
		if names := mustReadDir(t, dir); len(names) != 0 {
			t.Fatalf("files appeared: %v", names)
		}
	})
	ctx := cachedContext(t, dir, vk.Options{})
	release(t, ctx, dir) // a good file, for the refusal below
	t.Run("vkCreatePipelineCache refuses the data", func(t *testing.T) {
		f, calls := faults.Nth("vkCreatePipelineCache", 1, faults.ErrorOutOfDeviceMemory, false)
		faultsAtCache(t, f)
		ctx := cachedContext(t, dir, vk.Options{})
		pc := ctx.PipelineCache()
		if !pc.Active || pc.LoadedBytes != 0 || !strings.Contains(pc.Rejected, "refused") || calls() != 2 {
			t.Fatalf("%+v after %d calls: want an empty cache", pc, calls())
		}
		release(t, ctx, dir)
	})
	t.Run("vkGetPipelineCacheData", func(t *testing.T) {
		os.Remove(ctx.PipelineCache().Path)
		f, calls := faults.Nth("vkGetPipelineCacheData", 1, faults.ErrorOutOfDeviceMemory, true)
		faultsAtCache(t, f)
		c := cachedContext(t, dir, vk.Options{})
		pc := release(t, c, dir)
		if pc.SavedBytes != 0 || !strings.Contains(pc.SaveError, "vkGetPipelineCacheData") || calls() != 1 {
			t.Fatalf("%+v after %d calls: want a lost save", pc, calls())
		}
		if _, err := os.Stat(pc.Path); !os.IsNotExist(err) {
			t.Fatalf("a file was written: %v", err)
		}
	})
}

// TestPipelineCacheBorrowed: a borrowed context keeps a cache of its own
// (Handles.PipelineCacheDir), counted in its objects, and saves it.
func TestPipelineCacheBorrowed(t *testing.T) {
	dir := vktest.TempDir(t)
	t.Setenv(pipelineCacheEnv, "")
	owner := vktest.OpenOptions(t, vk.Options{PipelineCacheDir: vk.PipelineCacheOff})
	h := vk.OwnedHandles(owner)
	h.PipelineCacheDir = dir
	b, err := vk.Borrow(h)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.NewComputePipeline(vk.PipelineDesc{Name: "copy", Code: shaders.MustSPIRV("copy"), Bindings: 4, PushSize: 4, Constants: []uint32{64, 1}}); err != nil {
		t.Fatal(err)
	}
	if n := b.Objects().Vulkan.PipelineCaches; n != 1 || !b.PipelineCache().Active {
		t.Fatalf("borrowed: %d pipeline caches, %+v", n, b.PipelineCache())
	}
	b.Release()
	if o := b.Objects(); o != (vk.ObjectCounts{}) {
		t.Errorf("after Release: %+v", o)
	}
	if pc := b.PipelineCache(); pc.SavedBytes == 0 || filepath.Dir(pc.Path) != dir {
		t.Fatalf("borrowed context's Release: %+v", pc)
	}
	if n := owner.Objects().Vulkan.PipelineCaches; n != 0 {
		t.Fatalf("owner: %d pipeline caches, want 0", n)
	}
}
