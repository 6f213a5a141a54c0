package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// outputFile is an output being written: a temporary file beside the
// final name, renamed to it once complete.
type outputFile struct {
	f    *os.File
	flag string // the flag that names it, for messages: "-out"
	path string
}

// createOutput creates the temporary file for the path the flag
// flagName gives, with the permissions a new file gets (0666 less the
// umask).
func createOutput(flagName, path string) (*outputFile, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, usagef("%s %s: is a directory", flagName, path)
	}
	dir, base := filepath.Split(path)
	for range 100 {
		tmp := filepath.Join(dir, fmt.Sprintf(".%s.%08x.tmp", base, rand.Uint32()))
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, usagef("%s %s: cannot create a file in %s: %v", flagName, path, filepath.Clean(dir), err)
		}
		return &outputFile{f: f, flag: flagName, path: path}, nil
	}
	return nil, usagef("%s %s: no free temporary name in %s", flagName, path, filepath.Clean(dir))
}

// createOptionalOutput is createOutput for an optional output flag:
// nil, and no file, when path is empty.
func createOptionalOutput(flagName, path string) (*outputFile, error) {
	if path == "" {
		return nil, nil
	}
	return createOutput(flagName, path)
}

// commitPNG encodes img as PNG into the file and renames it to its name.
func (o *outputFile) commitPNG(img image.Image) error {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return err
	}
	return o.commit(nil, buf.Bytes())
}

// commit writes the header and the data and renames the file to its name.
func (o *outputFile) commit(header, data []byte) error {
	if err := o.write(header, data); err != nil {
		return err
	}
	return o.rename()
}

// write writes the header and the data to the temporary file and closes
// it.
func (o *outputFile) write(header, data []byte) error {
	_, err := o.f.Write(header)
	if err == nil {
		_, err = o.f.Write(data)
	}
	if err == nil {
		err = o.f.Sync()
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return usagef("%s %s: %v", o.flag, o.path, err)
	}
	return nil
}

// rename renames the written temporary file to its name.
func (o *outputFile) rename() error {
	if err := os.Rename(o.f.Name(), o.path); err != nil {
		return usagef("%s %s: %v", o.flag, o.path, err)
	}
	return nil
}

// abortOnError removes the temporary file when *err is set: defer it.
func (o *outputFile) abortOnError(err *error) {
	if *err != nil {
		o.abort()
	}
}

// abort removes the temporary file, if there is one.
func (o *outputFile) abort() {
	if o == nil {
		return
	}
	o.f.Close()
	os.Remove(o.f.Name())
}

// commitAll writes each output's data, after a .npy header where its name
// ends in .npy, and then renames them all to their names. Should a rename
// fail, the outputs already renamed are removed: sort leaves no keys
// without their values.
func commitAll(outs []*outputFile, data []outputData) error {
	for i, o := range outs {
		var header []byte
		if strings.HasSuffix(o.path, ".npy") {
			header = npy.HeaderFor(data[i].dtype, data[i].n)
		}
		if err := o.write(header, data[i].data); err != nil {
			return err
		}
	}
	for i, o := range outs {
		if err := o.rename(); err != nil {
			for _, done := range outs[:i] {
				os.Remove(done.path)
			}
			return err
		}
	}
	return nil
}

// gpuTimeText is the end of a summary line: the GPU time and the device.
func gpuTimeText(gpuMs *float64, device string) string {
	if gpuMs == nil {
		return "GPU time n/a (no timestamps), on " + device
	}
	return fmt.Sprintf("in %.3f ms GPU time on %s", *gpuMs, device)
}

// encodeJSON writes v as one line of JSON.
func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
