package reduce

import (
	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/internal/planrun"
	"github.com/vkcompact/vkcompact/internal/tiling"
)

// invalid is an error matching vk.ErrInvalid, its message prefixed with
// the package's name.
func invalid(format string, args ...any) error {
	return errs.Invalidf("reduce: "+format, args...)
}

// typeCode is the shaders' KEY_* code of a type (shaders/include/key_types.glsl).
func typeCode(t vkcompact.Type) uint32 { return tiling.KeyCode(t) }

// checkElem checks what a request says of its elements (named by field,
// such as "Reduce.Elem"): plain keys of one of the types a reduction
// takes (u32, i32, f32, u64). It returns the type, Uint32 for Unset.
func checkElem(e vkcompact.Elem, field string) (vkcompact.Type, error) {
	t := e.Key.OrUint32()
	if e.Stride != 0 || e.KeyOffset != 0 {
		if e.Stride != t.Size() || e.KeyOffset != 0 {
			return t, invalid("%s %v: elements are plain values (vkcompact.Plain), not structs", field, e)
		}
	}
	switch t {
	case vkcompact.Uint32, vkcompact.Int32, vkcompact.Float32, vkcompact.Uint64:
		return t, nil
	}
	return t, invalid("%s %v: the element type must be u32, i32, f32 or u64", field, e)
}

// temps is the ranges a Run allocates where the caller left them zero
// (planrun.Run), less those of no bytes (a plan that needs no scratch).
func temps(ts ...planrun.Temp) []planrun.Temp {
	var keep []planrun.Temp
	for _, t := range ts {
		if t.Size > 0 {
			keep = append(keep, t)
		}
	}
	return keep
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// sizeOf is the bytes of one element of type t.
func sizeOf(t vkcompact.Type) uint64 { return uint64(t.Size()) }
