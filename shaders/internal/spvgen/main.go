// Command spvgen compiles every *.comp file of a directory and its
// subfolders to SPIR-V with glslc, each module in the output directory's
// folder of the same relative path. `go generate ./shaders` runs it; the output is committed so that
// users of the module need no shader compiler.
//
// Usage: spvgen [-src DIR] [-out DIR]
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Flags passed to glslc. The target stays at Vulkan 1.1 (SPIR-V 1.3) so the
// modules run on any device vkcompact supports.
var glslcFlags = []string{"--target-env=vulkan1.1", "-O", "-Werror"}

func main() {
	src := flag.String("src", ".", "directory of *.comp sources")
	out := flag.String("out", ".", "directory for the *.spv output")
	flag.Parse()
	if err := generate(*src, *out); err != nil {
		fmt.Fprintln(os.Stderr, "spvgen:", err)
		os.Exit(1)
	}
}

func generate(src, out string) error {
	if _, err := exec.LookPath("glslc"); err != nil {
		return fmt.Errorf("glslc not found: install it (Debian: apt-get install glslc): %w", err)
	}
	var sources []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != src && (d.Name() == "internal" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".comp") {
			sources = append(sources, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(sources) == 0 {
		return fmt.Errorf("no *.comp files in %s", src)
	}
	for _, s := range sources {
		rel, err := filepath.Rel(src, s)
		if err != nil {
			return err
		}
		dir := filepath.Join(out, filepath.Dir(rel))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		name := strings.TrimSuffix(filepath.Base(s), ".comp") + ".spv"
		args := append(append([]string{}, glslcFlags...), "-I", src, "-o", filepath.Join(dir, name), s)
		cmd := exec.Command("glslc", args...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("glslc %s: %w", s, err)
		}
	}
	return nil
}
