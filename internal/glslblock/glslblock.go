// Package glslblock reads what a GLSL compute shader declares to the host,
// the members of its push-constant block and its specialization
// constants, and turns the Go structs that mirror them into the 32-bit
// words Vulkan takes. A kernel's push constants are a Go struct whose
// fields follow the GLSL block's members in order, and its specialization
// constants a Go struct whose field i is constant_id i; a test compares
// the two (Fields against Parse) so that a field added, dropped, renamed
// or swapped on either side fails it, as Mesa's radix sort shares one
// header between C and GLSL.
package glslblock

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Field is one push-constant member or specialization constant: its GLSL
// type ("uint", "int", "float", "bool", ...) and name.
type Field struct {
	Type, Name string
}

// Constant is a specialization constant and its constant_id. The
// workgroup size given by layout(local_size_x_id = N) in is constant N,
// named "local_size_x" (and _y, _z).
type Constant struct {
	ID uint32
	Field
}

// Decls is what a shader declares to the host.
type Decls struct {
	// Push lists the members of the layout(push_constant) block in
	// declaration order; empty where there is none.
	Push []Field
	// Constants lists the specialization constants by ascending ID.
	Constants []Constant
	// Buffers lists the storage-buffer blocks by ascending binding.
	Buffers []Buffer
}

// maxIncludeDepth bounds nested #include directives (a file that includes
// itself would never end).
const maxIncludeDepth = 16

// Parse reads the shader name of fsys and returns its declarations, after
// preprocessing: #include "file" (relative to the including file),
// #define and #undef (whether a name is defined; macros are not
// expanded), #ifdef, #ifndef, #else and #endif. #if and #elif are
// refused; other directives (#version, #extension, #pragma) are ignored.
func Parse(fsys fs.FS, name string) (Decls, error) {
	var src strings.Builder
	if err := preprocess(fsys, name, map[string]bool{}, 0, &src); err != nil {
		return Decls{}, err
	}
	d, err := ParseSource(src.String())
	if err != nil {
		return Decls{}, fmt.Errorf("glslblock: %s: %w", name, err)
	}
	return d, nil
}

// ParseSource returns the declarations of preprocessed GLSL source (see
// Parse); comments are ignored.
func ParseSource(src string) (Decls, error) {
	toks := tokens(stripComments(src))
	var d Decls
	seen := map[uint32]string{}
	addConstant := func(c Constant) error {
		if prev, ok := seen[c.ID]; ok {
			return fmt.Errorf("constant_id %d names both %s and %s", c.ID, prev, c.Name)
		}
		seen[c.ID] = c.Name
		d.Constants = append(d.Constants, c)
		return nil
	}
	pushBlocks := 0
	for i := 0; i < len(toks); i++ {
		if toks[i] != "layout" {
			continue
		}
		quals, next, err := qualifiers(toks, i+1)
		if err != nil {
			return Decls{}, err
		}
		i = next - 1
		switch {
		case quals.has("push_constant"):
			members, end, err := pushBlock(toks, next)
			if err != nil {
				return Decls{}, err
			}
			pushBlocks++
			d.Push, i = members, end-1
		case quals.has("constant_id"):
			c, end, err := constantDecl(toks, next, quals["constant_id"])
			if err != nil {
				return Decls{}, err
			}
			if err := addConstant(c); err != nil {
				return Decls{}, err
			}
			i = end - 1
		case quals.has("binding"):
			b, end, err := bufferDecl(toks, next, quals["binding"])
			if err != nil {
				return Decls{}, err
			}
			if err := addBuffer(&d, b); err != nil {
				return Decls{}, err
			}
			i = end - 1
		default:
			for _, axis := range []string{"x", "y", "z"} {
				if id, ok := quals["local_size_"+axis+"_id"]; ok {
					c := Constant{Field: Field{Type: "uint", Name: "local_size_" + axis}}
					if c.ID, err = constantID(id); err != nil {
						return Decls{}, err
					}
					if err := addConstant(c); err != nil {
						return Decls{}, err
					}
				}
			}
		}
	}
	if pushBlocks > 1 {
		return Decls{}, fmt.Errorf("%d push-constant blocks: a shader has at most one", pushBlocks)
	}
	sort.Slice(d.Constants, func(a, b int) bool { return d.Constants[a].ID < d.Constants[b].ID })
	sort.Slice(d.Buffers, func(a, b int) bool { return d.Buffers[a].Binding < d.Buffers[b].Binding })
	return d, nil
}

// layoutQualifiers maps each qualifier of a layout(...) to its value ("" for
// one without).
type layoutQualifiers map[string]string

func (q layoutQualifiers) has(name string) bool { _, ok := q[name]; return ok }

// qualifiers reads "( name [= value], ... )" from toks[i:] and returns the
// index after the closing parenthesis.
func qualifiers(toks []string, i int) (layoutQualifiers, int, error) {
	if i >= len(toks) || toks[i] != "(" {
		return nil, 0, fmt.Errorf("layout without its qualifiers")
	}
	q := layoutQualifiers{}
	for i++; i < len(toks); i++ {
		switch {
		case toks[i] == ")":
			return q, i + 1, nil
		case toks[i] == ",":
		case i+2 < len(toks) && toks[i+1] == "=":
			q[toks[i]] = toks[i+2]
			i += 2
		default:
			q[toks[i]] = ""
		}
	}
	return nil, 0, fmt.Errorf("layout qualifiers without a closing parenthesis")
}

func constantID(s string) (uint32, error) {
	id, err := strconv.ParseUint(s, 0, 32)
	if err != nil {
		return 0, fmt.Errorf("constant_id %q: %w", s, err)
	}
	return uint32(id), nil
}

// constantDecl reads "const TYPE NAME = value;" from toks[i:].
func constantDecl(toks []string, i int, id string) (Constant, int, error) {
	if i+2 >= len(toks) || toks[i] != "const" || !isIdent(toks[i+1]) || !isIdent(toks[i+2]) {
		return Constant{}, 0, fmt.Errorf("constant_id %s: want \"const TYPE NAME = value;\"", id)
	}
	n, err := constantID(id)
	if err != nil {
		return Constant{}, 0, err
	}
	c := Constant{ID: n, Field: Field{Type: toks[i+1], Name: toks[i+2]}}
	for end := i + 3; end < len(toks); end++ {
		if toks[end] == ";" {
			return c, end + 1, nil
		}
	}
	return Constant{}, 0, fmt.Errorf("constant %s without a closing semicolon", c.Name)
}

// pushBlock reads "uniform NAME { members } [instance];" from toks[i:].
// A member is "TYPE NAME[, NAME...];", a name perhaps with an array size
// (kept in the name: "x[4]"), perhaps after its own layout(...).
func pushBlock(toks []string, i int) ([]Field, int, error) {
	if i+2 >= len(toks) || toks[i] != "uniform" || !isIdent(toks[i+1]) || toks[i+2] != "{" {
		return nil, 0, fmt.Errorf("push_constant: want \"uniform NAME { ... }\"")
	}
	var fields []Field
	for i += 3; i < len(toks); {
		switch {
		case toks[i] == "}":
			for end := i + 1; end < len(toks); end++ {
				if toks[end] == ";" {
					return fields, end + 1, nil
				}
			}
			return nil, 0, fmt.Errorf("push_constant block without a closing semicolon")
		case toks[i] == "layout":
			_, next, err := qualifiers(toks, i+1)
			if err != nil {
				return nil, 0, err
			}
			i = next
			continue
		}
		member, next, err := memberDecl(toks, i)
		if err != nil {
			return nil, 0, err
		}
		fields, i = append(fields, member...), next
	}
	return nil, 0, fmt.Errorf("push_constant block without a closing brace")
}

// memberDecl reads "TYPE NAME[, NAME...];" from toks[i:].
func memberDecl(toks []string, i int) ([]Field, int, error) {
	if !isIdent(toks[i]) {
		return nil, 0, fmt.Errorf("push_constant member: unexpected %q", toks[i])
	}
	typ := toks[i]
	var fields []Field
	for i++; i < len(toks); i++ {
		if !isIdent(toks[i]) {
			return nil, 0, fmt.Errorf("push_constant member of type %s: unexpected %q", typ, toks[i])
		}
		name := toks[i]
		if i+3 < len(toks) && toks[i+1] == "[" && toks[i+3] == "]" {
			name += "[" + toks[i+2] + "]"
			i += 3
		}
		fields = append(fields, Field{Type: typ, Name: name})
		switch {
		case i+1 < len(toks) && toks[i+1] == ";":
			return fields, i + 2, nil
		case i+1 < len(toks) && toks[i+1] == ",":
			i++
		default:
			return nil, 0, fmt.Errorf("push_constant member %s: want \";\" or \",\"", name)
		}
	}
	return nil, 0, fmt.Errorf("push_constant member of type %s without a closing semicolon", typ)
}

func isIdent(s string) bool {
	return s != "" && (unicode.IsLetter(rune(s[0])) || s[0] == '_')
}

// tokens splits src into identifiers and numbers (letters, digits, '_' and
// '.') and single punctuation characters.
func tokens(src string) []string {
	var out []string
	word := func(r rune) bool { return r == '_' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	for i := 0; i < len(src); {
		r := rune(src[i])
		switch {
		case unicode.IsSpace(r):
			i++
		case word(r):
			j := i
			for j < len(src) && word(rune(src[j])) {
				j++
			}
			out = append(out, src[i:j])
			i = j
		default:
			out = append(out, src[i:i+1])
			i++
		}
	}
	return out
}

// stripComments replaces // and /* */ comments with spaces, keeping the
// line breaks.
func stripComments(src string) string {
	b := []byte(src)
	for i := 0; i+1 < len(b); i++ {
		switch {
		case b[i] == '/' && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case b[i] == '/' && b[i+1] == '*':
			stop := len(b) // an unterminated comment runs to the end
			if end := strings.Index(src[i+2:], "*/"); end >= 0 {
				stop = i + 2 + end + 2
			}
			for j := i; j < stop; j++ {
				if b[j] != '\n' {
					b[j] = ' '
				}
			}
			i = stop - 1
		}
	}
	return string(b)
}

// preprocess appends name's lines to out, following its #include
// directives and leaving out what its conditionals exclude; defined holds
// the names #define has defined so far.
func preprocess(fsys fs.FS, name string, defined map[string]bool, depth int, out *strings.Builder) error {
	if depth > maxIncludeDepth {
		return fmt.Errorf("glslblock: %s: includes nested more than %d deep", name, maxIncludeDepth)
	}
	raw, err := fs.ReadFile(fsys, name)
	if err != nil {
		return fmt.Errorf("glslblock: %w", err)
	}
	// active[k]: the lines are kept at conditional depth k; taken[k]: the
	// condition at depth k held (for #else).
	active, taken := []bool{true}, []bool{true}
	for n, line := range strings.Split(stripComments(string(raw)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], "#") {
			if active[len(active)-1] {
				out.WriteString(line)
				out.WriteByte('\n')
			}
			continue
		}
		where := fmt.Sprintf("glslblock: %s:%d", name, n+1)
		directive, args := strings.TrimPrefix(fields[0], "#"), fields[1:]
		if directive == "" && len(args) > 0 { // "# define X"
			directive, args = args[0], args[1:]
		}
		on := active[len(active)-1]
		switch directive {
		case "ifdef", "ifndef":
			if len(args) == 0 {
				return fmt.Errorf("%s: #%s without a name", where, directive)
			}
			cond := defined[args[0]] == (directive == "ifdef")
			active, taken = append(active, on && cond), append(taken, cond)
		case "else":
			if len(active) == 1 {
				return fmt.Errorf("%s: #else without #ifdef", where)
			}
			k := len(active) - 1
			active[k] = active[k-1] && !taken[k]
		case "endif":
			if len(active) == 1 {
				return fmt.Errorf("%s: #endif without #ifdef", where)
			}
			active, taken = active[:len(active)-1], taken[:len(taken)-1]
		case "if", "elif":
			return fmt.Errorf("%s: #%s is not supported (only #ifdef, #ifndef, #else)", where, directive)
		case "define", "undef":
			if on && len(args) > 0 {
				defined[args[0]] = directive == "define"
			}
		case "include":
			if !on {
				continue
			}
			if len(args) != 1 || len(args[0]) < 2 || args[0][0] != '"' || args[0][len(args[0])-1] != '"' {
				return fmt.Errorf("%s: want #include \"file\"", where)
			}
			if err := preprocess(fsys, path.Join(path.Dir(name), args[0][1:len(args[0])-1]), defined, depth+1, out); err != nil {
				return err
			}
		}
	}
	if len(active) != 1 {
		return fmt.Errorf("glslblock: %s: #ifdef without #endif", name)
	}
	return nil
}
