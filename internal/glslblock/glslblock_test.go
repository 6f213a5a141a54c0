package glslblock

import (
	"io/fs"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

var sources = fstest.MapFS{
	"k.comp": {Data: []byte(`#version 450
#extension GL_GOOGLE_include_directive : require
// A kernel: layout(constant_id = 9) const uint COMMENTED = 0; is no declaration.
#define WITH_SECTOR 1
#include "inc/common.glsl"
layout(local_size_x_id = 0) in;
/* layout(push_constant) uniform Old { uint gone; } old;
   spans lines */
layout(std430, binding = 0) buffer Keys { uint keys[]; };
layout(push_constant) uniform Push {
    uint n;       // keys
    int  delta, step;
    layout(offset = 12) float scale;
    uint pad[2];
} pc;
#ifdef WITH_SECTOR
layout(constant_id = 3) const uint SECTOR = 8;
#else
layout(constant_id = 3) const uint NO_SECTOR = 8;
#endif
#ifndef WITH_SECTOR
layout(constant_id = 4) const uint NEVER = 1;
#endif
void main() {}
`)},
	"inc/common.glsl": {Data: []byte(`#include "more.glsl"
layout(constant_id = 2) const bool DESCENDING = false;
`)},
	"inc/more.glsl": {Data: []byte(`layout(constant_id = 1) const uint KEY_TYPE = 0; // KEY_*
`)},
	"loop.glsl":      {Data: []byte(`#include "loop.glsl"` + "\n")},
	"if.comp":        {Data: []byte("#if 1\n#endif\n")},
	"open.comp":      {Data: []byte("#ifdef X\n")},
	"else.comp":      {Data: []byte("#else\n")},
	"missing.comp":   {Data: []byte(`#include "nowhere.glsl"` + "\n")},
	"dup.comp":       {Data: []byte("layout(local_size_x_id = 1) in;\nlayout(constant_id = 1) const uint A = 1;\n")},
	"two.comp":       {Data: []byte("layout(push_constant) uniform A { uint a; } a;\nlayout(push_constant) uniform B { uint b; } b;\n")},
	"badmember.comp": {Data: []byte("layout(push_constant) uniform A { uint a b; } a;\n")},
}

// TestParse reads a kernel through includes (nested, in a folder),
// defines, conditionals and comments.
func TestParse(t *testing.T) {
	d, err := Parse(sources, "k.comp")
	if err != nil {
		t.Fatal(err)
	}
	wantPush := []Field{{"uint", "n"}, {"int", "delta"}, {"int", "step"}, {"float", "scale"}, {"uint", "pad[2]"}}
	if !slices.Equal(d.Push, wantPush) {
		t.Errorf("push %v, want %v", d.Push, wantPush)
	}
	wantConst := []Constant{{0, Field{"uint", "local_size_x"}}, {1, Field{"uint", "KEY_TYPE"}}, {2, Field{"bool", "DESCENDING"}}, {3, Field{"uint", "SECTOR"}}}
	if !slices.Equal(d.Constants, wantConst) {
		t.Errorf("constants %v, want %v", d.Constants, wantConst)
	}
}

// TestParseErrors checks that what the parser cannot read is refused by
// name rather than misread.
func TestParseErrors(t *testing.T) {
	for name, want := range map[string]string{
		"loop.glsl":      "nested more than",
		"if.comp":        "#if is not supported",
		"open.comp":      "#ifdef without #endif",
		"else.comp":      "#else without #ifdef",
		"missing.comp":   "nowhere.glsl",
		"dup.comp":       "constant_id 1 names both local_size_x and A",
		"two.comp":       "2 push-constant blocks",
		"badmember.comp": "member a",
		"absent.comp":    "absent.comp",
	} {
		if _, err := Parse(sources, name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error naming %q", name, err, want)
		}
	}
}

type inner struct {
	Type uint32 `glsl:"KEY_TYPE"`
	Desc bool   `glsl:"DESCENDING"`
}

type block struct {
	WorkgroupSize uint32 `glsl:"local_size_x"`
	inner
	Delta int32
	Scale float32
}

// TestWordsAndFields converts a struct with an embedded one, and compares
// its fields with GLSL's.
func TestWordsAndFields(t *testing.T) {
	b := block{WorkgroupSize: 256, inner: inner{Type: 3, Desc: true}, Delta: -2, Scale: 1.5}
	if got, want := Words(b), []uint32{256, 3, 1, math.MaxUint32 - 1, math.Float32bits(1.5)}; !slices.Equal(got, want) {
		t.Errorf("words %v, want %v", got, want)
	}
	f, err := Fields(b)
	if err != nil {
		t.Fatal(err)
	}
	glsl := []Field{{"uint", "local_size_x"}, {"uint", "KEY_TYPE"}, {"bool", "DESCENDING"}, {"int", "delta"}, {"float", "SCALE"}}
	if err := Compare(f, glsl); err != nil {
		t.Errorf("compare: %v", err)
	}
	swapped := slices.Clone(glsl)
	swapped[1], swapped[2] = swapped[2], swapped[1]
	if err := Compare(f, swapped); err == nil || !strings.Contains(err.Error(), "2 of 5 fields differ") {
		t.Errorf("swapped: %v", err)
	}
	if err := Compare(f, glsl[:4]); err == nil || !strings.Contains(err.Error(), "GLSL nothing") {
		t.Errorf("shorter GLSL: %v", err)
	}
	if err := Compare(f[:4], glsl); err == nil || !strings.Contains(err.Error(), "Go nothing") {
		t.Errorf("shorter Go: %v", err)
	}
	type plainInner struct{ Delta int32 }
	type plainBlock struct {
		N uint32
		plainInner
		Scale float32
	}
	pb := plainBlock{N: 7, plainInner: plainInner{Delta: -2}, Scale: 1.5}
	if !plainWords(reflect.TypeFor[plainBlock]()) || plainWords(reflect.TypeFor[block]()) {
		t.Errorf("plainWords: a struct of 32-bit numbers must be plain, one with a bool not")
	}
	want := []uint32{7, math.MaxUint32 - 1, math.Float32bits(1.5)}
	if got := Words(pb); !slices.Equal(got, want) {
		t.Errorf("plain words %v, want %v", got, want)
	}
	if got := Words(any(pb)); !slices.Equal(got, want) {
		t.Errorf("words through an interface %v, want %v", got, want)
	}
	type wrong struct{ X uint64 }
	if _, err := Fields(wrong{}); err == nil || !strings.Contains(err.Error(), "not a 32-bit GLSL scalar") {
		t.Errorf("uint64 field: %v", err)
	}
	if _, err := Fields(3); err == nil {
		t.Errorf("Fields of an int: no error")
	}
	defer func() {
		if recover() == nil {
			t.Errorf("Words of a uint64 field did not panic")
		}
	}()
	Words(wrong{})
}

// TestConstantFields requires IDs 0, 1, 2, ...
func TestConstantFields(t *testing.T) {
	c := []Constant{{0, Field{"uint", "local_size_x"}}, {1, Field{"uint", "A"}}}
	if f, err := ConstantFields(c); err != nil || !reflect.DeepEqual(f, []Field{c[0].Field, c[1].Field}) {
		t.Errorf("%v %v", f, err)
	}
	if _, err := ConstantFields(c[1:]); err == nil || !strings.Contains(err.Error(), "without a gap") {
		t.Errorf("a gap: %v", err)
	}
}

// TestRepositoryShaders parses every kernel of shaders/: each must read
// without error, so that a test holding Go structs to them can rely on it.
func TestRepositoryShaders(t *testing.T) {
	fsys := os.DirFS("../../shaders")
	names, err := fs.Glob(fsys, "*/*.comp")
	if err != nil || len(names) == 0 {
		t.Fatalf("no kernels in shaders/: %v", err)
	}
	for _, name := range names {
		d, err := Parse(fsys, name)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if len(d.Constants) == 0 || d.Constants[0].Name != "local_size_x" {
			t.Errorf("%s: constants %v, want the workgroup size first", name, d.Constants)
		}
	}
}
