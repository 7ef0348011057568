package confirm

import (
	"fmt"
	"path"
	"strings"
)

// glob is a compiled workspace path pattern: its '/'-separated segments.
// A segment is a path.Match pattern, or "**", which matches any number of
// whole segments — zero or more in the middle or at the start ("**/.env"
// matches ".env"), one or more at the end ("memory/**" matches everything
// under memory/ but not a file named "memory" itself).
type glob []segment

// segKind is how a compiled segment matches, fastest first: most patterns
// are literals, "*", "*.ext" or "name*", which need no path.Match.
type segKind uint8

const (
	segLiteral segKind = iota
	segAny
	segSuffix
	segPrefix
	segContains
	segPattern
	segDeep
)

// segment is one compiled pattern segment.
type segment struct {
	kind segKind
	// text is the literal, the suffix or prefix without '*', or the pattern.
	text string
}

func compileSegment(s string) segment {
	const meta = `*?[\`
	switch {
	case s == "**":
		return segment{kind: segDeep}
	case s == "*":
		return segment{kind: segAny}
	case !strings.ContainsAny(s, meta):
		return segment{kind: segLiteral, text: s}
	case s[0] == '*' && !strings.ContainsAny(s[1:], meta):
		return segment{kind: segSuffix, text: s[1:]}
	case s[len(s)-1] == '*' && !strings.ContainsAny(s[:len(s)-1], meta):
		return segment{kind: segPrefix, text: s[:len(s)-1]}
	case len(s) > 2 && s[0] == '*' && s[len(s)-1] == '*' && !strings.ContainsAny(s[1:len(s)-1], meta):
		return segment{kind: segContains, text: s[1 : len(s)-1]}
	}
	return segment{kind: segPattern, text: s}
}

func (s segment) match(name string) bool {
	switch s.kind {
	case segLiteral:
		return name == s.text
	case segAny:
		return true
	case segSuffix:
		return strings.HasSuffix(name, s.text)
	case segPrefix:
		return strings.HasPrefix(name, s.text)
	case segContains:
		return strings.Contains(name, s.text)
	}
	ok, _ := path.Match(s.text, name) // checked when compiled
	return ok
}

// compileGlob checks a pattern once, when a Policy is built, so that
// matching never meets a bad pattern.
func compileGlob(p string) (glob, error) {
	if p == "" || p[0] == '/' || strings.ContainsRune(p, '\\') {
		return nil, fmt.Errorf("mutable path %q: patterns are workspace-relative with '/': %w", p, path.ErrBadPattern)
	}
	var g glob
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return nil, fmt.Errorf("mutable path %q: empty, '.' or '..' segment: %w", p, path.ErrBadPattern)
		}
		if _, err := path.Match(seg, ""); err != nil {
			return nil, fmt.Errorf("mutable path %q: %w", p, err)
		}
		g = append(g, compileSegment(seg))
	}
	return g, nil
}

// match reports whether the normalized path p matches. It does not allocate.
func (g glob) match(p string) bool {
	for len(g) > 0 {
		if g[0].kind == segDeep {
			if len(g) == 1 {
				return p != ""
			}
			for {
				if g[1:].match(p) {
					return true
				}
				i := strings.IndexByte(p, '/')
				if i < 0 {
					return false
				}
				p = p[i+1:]
			}
		}
		if p == "" {
			return false
		}
		seg, rest := p, ""
		if i := strings.IndexByte(p, '/'); i >= 0 {
			seg, rest = p[:i], p[i+1:]
		}
		if !g[0].match(seg) {
			return false
		}
		g, p = g[1:], rest
	}
	return p == ""
}

// globSet is a set of compiled patterns. The common "anywhere" shapes —
// "**/NAME" (the last segment) and "**/NAME/**" (a directory on the way) —
// are checked in one walk over the path's segments, whatever their number;
// the rest are matched one by one. Each remembers its pattern's index, so a
// match can say which pattern it was.
type globSet struct {
	last  []indexed[segment]
	dir   []indexed[segment]
	globs []indexed[glob]
}

type indexed[T any] struct {
	of T
	i  int
}

func compileGlobs(patterns []string) (globSet, error) {
	var out globSet
	for i, p := range patterns {
		g, err := compileGlob(p)
		if err != nil {
			return globSet{}, err
		}
		switch {
		case len(g) == 2 && g[0].kind == segDeep && g[1].kind != segDeep:
			out.last = append(out.last, indexed[segment]{g[1], i})
		case len(g) == 3 && g[0].kind == segDeep && g[1].kind != segDeep && g[2].kind == segDeep:
			out.dir = append(out.dir, indexed[segment]{g[1], i})
		default:
			out.globs = append(out.globs, indexed[glob]{g, i})
		}
	}
	return out, nil
}

func (s globSet) match(p string) bool {
	_, ok := s.matchIndex(p)
	return ok
}

// matchIndex reports the index of a pattern p matches: a directory on the
// way first, then the last segment, then the others in order.
func (s globSet) matchIndex(p string) (int, bool) {
	if len(s.last)+len(s.dir) > 0 {
		for rest := p; ; {
			i := strings.IndexByte(rest, '/')
			if i < 0 {
				if j, ok := anyMatch(s.last, rest); ok {
					return j, true
				}
				break
			}
			if j, ok := anyMatch(s.dir, rest[:i]); ok {
				return j, true
			}
			rest = rest[i+1:]
		}
	}
	for _, g := range s.globs {
		if g.of.match(p) {
			return g.i, true
		}
	}
	return 0, false
}

func anyMatch(segs []indexed[segment], name string) (int, bool) {
	for _, s := range segs {
		if s.of.match(name) {
			return s.i, true
		}
	}
	return 0, false
}
