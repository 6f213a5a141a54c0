package npy

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// pyParser parses the subset of Python literals a .npy header uses: dicts
// with string keys, tuples, lists, strings without escapes, non-negative
// integers and True, False and None.
type pyParser struct {
	s string
	i int
}

// pyTuple and pyList are Python's tuple and list.
type (
	pyTuple []any
	pyList  []any
)

// pyMaxDepth bounds the nesting of containers.
const pyMaxDepth = 16

// skipSpace skips spaces, tabs and line ends.
func (p *pyParser) skipSpace() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

// value parses one literal at nesting depth.
func (p *pyParser) value(depth int) (any, error) {
	if depth > pyMaxDepth {
		return nil, errors.New("nested too deeply")
	}
	p.skipSpace()
	if p.i == len(p.s) {
		return nil, errors.New("unexpected end of the header")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dict(depth)
	case c == '(' || c == '[':
		return p.sequence(depth)
	case c == '\'' || c == '"':
		end := strings.IndexByte(p.s[p.i+1:], c)
		if end < 0 {
			return nil, errors.New("unterminated string")
		}
		s := p.s[p.i+1 : p.i+1+end]
		if strings.ContainsAny(s, "\\\n") {
			return nil, fmt.Errorf("string %q: escapes are not supported", s)
		}
		p.i += end + 2
		return s, nil
	case c >= '0' && c <= '9':
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		n, err := strconv.ParseUint(p.s[p.i:j], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("integer %s is too large", p.s[p.i:j])
		}
		if j < len(p.s) && p.s[j] == 'L' { // Python 2 wrote long integers as 3L
			j++
		}
		p.i = j
		return n, nil
	}
	for _, w := range []struct {
		word string
		v    any
	}{{"True", true}, {"False", false}, {"None", nil}} {
		if strings.HasPrefix(p.s[p.i:], w.word) {
			p.i += len(w.word)
			return w.v, nil
		}
	}
	return nil, fmt.Errorf("unexpected %q", p.s[p.i:min(p.i+10, len(p.s))])
}

// dict parses {key: value, ...} with string keys, each at most once.
func (p *pyParser) dict(depth int) (any, error) {
	p.i++ // {
	d := map[string]any{}
	for {
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return d, nil
		}
		k, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		key, ok := k.(string)
		if !ok {
			return nil, errors.New("a dict key is not a string")
		}
		if _, dup := d[key]; dup {
			return nil, fmt.Errorf("key %q appears twice", key)
		}
		if p.skipSpace(); p.i == len(p.s) || p.s[p.i] != ':' {
			return nil, fmt.Errorf("no ':' after key %q", key)
		}
		p.i++
		if d[key], err = p.value(depth + 1); err != nil {
			return nil, err
		}
		if !p.separator('}') {
			return nil, errors.New("expected ',' or '}' in the dict")
		}
	}
}

// sequence parses a tuple (...) or a list [...]. A parenthesised value
// without a comma is that value, as in Python.
func (p *pyParser) sequence(depth int) (any, error) {
	open := p.s[p.i]
	closing := byte(')')
	if open == '[' {
		closing = ']'
	}
	p.i++
	var items []any
	comma := false
	for {
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == closing {
			p.i++
			switch {
			case open == '[':
				return pyList(items), nil
			case len(items) == 1 && !comma:
				return items[0], nil
			}
			return pyTuple(items), nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		if p.skipSpace(); p.i < len(p.s) && p.s[p.i] == ',' {
			comma = true
		}
		if !p.separator(closing) {
			return nil, fmt.Errorf("expected ',' or '%c'", closing)
		}
	}
}

// separator consumes a ',' after an item, or checks that closing follows
// (and leaves it for the caller).
func (p *pyParser) separator(closing byte) bool {
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == ',' {
		p.i++
		return true
	}
	return p.i < len(p.s) && p.s[p.i] == closing
}

// pyRepr writes a value of the header's Python literals as Python's repr
// does: strings in single quotes (double where they hold a single one;
// the parser takes no escapes, so no string holds both), tuples with the
// comma of one item, lists, integers, True, False and None.
func pyRepr(v any) string {
	switch v := v.(type) {
	case string:
		if strings.Contains(v, "'") && !strings.Contains(v, `"`) {
			return `"` + v + `"`
		}
		return "'" + v + "'"
	case uint64:
		return strconv.FormatUint(v, 10)
	case bool:
		if v {
			return "True"
		}
		return "False"
	case nil:
		return "None"
	case pyTuple:
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = pyRepr(x)
		}
		if len(v) == 1 {
			return "(" + s[0] + ",)"
		}
		return "(" + strings.Join(s, ", ") + ")"
	case pyList:
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = pyRepr(x)
		}
		return "[" + strings.Join(s, ", ") + "]"
	case map[string]any:
		return "{...}" // not in a dtype
	}
	return fmt.Sprint(v)
}

// Quote writes s as Python's repr writes a string, as NumPy's headers and
// messages about them show names and dtypes: 'x', or "it's".
func Quote(s string) string { return pyRepr(s) }
