package compact

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"testing"

	"github.com/vkcompact/vkcompact"
)

// checkValidKeep is FuzzParseKeep's acceptance oracle: from the fuzzer's
// input it makes a valid expression for type ty, "x OP VALUE" or
// "x & MASK" with a value of the type's range (decimal or hexadecimal,
// with or without spaces), or "nonzero", which ParseKeep must accept as
// exactly the Keep the expression says. A parser that refused everything
// fails here.
func checkValidKeep(t *testing.T, seed string, ty vkcompact.Type) {
	if ty.Size() == 0 {
		return
	}
	h := fnv.New64a()
	h.Write([]byte(seed))
	r := h.Sum64()
	ops := []struct {
		text string
		op   Op
	}{{"==", Equal}, {"!=", NotEqual}, {"<", Less}, {"<=", LessEqual}, {">", Greater}, {">=", GreaterEqual}, {"&", MaskAny}}
	o := ops[r%uint64(len(ops))]
	r /= uint64(len(ops))
	float := ty == vkcompact.Float32 || ty == vkcompact.Float64
	if o.op == MaskAny && float {
		o = ops[0]
	}
	bits := 8 * ty.Size()
	var text string
	var want Keep
	switch {
	case r%9 == 0:
		text, want = "nonzero", KeepNonZero()
	case float:
		v := float64(int64(r>>8)%2000001-1000000) / 1024 // exact in float32
		text, want = "x "+o.text+" "+strconv.FormatFloat(v, 'g', -1, 64), KeepIf(o.op, Float(v))
	case ty == vkcompact.Int32 || ty == vkcompact.Int64:
		v := int64(r >> 1)
		v >>= 64 - bits // any value of the type, negative ones included
		text, want = fmt.Sprintf("x%s%d", o.text, v), KeepIf(o.op, Int(v))
		if o.op == MaskAny {
			mask := uint64(v) & (uint64(1)<<bits - 1) // bits 64: all ones
			text, want = fmt.Sprintf("x & %d", mask), KeepMask(mask)
		}
	default:
		v := r >> (64 - bits)
		text, want = fmt.Sprintf("x %s %#x", o.text, v), KeepIf(o.op, Uint(v))
		if o.op == MaskAny {
			want = KeepMask(v)
		}
	}
	got, err := ParseKeep(text, ty)
	if err != nil {
		t.Fatalf("ParseKeep(%q, %v), a valid expression: %v", text, ty, err)
	}
	p1, lo1, hi1, err1 := got.encode(ty)
	p2, lo2, hi2, err2 := want.encode(ty)
	if got.Op != want.Op || err1 != nil || err2 != nil || p1 != p2 || lo1 != lo2 || hi1 != hi2 {
		t.Fatalf("ParseKeep(%q, %v) = %+v, encoding (%d, %#x, %#x, %v); want %+v, encoding (%d, %#x, %#x, %v)",
			text, ty, got, p1, lo1, hi1, err1, want, p2, lo2, hi2, err2)
	}
}

// FuzzParseKeep: ParseKeep never panics, whatever the expression and the
// type; a refusal names the expression; an accepted Keep encodes for the
// type, and its String (what the CLI's -json prints) parses back to a
// Keep with the same encoding. Seeds are in testdata/fuzz/FuzzParseKeep;
// `go test -fuzz FuzzParseKeep ./compact` explores.
func FuzzParseKeep(f *testing.F) {
	f.Add("x > 0.5", uint8(vkcompact.Float32))
	f.Add("x & 0x30", uint8(vkcompact.Uint32))
	f.Fuzz(func(t *testing.T, expr string, typ uint8) {
		// Mostly the six types, sometimes an unknown one.
		ty := vkcompact.Type(typ % 8)
		checkValidKeep(t, expr, ty)
		k, err := ParseKeep(expr, ty)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "keep expression ") {
				t.Fatalf("ParseKeep(%q, %v): error %q does not name the expression", expr, ty, err)
			}
			return
		}
		if ty.Size() == 0 {
			t.Fatalf("ParseKeep(%q, %v) accepted an unknown type: %+v", expr, ty, k)
		}
		if k.Op == Flagged || k.Op > MaskAny {
			t.Fatalf("ParseKeep(%q, %v) = %+v: not an expression's operator", expr, ty, k)
		}
		pred, lo, hi, err := k.encode(ty)
		if err != nil {
			t.Fatalf("ParseKeep(%q, %v) = %+v, which does not encode: %v", expr, ty, k, err)
		}
		s := k.String()
		k2, err := ParseKeep(s, ty)
		if err != nil {
			t.Fatalf("ParseKeep(%q, %v) = %+v, whose String %q does not parse: %v", expr, ty, k, s, err)
		}
		pred2, lo2, hi2, err := k2.encode(ty)
		if err != nil || pred2 != pred || lo2 != lo || hi2 != hi {
			t.Fatalf("ParseKeep(%q, %v) encodes as (%d, %#x, %#x); its String %q as (%d, %#x, %#x, %v)",
				expr, ty, pred, lo, hi, s, pred2, lo2, hi2, err)
		}
	})
}
