package vk

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestPipelineCacheKey: the file's name changes with each part of the key
// and only with them.
func TestPipelineCacheKey(t *testing.T) {
	d := DeviceInfo{VendorID: 0x10005, DeviceID: 7, driverVersion: 1 << 22}
	k := pipelineCacheKey(&d)
	if len(k) != 32 || k != pipelineCacheKey(&d) {
		t.Fatalf("key %q", k)
	}
	for name, change := range map[string]func(*DeviceInfo){
		"uuid":   func(d *DeviceInfo) { d.pipelineCacheUUID[3] = 1 },
		"vendor": func(d *DeviceInfo) { d.VendorID++ },
		"device": func(d *DeviceInfo) { d.DeviceID++ },
		"driver": func(d *DeviceInfo) { d.driverVersion++ },
	} {
		o := d
		change(&o)
		if pipelineCacheKey(&o) == k {
			t.Errorf("a change of %s keeps the key", name)
		}
	}
	o := d
	o.Name, o.DriverInfo = "other", "other"
	if pipelineCacheKey(&o) != k {
		t.Errorf("the name changes the key")
	}
}

// TestPipelineCacheEnvelope: what wrap writes unwraps, and any change of
// length or content is refused.
func TestPipelineCacheEnvelope(t *testing.T) {
	data := bytes.Repeat([]byte{1, 2, 3, 4, 5}, 40)
	file := wrapPipelineCache(data)
	if got, why := unwrapPipelineCache(file); why != "" || !bytes.Equal(got, data) {
		t.Fatalf("unwrap: %v, %q", got, why)
	}
	for i := range file {
		bad := bytes.Clone(file)
		bad[i] ^= 0x10
		if _, why := unwrapPipelineCache(bad); why == "" {
			t.Fatalf("a change at byte %d passes", i)
		}
	}
	for n := range len(file) {
		if _, why := unwrapPipelineCache(file[:n]); why == "" {
			t.Fatalf("%d of %d bytes pass", n, len(file))
		}
	}
	if _, why := unwrapPipelineCache(append(bytes.Clone(file), 0)); why == "" {
		t.Fatal("an extended file passes")
	}
}

// TestPipelineCacheDirResolution: the environment variable wins, "off"
// in either turns the cache off, and empty means the user's cache
// directory.
func TestPipelineCacheDirResolution(t *testing.T) {
	def, err := DefaultPipelineCacheDir()
	if err != nil {
		t.Skip(err)
	}
	for _, tc := range []struct {
		env, opt, dir string
		on            bool
	}{
		{"", "", def, true},
		{"", "/a", "/a", true},
		{"/b", "/a", "/b", true},
		{"/b", "off", "/b", true},
		{"off", "/a", "", false},
		{" Off ", "", "", false},
		{"", "OFF", "", false},
	} {
		t.Setenv(pipelineCacheEnv, tc.env)
		dir, on := pipelineCacheDir(tc.opt)
		if dir != tc.dir || on != tc.on {
			t.Errorf("env %q, option %q: %q, %v; want %q, %v", tc.env, tc.opt, dir, on, tc.dir, tc.on)
		}
	}
	if !strings.HasSuffix(def, filepath.Join("vkcompact", "pipelines")) {
		t.Errorf("default %s", def)
	}
}

// TestWriteFileAtomicConcurrent: writers racing on one file leave one
// whole file of one of them, and no temporary file. On Windows a rename
// over a file that another writer is replacing may be refused (access
// denied): that writer's save fails, as Release then reports in
// PipelineCacheInfo.SaveError, but at least one must succeed.
func TestWriteFileAtomicConcurrent(t *testing.T) {
	dir := tempDir(t)
	path := filepath.Join(dir, "sub", "k.bin")
	var wg sync.WaitGroup
	var saved atomic.Int32
	files := make([][]byte, 8)
	for i := range files {
		files[i] = wrapPipelineCache(bytes.Repeat([]byte{byte(i)}, 1<<16+i))
		wg.Go(func() {
			for range 10 {
				err := writeFileAtomic(path, files[i])
				switch {
				case err == nil:
					saved.Add(1)
				case runtime.GOOS != "windows" || !errors.Is(err, fs.ErrPermission):
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if saved.Load() == 0 {
		t.Fatal("no writer saved the file")
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data, why := unwrapPipelineCache(got)
	if why != "" || len(data) < 1<<16 || !bytes.Equal(got, files[data[0]]) {
		t.Fatalf("%d bytes, %q", len(got), why)
	}
	if es, _ := os.ReadDir(filepath.Dir(path)); len(es) != 1 {
		t.Fatalf("%d entries in the directory, want the file alone", len(es))
	}
}

// tempDir is t.TempDir, but on Windows removed file by file: under Wine,
// Go's os.RemoveAll fails on a directory's files (as vktest.TempDir,
// which this package's internal tests cannot import).
func tempDir(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "windows" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("", "vkcompact-test-")
	if err != nil {
		t.Fatal(err)
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
				t.Errorf("tempDir cleanup: %v", err)
			}
		}
	})
	return dir
}

// TestPipelineCacheNothingNew: data equal to what was loaded, or a header
// followed by it (SwiftShader), is not saved again; anything else is.
func TestPipelineCacheNothingNew(t *testing.T) {
	header := bytes.Repeat([]byte{7}, 32)
	loaded := append(bytes.Clone(header), 1, 2, 3)
	sum := sha256.Sum256(loaded)
	for _, tc := range []struct {
		name string
		data []byte
		want bool
	}{
		{"same", loaded, true},
		{"header and loaded", append(bytes.Clone(header), loaded...), true},
		{"more", append(bytes.Clone(loaded), 4), false},
		{"header and more", append(append(bytes.Clone(header), loaded...), 4), false},
		{"other", append(bytes.Clone(header), 3, 2, 1), false},
	} {
		if got := nothingNew(tc.data, sum, len(loaded)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	empty := sha256.Sum256(nil)
	if nothingNew(header, empty, 0) {
		t.Error("a header alone after an empty start counts as nothing new")
	}
}
