package fileio

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/npy"
	"github.com/vkcompact/vkcompact/cmd/vkcompact/internal/usage"
)

// Output is an output being written: a temporary file beside the final
// name, renamed to it once complete (Commit, CommitAll), or removed
// (Abort).
type Output struct {
	f    *os.File
	flag string // the flag that names it, for messages: "-out"
	path string
}

// CreateOutput creates the temporary file for the path the flag
// flagName gives, with the permissions a new file gets (0666 less the
// umask).
func CreateOutput(flagName, path string) (*Output, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, usage.Errorf("%s %s: is a directory", flagName, path)
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
			return nil, usage.Errorf("%s %s: cannot create a file in %s: %v", flagName, path, filepath.Clean(dir), err)
		}
		return &Output{f: f, flag: flagName, path: path}, nil
	}
	return nil, usage.Errorf("%s %s: no free temporary name in %s", flagName, path, filepath.Clean(dir))
}

// CreateOptionalOutput is CreateOutput for an optional output flag:
// nil, and no file, when path is empty.
func CreateOptionalOutput(flagName, path string) (*Output, error) {
	if path == "" {
		return nil, nil
	}
	return CreateOutput(flagName, path)
}

// CommitPNG encodes img as PNG into the file and renames it to its name.
func (o *Output) CommitPNG(img image.Image) error {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return err
	}
	return o.Commit(nil, buf.Bytes())
}

// Commit writes the header and the data and renames the file to its name.
func (o *Output) Commit(header, data []byte) error {
	if err := o.write(header, data); err != nil {
		return err
	}
	return o.rename()
}

// write writes the header and the data to the temporary file and closes
// it.
func (o *Output) write(header, data []byte) error {
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
		return usage.Errorf("%s %s: %v", o.flag, o.path, err)
	}
	return nil
}

// rename renames the written temporary file to its name.
func (o *Output) rename() error {
	if err := os.Rename(o.f.Name(), o.path); err != nil {
		return usage.Errorf("%s %s: %v", o.flag, o.path, err)
	}
	return nil
}

// AbortOnError removes the temporary file when *err is set: defer it.
func (o *Output) AbortOnError(err *error) {
	if *err != nil {
		o.Abort()
	}
}

// Abort removes the temporary file, if there is one (o may be nil).
func (o *Output) Abort() {
	if o == nil {
		return
	}
	o.f.Close()
	os.Remove(o.f.Name())
}

// CommitAll writes each output's data, after a .npy header where its name
// ends in .npy, and then renames them all to their names. Should a rename
// fail, the outputs already renamed are removed: sort leaves no keys
// without their values.
func CommitAll(outs []*Output, data []OutputData) error {
	for i, o := range outs {
		var header []byte
		if strings.HasSuffix(o.path, ".npy") {
			header = npy.HeaderFor(data[i].Dtype, data[i].N)
		}
		if err := o.write(header, data[i].Bytes); err != nil {
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
