package pipeline

import (
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact/vk"
)

type goodBindings struct {
	In   vk.Range `use:"read"`
	Out  vk.Range `use:"write"`
	Both vk.Range `use:"readwrite" glsl:"Status"`
}

// TestBindingsStructs checks what a bindings struct may be: its uses read
// from the tags, its ranges viewed in field order; a field that is not a
// vk.Range, or a missing or unknown use tag, panics (in Uses, and in
// ranges for a TypedPipeline made by hand with such a struct).
func TestBindingsStructs(t *testing.T) {
	if got, want := Uses[goodBindings](), []Use{Read, Write, ReadWrite}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("Uses = %v, want %v", got, want)
	}
	b := goodBindings{In: vk.Range{Offset: 1}, Out: vk.Range{Offset: 2}, Both: vk.Range{Offset: 3}}
	r := ranges(&b)
	if len(r) != 3 || r[0].Offset != 1 || r[1].Offset != 2 || r[2].Offset != 3 {
		t.Errorf("ranges = %+v", r)
	}
	panics := func(name, want string, f func()) {
		t.Helper()
		defer func() {
			if e := recover(); e == nil || !strings.Contains(e.(string), want) {
				t.Errorf("%s: panic %v, want one naming %q", name, e, want)
			}
		}()
		f()
	}
	type notRange struct {
		A, B, C uint64 `use:"read"`
	}
	type noTag struct {
		A vk.Range
	}
	type badTag struct {
		A vk.Range `use:"sometimes"`
	}
	panics("Uses of uint64 fields", "not vk.Range", func() { Uses[notRange]() })
	panics("ranges of uint64 fields", "not vk.Range", func() { var x notRange; ranges(&x) })
	panics("Uses without a tag", "use tag", func() { Uses[noTag]() })
	panics("Uses with an unknown tag", "use tag", func() { Uses[badTag]() })
}
