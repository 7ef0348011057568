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
	segPrefixSuffix
	segPattern
	segDeep
)

// segment is one compiled pattern segment.
type segment struct {
	kind segKind
	// text is the literal, the suffix or prefix without '*', or the pattern;
	// with segPrefixSuffix the prefix, and suffix the suffix.
	text, suffix string
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
	case strings.Count(s, "*") == 1 && !strings.ContainsAny(strings.Replace(s, "*", "", 1), meta):
		pre, suf, _ := strings.Cut(s, "*")
		return segment{kind: segPrefixSuffix, text: pre, suffix: suf}
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
	case segPrefixSuffix:
		return len(name) >= len(s.text)+len(s.suffix) && strings.HasPrefix(name, s.text) && strings.HasSuffix(name, s.suffix)
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
// "**/NAME" (the last segment), "**/DIR/NAME" (the last two) and
// "**/NAME/**" (a directory on the way) — are checked in one walk over the
// path's segments, whatever their number; the rest are matched one by one.
// A last segment that is a literal ("**/.env") or an extension
// ("**/*.pem") is found by one map lookup. Each remembers its pattern's
// index, so a match can say which it was.
type globSet struct {
	lastName map[string]int
	lastExt  map[string]int
	last     []indexed[segment]
	pair     []indexed[[2]segment]
	dir      []indexed[segment]
	globs    []indexed[glob]
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
		deep := func(j int) bool { return g[j].kind == segDeep }
		switch {
		case len(g) == 2 && deep(0) && g[1].kind == segLiteral:
			out.lastName = setFirst(out.lastName, g[1].text, i)
		case len(g) == 2 && deep(0) && g[1].kind == segSuffix && strings.LastIndexByte(g[1].text, '.') == 0:
			out.lastExt = setFirst(out.lastExt, g[1].text, i)
		case len(g) == 2 && deep(0) && !deep(1):
			out.last = append(out.last, indexed[segment]{g[1], i})
		case len(g) == 3 && deep(0) && !deep(1) && !deep(2):
			out.pair = append(out.pair, indexed[[2]segment]{[2]segment{g[1], g[2]}, i})
		case len(g) == 3 && deep(0) && !deep(1) && deep(2):
			out.dir = append(out.dir, indexed[segment]{g[1], i})
		default:
			out.globs = append(out.globs, indexed[glob]{g, i})
		}
	}
	return out, nil
}

// setFirst maps k to i unless it maps to an earlier pattern already.
func setFirst(m map[string]int, k string, i int) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	if _, ok := m[k]; !ok {
		m[k] = i
	}
	return m
}

// match reports whether p matches any pattern. It does not allocate.
func (s globSet) match(p string) bool {
	found := false
	s.each(p, func(int) bool { found = true; return true })
	return found
}

// firstIndex reports the lowest index of a pattern p matches, so that the
// order of the patterns is their precedence. It does not allocate.
func (s globSet) firstIndex(p string) (int, bool) {
	best := -1
	s.each(p, func(i int) bool {
		if best < 0 || i < best {
			best = i
		}
		return false
	})
	return best, best >= 0
}

// each calls hit with the index of every pattern p matches (some more than
// once) until hit returns true.
func (s globSet) each(p string, hit func(i int) bool) {
	if len(s.lastName)+len(s.lastExt)+len(s.last)+len(s.pair)+len(s.dir) > 0 {
		prev := ""
		for rest := p; ; {
			i := strings.IndexByte(rest, '/')
			if i < 0 {
				if j, ok := s.lastName[rest]; ok && hit(j) {
					return
				}
				if dot := strings.LastIndexByte(rest, '.'); dot >= 0 {
					if j, ok := s.lastExt[rest[dot:]]; ok && hit(j) {
						return
					}
				}
				for _, l := range s.last {
					if l.of.match(rest) && hit(l.i) {
						return
					}
				}
				for _, pr := range s.pair {
					if prev != "" && pr.of[1].match(rest) && pr.of[0].match(prev) && hit(pr.i) {
						return
					}
				}
				break
			}
			prev = rest[:i]
			for _, d := range s.dir {
				if d.of.match(prev) && hit(d.i) {
					return
				}
			}
			rest = rest[i+1:]
		}
	}
	for _, g := range s.globs {
		if g.of.match(p) && hit(g.i) {
			return
		}
	}
}

// PathSet is a compiled set of workspace path patterns, such as a stamp's
// mutable paths, matched exactly as Authorize matches them. A persona
// runtime's write executor checks it again at the file (internal/workspace).
type PathSet struct{ set globSet }

// CompilePaths compiles workspace path patterns ("QUEUE.md", "memory/**");
// a bad pattern is refused with path.ErrBadPattern, naming it.
func CompilePaths(patterns []string) (PathSet, error) {
	s, err := compileGlobs(patterns)
	return PathSet{s}, err
}

// Match reports whether the normalized workspace path p matches a pattern.
func (s PathSet) Match(p string) bool { return s.set.match(p) }
