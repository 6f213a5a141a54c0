package compact

import (
	"strings"
	"testing"
)

// FuzzParseKeep: ParseKeep never panics, whatever the expression and the
// type; a refusal names the expression; an accepted Keep encodes for the
// type, and its String (what the CLI's -json prints) parses back to a
// Keep with the same encoding. Seeds are in testdata/fuzz/FuzzParseKeep;
// `go test -fuzz FuzzParseKeep ./compact` explores.
func FuzzParseKeep(f *testing.F) {
	f.Add("x > 0.5", uint8(Float32))
	f.Add("x & 0x30", uint8(Uint32))
	f.Fuzz(func(t *testing.T, expr string, typ uint8) {
		// Mostly the six types, sometimes an unknown one.
		ty := Type(typ % 8)
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
