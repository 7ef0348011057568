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
type glob []string

// compileGlob checks a pattern once, when a Policy is built, so that
// matching never meets a bad pattern.
func compileGlob(p string) (glob, error) {
	if p == "" || p[0] == '/' || strings.ContainsRune(p, '\\') {
		return nil, fmt.Errorf("mutable path %q: patterns are workspace-relative with '/': %w", p, path.ErrBadPattern)
	}
	g := glob(strings.Split(p, "/"))
	for _, seg := range g {
		if seg == "" || seg == "." || seg == ".." {
			return nil, fmt.Errorf("mutable path %q: empty, '.' or '..' segment: %w", p, path.ErrBadPattern)
		}
		if _, err := path.Match(seg, ""); err != nil {
			return nil, fmt.Errorf("mutable path %q: %w", p, err)
		}
	}
	return g, nil
}

// match reports whether the normalized path p matches. It does not allocate.
func (g glob) match(p string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
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
		if ok, _ := path.Match(g[0], seg); !ok {
			return false
		}
		g, p = g[1:], rest
	}
	return p == ""
}

// globSet is a list of compiled patterns.
type globSet []glob

func compileGlobs(patterns []string) (globSet, error) {
	out := make(globSet, 0, len(patterns))
	for _, p := range patterns {
		g, err := compileGlob(p)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

func (s globSet) match(p string) bool {
	for _, g := range s {
		if g.match(p) {
			return true
		}
	}
	return false
}
