package compact

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/vkcompact/vkcompact"
	"github.com/vkcompact/vkcompact/internal/errs"
	"github.com/vkcompact/vkcompact/internal/gotype"
	"github.com/vkcompact/vkcompact/internal/keepop"
)

// Op is a keep-if test.
type Op uint8

// The tests. Comparisons follow IEEE 754 for float keys: a NaN key
// compares false (so NotEqual keeps it), and -0.0 equals 0.0.
const (
	NonZero      Op = iota // key != 0 (a NaN key is nonzero; -0.0 is zero)
	Equal                  // key == Value
	NotEqual               // key != Value
	Less                   // key < Value
	LessEqual              // key <= Value
	Greater                // key > Value
	GreaterEqual           // key >= Value
	MaskAny                // key & Value != 0 (integer keys)
	Flagged                // flag[i] != 0, from a separate flag array
	// FirstOfRun keeps the first element of each run of equal elements
	// (Keep.Equal says when two are equal): unique, as CUB's
	// DeviceSelect::Unique (KeepUnique). The first element is always
	// kept.
	FirstOfRun
	// runEdges keeps the first and the last element of each run longer
	// than one (internal/keepop.RunEdges): package runs' selection, not
	// part of the API.
	runEdges Op = keepop.RunEdges
)

var opNames = [...]string{"nonzero", "==", "!=", "<", "<=", ">", ">=", "&", "flagged", "first-of-run", "run-edges"}

// String returns the operator as the command line writes it.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Value is a predicate's constant: an integer or a float, converted to the
// key's type when a selection is planned.
type Value struct {
	kind valueKind
	u    uint64
	i    int64
	f    float64
}

type valueKind uint8

const (
	kindUint valueKind = iota
	kindInt
	kindFloat
)

// Uint returns an unsigned integer constant.
func Uint(v uint64) Value { return Value{kind: kindUint, u: v} }

// Int returns a signed integer constant.
func Int(v int64) Value { return Value{kind: kindInt, i: v} }

// Float returns a floating-point constant. For a float32 key it is rounded
// to float32, as C rounds 0.1 to 0.1f.
func Float(v float64) Value { return Value{kind: kindFloat, f: v} }

// String formats the constant.
func (v Value) String() string {
	switch v.kind {
	case kindInt:
		return strconv.FormatInt(v.i, 10)
	case kindFloat:
		return strconv.FormatFloat(v.f, 'g', -1, 64)
	}
	return strconv.FormatUint(v.u, 10)
}

// Keep is a keep-if predicate.
type Keep struct {
	Op        Op       // the test
	Value     Value    // the constant of a comparison, or the mask of MaskAny
	FlagBytes uint32   // Flagged: bytes per flag, 1 (uint8) or 4 (uint32)
	Equal     Equality // FirstOfRun: when neighbours are equal
}

// KeepNonZero keeps elements whose key is not zero.
func KeepNonZero() Keep { return Keep{Op: NonZero} }

// KeepIf keeps elements whose key compares to v as op says.
func KeepIf(op Op, v Value) Keep { return Keep{Op: op, Value: v} }

// KeepMask keeps elements whose key has any bit of mask set.
func KeepMask(mask uint64) Keep { return Keep{Op: MaskAny, Value: Uint(mask)} }

// KeepFlagged keeps elements whose flag is nonzero, in a separate array of
// flagBytes (1 or 4) per element.
func KeepFlagged(flagBytes uint32) Keep { return Keep{Op: Flagged, FlagBytes: flagBytes} }

// String writes k as the command line's -keep takes it.
func (k Keep) String() string {
	switch k.Op {
	case NonZero:
		return "nonzero"
	case Flagged:
		return fmt.Sprintf("flagged (%d-byte flags)", k.FlagBytes)
	case MaskAny:
		return "x & " + k.Value.String()
	case FirstOfRun, runEdges:
		return k.neighbourString()
	}
	return "x " + k.Op.String() + " " + k.Value.String()
}

// The predicate codes of select.glsl.
const (
	predNonZero uint32 = iota
	predEq
	predNe
	predLt
	predLe
	predGt
	predGe
	predMask
	predFlagged
	predAll
	predNone
)

// encode turns k into the shader's predicate code and constant words for
// key type t (Unset as Uint32, a plan's default), checking that the
// constant fits t.
func (k Keep) encode(t vkcompact.Type) (pred uint32, lo, hi uint32, err error) {
	t = t.OrUint32()
	switch k.Op {
	case NonZero:
		return predNonZero, 0, 0, nil
	case Flagged:
		if k.FlagBytes != 1 && k.FlagBytes != 4 {
			return 0, 0, 0, errs.Invalidf("compact: flags of %d bytes: want 1 (uint8) or 4 (uint32)", k.FlagBytes)
		}
		return predFlagged, 0, 0, nil
	case FirstOfRun, runEdges:
		return k.encodeNeighbours()
	case MaskAny:
		if isFloat(t) {
			return 0, 0, 0, errs.Invalidf("compact: a mask (x & %s) needs an integer key, not %s", k.Value, t)
		}
		bits, err := k.Value.maskBits(t)
		if err != nil {
			return 0, 0, 0, err
		}
		return predMask, uint32(bits), uint32(bits >> 32), nil
	case Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual:
	default:
		return 0, 0, 0, errs.Invalidf("compact: unknown keep operator %d", k.Op)
	}
	if isFloat(t) && k.Value.kind == kindFloat && math.IsNaN(k.Value.f) {
		// Every comparison with NaN is false, except !=.
		if k.Op == NotEqual {
			return predAll, 0, 0, nil
		}
		return predNone, 0, 0, nil
	}
	bits, err := k.Value.bits(t)
	if err != nil {
		return 0, 0, 0, err
	}
	o := orderedBits(t, bits)
	return predEq + uint32(k.Op-Equal), uint32(o), uint32(o >> 32), nil
}

// bits converts v to key type t's bit pattern (in the low 32 bits for
// 32-bit types), or says why it does not fit.
func (v Value) bits(t vkcompact.Type) (uint64, error) {
	bad := func() (uint64, error) {
		return 0, errs.Invalidf("compact: constant %s is out of range for %s", v, t)
	}
	switch t {
	case vkcompact.Uint32, vkcompact.Uint64, vkcompact.Int32, vkcompact.Int64:
		var lo, hi int64 // the range, as big integers would have it
		var i int64
		var u uint64
		neg := false
		switch v.kind {
		case kindUint:
			u = v.u
		case kindInt:
			i = v.i
			neg = i < 0
			u = uint64(i)
		case kindFloat:
			f := v.f
			if f != math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) {
				return 0, errs.Invalidf("compact: constant %s is not an integer, and the key is %s", v, t)
			}
			if f < -(1<<63) || f >= 1<<64 {
				return bad()
			}
			if f < 0 {
				neg, i, u = true, int64(f), uint64(int64(f))
			} else {
				u = uint64(f)
			}
		}
		switch t {
		case vkcompact.Uint32:
			if neg || u > math.MaxUint32 {
				return bad()
			}
			return u, nil
		case vkcompact.Uint64:
			if neg {
				return bad()
			}
			return u, nil
		case vkcompact.Int32:
			lo, hi = math.MinInt32, math.MaxInt32
		case vkcompact.Int64:
			lo, hi = math.MinInt64, math.MaxInt64
		}
		if neg {
			if i < lo {
				return bad()
			}
		} else if u > uint64(hi) {
			return bad()
		}
		if t == vkcompact.Int32 {
			return uint64(uint32(int32(int64(u)))), nil
		}
		return u, nil
	case vkcompact.Float32, vkcompact.Float64:
		var f float64
		exact := true
		switch v.kind {
		case kindUint:
			f = float64(v.u)
			exact = uint64(f) == v.u && f < 1<<64
		case kindInt:
			f = float64(v.i)
			exact = f >= -(1<<63) && f < 1<<63 && int64(f) == v.i
		case kindFloat:
			f = v.f
		}
		if t == vkcompact.Float32 {
			f32 := float32(f)
			if math.IsInf(float64(f32), 0) && !math.IsInf(f, 0) {
				return bad()
			}
			if v.kind != kindFloat && (!exact || float64(f32) != f) {
				return 0, errs.Invalidf("compact: constant %s is not exactly representable as %s", v, t)
			}
			return uint64(math.Float32bits(f32)), nil
		}
		if v.kind != kindFloat && !exact {
			return 0, errs.Invalidf("compact: constant %s is not exactly representable as %s", v, t)
		}
		return math.Float64bits(f), nil
	}
	return 0, errs.Invalidf("compact: unknown key type %d", t)
}

// maskBits converts a mask to t's width: any bit pattern of the width,
// written unsigned or as a negative two's-complement integer.
func (v Value) maskBits(t vkcompact.Type) (uint64, error) {
	wide := t.Size() == 8
	switch v.kind {
	case kindUint:
		if wide || v.u <= math.MaxUint32 {
			return v.u, nil
		}
	case kindInt:
		if wide {
			return uint64(v.i), nil
		}
		if v.i >= math.MinInt32 && v.i <= math.MaxUint32 {
			return uint64(uint32(v.i)), nil
		}
	default:
		return 0, errs.Invalidf("compact: mask %s is not an integer", v)
	}
	return 0, errs.Invalidf("compact: mask %s is wider than %s", v, t)
}

// orderedBits maps a key's bits as select.glsl's ordered() does: unsigned
// order of the result is the key's numeric order; -0.0 maps as +0.0.
func orderedBits(t vkcompact.Type, b uint64) uint64 {
	switch t {
	case vkcompact.Int32:
		return b ^ 0x80000000
	case vkcompact.Int64:
		return b ^ 1<<63
	case vkcompact.Float32:
		if b&0x7fffffff == 0 {
			return 0x80000000
		}
		if b&0x80000000 != 0 {
			return ^b & 0xffffffff
		}
		return b | 0x80000000
	case vkcompact.Float64:
		if b&^(1<<63) == 0 {
			return 1 << 63
		}
		if b&(1<<63) != 0 {
			return ^b
		}
		return b | 1<<63
	}
	return b
}

// ParseKeep parses a keep expression for keys of type t: "nonzero",
// "x OP VALUE" with OP one of == != < <= > >=, or "x & MASK". VALUE and
// MASK are decimal or 0x hexadecimal integers; float keys also take
// decimal floats, inf and nan. Spaces are optional. t must be given: a
// value's meaning depends on it, so Unset is refused.
func ParseKeep(expr string, t vkcompact.Type) (Keep, error) {
	if t == vkcompact.Unset {
		return Keep{}, errs.Invalidf("keep expression %q: no key type given (unset): a value's meaning depends on it", expr)
	}
	if t.Size() == 0 {
		return Keep{}, errs.Invalidf("keep expression %q: unknown key type %d", expr, t)
	}
	s := strings.TrimSpace(expr)
	if s == "nonzero" {
		return KeepNonZero(), nil
	}
	if !strings.HasPrefix(s, "x") {
		return Keep{}, errs.Invalidf("keep expression %q: want nonzero, x OP VALUE (OP one of == != < <= > >=) or x & MASK", expr)
	}
	rest := strings.TrimSpace(s[1:])
	var op Op
	var lit string
	for _, cand := range []struct {
		tok string
		op  Op
	}{{"==", Equal}, {"!=", NotEqual}, {"<=", LessEqual}, {">=", GreaterEqual}, {"<", Less}, {">", Greater}, {"&", MaskAny}} {
		if strings.HasPrefix(rest, cand.tok) {
			op, lit = cand.op, strings.TrimSpace(rest[len(cand.tok):])
			break
		}
	}
	if lit == "" {
		return Keep{}, errs.Invalidf("keep expression %q: want nonzero, x OP VALUE (OP one of == != < <= > >=) or x & MASK", expr)
	}
	v, err := parseValue(lit, t, op == MaskAny)
	if err != nil {
		return Keep{}, errs.Invalidf("keep expression %q: %w", expr, err)
	}
	k := Keep{Op: op, Value: v}
	if _, _, _, err := k.encode(t); err != nil {
		return Keep{}, errs.Invalidf("keep expression %q: %w", expr, err)
	}
	return k, nil
}

func parseValue(lit string, t vkcompact.Type, mask bool) (Value, error) {
	u, errU := strconv.ParseUint(lit, 0, 64)
	if errU == nil {
		return Uint(u), nil
	}
	i, errI := strconv.ParseInt(lit, 0, 64)
	if errI == nil {
		return Int(i), nil
	}
	// An integer literal beyond 64 bits: out of range for an integer key
	// (a float key takes a decimal one as a float).
	wide := errors.Is(errU, strconv.ErrRange) || errors.Is(errI, strconv.ErrRange)
	if isFloat(t) && !mask {
		if hex := strings.TrimLeft(lit, "+-"); strings.HasPrefix(hex, "0x") || strings.HasPrefix(hex, "0X") {
			if wide {
				return Value{}, errs.Invalidf("%q is out of range for %s", lit, t)
			}
			return Value{}, errs.Invalidf("%q is not a number", lit)
		}
		f, err := strconv.ParseFloat(lit, 64)
		if errors.Is(err, strconv.ErrRange) {
			return Value{}, errs.Invalidf("%q is out of range for %s", lit, t)
		}
		if err != nil {
			return Value{}, errs.Invalidf("%q is not a number", lit)
		}
		return Float(f), nil
	}
	if wide {
		return Value{}, errs.Invalidf("%q is out of range for %s", lit, t)
	}
	if _, err := strconv.ParseFloat(lit, 64); err == nil && !mask {
		return Value{}, errs.Invalidf("%q is not an integer, and the key is %s", lit, t)
	}
	return Value{}, errs.Invalidf("%q is not an integer", lit)
}

// elemFor resolves a selection's Elem for a slice of T: T's own keys
// where T is a key type and e is zero, e where it fits T (a struct's key
// field found through reflection), and an error naming both otherwise
// (gotype.Elem). The Elem returned has T's size as its stride.
func elemFor[T any](e vkcompact.Elem) (vkcompact.Elem, error) {
	r, err := gotype.Elem(reflect.TypeFor[T](), e, "Selection.Elem")
	if err != nil {
		return e, fmt.Errorf("compact: %w", err)
	}
	return r, nil
}

func isFloat(t vkcompact.Type) bool { return t == vkcompact.Float32 || t == vkcompact.Float64 }
