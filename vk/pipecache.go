package vk

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// The persistent pipeline cache: one VkPipelineCache per context, loaded
// at Open (or Borrow) from a file keyed by device, driver and library
// version, passed to every vkCreateComputePipelines, and saved at Release
// when new pipelines were created.

// PipelineCacheOff, as Options.PipelineCacheDir, Handles.PipelineCacheDir
// or VKCOMPACT_PIPELINE_CACHE, turns the persistent pipeline cache off.
const PipelineCacheOff = "off"

// pipelineCacheVersion is the library's part of the cache file's key:
// change it when the file's format changes, or to drop every saved cache.
// (The driver keys its entries by the SPIR-V and specialization itself,
// so changed kernels only add entries.)
const pipelineCacheVersion = "vkcompact pipeline cache 1"

// pipelineCacheEnv overrides Options.PipelineCacheDir and
// Handles.PipelineCacheDir.
const pipelineCacheEnv = "VKCOMPACT_PIPELINE_CACHE"

// maxPipelineCacheFile bounds what Open reads: a larger file is ignored.
const maxPipelineCacheFile = 256 << 20

// The cache file is an envelope around the driver's data: a magic, the
// data's length and its SHA-256, so that a truncated or damaged file is
// recognised before any of it reaches the driver.
var pipelineCacheMagic = [8]byte{'V', 'K', 'C', 'P', 'C', 'A', 'C', 'H'}

const pipelineCacheEnvelope = 8 + 8 + sha256.Size

// DefaultPipelineCacheDir returns the default directory of the persistent
// pipeline cache: vkcompact/pipelines under os.UserCacheDir
// ($XDG_CACHE_HOME or ~/.cache on Linux, ~/Library/Caches on macOS,
// %LocalAppData% on Windows), or an error where there is none (the
// cache is then off).
func DefaultPipelineCacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "vkcompact", "pipelines"), nil
}

// PipelineCacheInfo tells what the context's persistent pipeline cache
// did (Context.PipelineCache).
type PipelineCacheInfo struct {
	// Path is the cache file, read at Open and written at Release; empty
	// when the cache is off.
	Path string
	// Active reports that the context created its VkPipelineCache and
	// passes it to every pipeline it creates (until Release).
	Active bool
	// LoadedBytes is the size of the file's data the cache started
	// with; 0 when it started empty.
	LoadedBytes int
	// Rejected says why a file at Path was not loaded (unreadable,
	// truncated or damaged, of another device or driver, refused by the
	// driver), or why the cache could not be created; empty otherwise.
	Rejected string
	// Created counts the pipelines created with the cache.
	Created int
	// SavedBytes is the size of the data Release wrote to Path; 0 when
	// it wrote nothing (no new pipelines, or the data had not changed).
	SavedBytes int
	// SaveError says why Release did not save the cache; empty when it
	// saved it or had nothing new to save.
	SaveError string
}

// pipelineCache is a context's pipeline cache. Its info is guarded by the
// context's mu once the context is built.
type pipelineCache struct {
	opt     string // Options.PipelineCacheDir or Handles.PipelineCacheDir
	h       uint64 // VkPipelineCache; 0 when there is none
	loaded  [sha256.Size]byte
	created atomic.Int64
	info    PipelineCacheInfo
}

// handle is the cache to create pipelines with (0: none).
func (p *pipelineCache) handle() uint64 { return p.h }

// beforePipelineCache, when set (tests), runs as a context creates its
// pipeline cache, after its function table is loaded: a test sets its
// faults there.
var beforePipelineCache func(*Context)

// pipelineCacheDir resolves the cache's directory: the environment
// variable, else the option, else the default; on is false when the cache
// is off.
func pipelineCacheDir(opt string) (dir string, on bool) {
	v := strings.TrimSpace(os.Getenv(pipelineCacheEnv))
	if v == "" {
		v = strings.TrimSpace(opt)
	}
	if strings.EqualFold(v, PipelineCacheOff) {
		return "", false
	}
	if v == "" {
		d, err := DefaultPipelineCacheDir()
		if err != nil {
			return "", false
		}
		v = d
	}
	return v, true
}

// pipelineCacheKey names the cache file of a device: a hash of the
// library's cache version, the driver's pipelineCacheUUID, the vendor,
// device and driver version.
func pipelineCacheKey(d *DeviceInfo) string {
	h := sha256.New()
	h.Write([]byte(pipelineCacheVersion))
	h.Write(d.pipelineCacheUUID[:])
	var b [12]byte
	binary.LittleEndian.PutUint32(b[0:], d.VendorID)
	binary.LittleEndian.PutUint32(b[4:], d.DeviceID)
	binary.LittleEndian.PutUint32(b[8:], d.driverVersion)
	h.Write(b[:])
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// checkPipelineCacheHeader checks data's VkPipelineCacheHeaderVersionOne
// (little-endian, whatever the host: headerSize 32, headerVersion 1,
// vendorID, deviceID, pipelineCacheUUID) against the device, and says
// what does not match.
func checkPipelineCacheHeader(data []byte, d *DeviceInfo) string {
	const headerSize = 32
	if len(data) < headerSize {
		return fmt.Sprintf("%d bytes of data, shorter than the pipeline cache header", len(data))
	}
	le := binary.LittleEndian
	switch {
	case le.Uint32(data[0:]) != headerSize:
		return fmt.Sprintf("header size %d, want %d", le.Uint32(data[0:]), headerSize)
	case le.Uint32(data[4:]) != 1: // VK_PIPELINE_CACHE_HEADER_VERSION_ONE
		return fmt.Sprintf("header version %d, want 1", le.Uint32(data[4:]))
	case le.Uint32(data[8:]) != d.VendorID || le.Uint32(data[12:]) != d.DeviceID:
		return fmt.Sprintf("of device %04x:%04x, not %04x:%04x", le.Uint32(data[8:]), le.Uint32(data[12:]), d.VendorID, d.DeviceID)
	case !bytes.Equal(data[16:32], d.pipelineCacheUUID[:]):
		return fmt.Sprintf("pipelineCacheUUID %x, not the driver's %x", data[16:32], d.pipelineCacheUUID[:])
	}
	return ""
}

// wrapPipelineCache puts data in the file's envelope.
func wrapPipelineCache(data []byte) []byte {
	out := make([]byte, pipelineCacheEnvelope, pipelineCacheEnvelope+len(data))
	copy(out, pipelineCacheMagic[:])
	binary.LittleEndian.PutUint64(out[8:], uint64(len(data)))
	sum := sha256.Sum256(data)
	copy(out[16:], sum[:])
	return append(out, data...)
}

// unwrapPipelineCache returns the data in a file's envelope, or why there
// is none.
func unwrapPipelineCache(file []byte) ([]byte, string) {
	if len(file) < pipelineCacheEnvelope || !bytes.Equal(file[:8], pipelineCacheMagic[:]) {
		return nil, "not a vkcompact pipeline cache file"
	}
	data := file[pipelineCacheEnvelope:]
	if n := binary.LittleEndian.Uint64(file[8:]); n != uint64(len(data)) {
		return nil, fmt.Sprintf("truncated or extended: %d bytes of data, the header says %d", len(data), n)
	}
	if sum := sha256.Sum256(data); !bytes.Equal(sum[:], file[16:pipelineCacheEnvelope]) {
		return nil, "damaged: the data's checksum does not match"
	}
	return data, ""
}

// readPipelineCache reads the file at path and returns the data to start
// the cache of device d with, or nil and why not ("" when there is no
// file).
func readPipelineCache(path string, d *DeviceInfo) ([]byte, string) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ""
	}
	if fi, serr := os.Stat(filepath.Dir(path)); err != nil && (serr != nil || !fi.IsDir()) {
		return nil, "" // no directory, so no file (Release says why it cannot save)
	}
	if err != nil {
		return nil, "unreadable: " + err.Error()
	}
	defer f.Close()
	file, err := io.ReadAll(io.LimitReader(f, maxPipelineCacheFile+1))
	if err != nil {
		return nil, "unreadable: " + err.Error()
	}
	if len(file) > maxPipelineCacheFile {
		return nil, fmt.Sprintf("larger than %d bytes", maxPipelineCacheFile)
	}
	data, why := unwrapPipelineCache(file)
	if why != "" {
		return nil, why
	}
	if why := checkPipelineCacheHeader(data, d); why != "" {
		return nil, why
	}
	return data, ""
}

// openPipelineCache creates the context's pipeline cache, with the saved
// data where the file holds usable data. Nothing here fails the context:
// without a usable file the cache starts empty, and without a cache
// pipelines are created without one.
func (c *Context) openPipelineCache() {
	pc := &c.pcache
	dir, on := pipelineCacheDir(pc.opt)
	if !on {
		return
	}
	pc.info.Path = filepath.Join(dir, pipelineCacheKey(&c.info)+".bin")
	data, why := readPipelineCache(pc.info.Path, &c.info)
	pc.info.Rejected = why
	if beforePipelineCache != nil {
		beforePipelineCache(c)
	}
	h, r := c.fns.createPipelineCache(data)
	if r != 0 && len(data) > 0 {
		pc.info.Rejected = fmt.Sprintf("the driver refused its data: %v", newError("vkCreatePipelineCache", r))
		data = nil
		h, r = c.fns.createPipelineCache(nil)
	}
	if r != 0 {
		pc.info.Rejected = fmt.Sprintf("no pipeline cache: %v", newError("vkCreatePipelineCache", r))
		return
	}
	pc.h = h
	pc.info.Active = true
	pc.info.LoadedBytes = len(data)
	pc.loaded = sha256.Sum256(data)
}

// closePipelineCache saves the cache's data, if pipelines were created
// since Open and the data changed, and destroys the cache. It runs in
// Release, with c.mu held and nothing else using the device.
func (c *Context) closePipelineCache() {
	pc := &c.pcache
	if pc.h == 0 {
		return
	}
	defer func() {
		c.fns.destroy(objPipelineCache, pc.h)
		pc.h = 0
		pc.info.Active = false
	}()
	if pc.created.Load() == 0 {
		return
	}
	if c.lost.Load() {
		pc.info.SaveError = "the device was lost"
		return
	}
	data, r := c.fns.pipelineCacheData(pc.h)
	if r != 0 {
		pc.info.SaveError = newError("vkGetPipelineCacheData", r).Error()
		return
	}
	if nothingNew(data, pc.loaded, pc.info.LoadedBytes) {
		return
	}
	if why := checkPipelineCacheHeader(data, &c.info); why != "" {
		// The next Open would refuse it: do not write it.
		pc.info.SaveError = "the driver's data does not match its device: " + why
		return
	}
	if err := writeFileAtomic(pc.info.Path, wrapPipelineCache(data)); err != nil {
		pc.info.SaveError = err.Error()
		return
	}
	pc.info.SavedBytes = len(data)
}

// nothingNew reports whether a driver's cache data holds nothing beyond
// what the cache was loaded with (loadedBytes bytes of hash loaded): the
// same data, or, as SwiftShader gives it, its header followed by the
// loaded data (saved, it would grow by a header with every run).
func nothingNew(data []byte, loaded [sha256.Size]byte, loadedBytes int) bool {
	const headerSize = 32
	if sha256.Sum256(data) == loaded {
		return true
	}
	return loadedBytes > 0 && len(data) == headerSize+loadedBytes && sha256.Sum256(data[headerSize:]) == loaded
}

// writeFileAtomic writes data to a temporary file in path's directory
// (made if missing) and renames it to path: readers see the old file or
// the new one, never part of one, and of concurrent writers the last
// rename wins. On failure nothing is left behind.
func writeFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// PipelineCache tells what the context's persistent pipeline cache did:
// where its file is, what Open loaded or why it loaded nothing, and what
// Release saved (see Options.PipelineCacheDir). It stays readable after
// Release.
func (c *Context) PipelineCache() PipelineCacheInfo {
	if c == nil {
		return PipelineCacheInfo{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	info := c.pcache.info
	info.Created = int(c.pcache.created.Load())
	return info
}
