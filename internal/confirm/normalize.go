package confirm

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// MaxTargetLen bounds every target's text, so a target is never a payload.
const MaxTargetLen = 1024

// MaxIDLen bounds a task, run, workspace or surface id.
const MaxIDLen = 128

// lookAlikes names the non-ASCII characters most used to pass a path or an
// address off as something else; the refusal then says what it imitates.
var lookAlikes = map[rune]string{
	'\uFF0F': "FULLWIDTH SOLIDUS, looks like '/'",
	'\u2215': "DIVISION SLASH, looks like '/'",
	'\u2044': "FRACTION SLASH, looks like '/'",
	'\u29F8': "BIG SOLIDUS, looks like '/'",
	'\uFF3C': "FULLWIDTH REVERSE SOLIDUS, looks like '\\'",
	'\u2216': "SET MINUS, looks like '\\'",
	'\u2024': "ONE DOT LEADER, looks like '.'",
	'\u2025': "TWO DOT LEADER, looks like '..'",
	'\uFF0E': "FULLWIDTH FULL STOP, looks like '.'",
	'\uFE52': "SMALL FULL STOP, looks like '.'",
	'\u3002': "IDEOGRAPHIC FULL STOP, looks like '.'",
	'\u200B': "ZERO WIDTH SPACE, invisible",
	'\u200C': "ZERO WIDTH NON-JOINER, invisible",
	'\u200D': "ZERO WIDTH JOINER, invisible",
	'\u2060': "WORD JOINER, invisible",
	'\uFEFF': "ZERO WIDTH NO-BREAK SPACE, invisible",
	'\u00A0': "NO-BREAK SPACE, looks like ' '",
	'\u0430': "CYRILLIC SMALL LETTER A, looks like 'a'",
	'\u0435': "CYRILLIC SMALL LETTER IE, looks like 'e'",
	'\u043E': "CYRILLIC SMALL LETTER O, looks like 'o'",
	'\u0131': "LATIN SMALL LETTER DOTLESS I, looks like 'i'",
}

// refuseTarget wraps a named error with the target and a detail.
func refuseTarget(s string, err error, detail string) error {
	if detail == "" {
		return fmt.Errorf("target %q: %w", s, err)
	}
	return fmt.Errorf("target %q: %s: %w", s, detail, err)
}

// checkBytes refuses what no target kind may hold: nothing at all, too
// much, invalid UTF-8, non-ASCII (named when it is a known look-alike) and
// control characters including NUL.
func checkBytes(s string) error {
	if s == "" {
		return refuseTarget(s, ErrEmptyTarget, "")
	}
	if len(s) > MaxTargetLen {
		return refuseTarget(s[:32]+"…", ErrTargetTooLong, fmt.Sprintf("%d bytes, at most %d", len(s), MaxTargetLen))
	}
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			return refuseTarget(s, ErrNonASCII, fmt.Sprintf("invalid UTF-8 at byte %d", i))
		case r >= 0x80:
			detail := fmt.Sprintf("U+%04X at byte %d", r, i)
			if name, ok := lookAlikes[r]; ok {
				detail += " (" + name + ")"
			}
			return refuseTarget(s, ErrNonASCII, detail)
		case r < 0x20 || r == 0x7f:
			return refuseTarget(s, ErrControlChar, fmt.Sprintf("byte 0x%02x at %d", r, i))
		}
	}
	return nil
}

// NormalizePath cleans a workspace-relative path lexically, or refuses it.
// Refused (with the named error): absolute, drive-letter and home-relative
// paths; '..' and dot-only segments anywhere (even when they would resolve
// inside: a path that needs climbing is a trick, not a request); backslashes;
// NUL and control characters; percent-encoded characters; any non-ASCII.
// Resolved: '.' segments, repeated and trailing slashes. Case is kept: a
// case variant matches the stamp's mutable paths only exactly, so for a
// grant it can only fail to match, never widen; the deny lists (secret and
// authority paths) are matched case-insensitively instead, since on a
// case-insensitive file system a variant names the very file they refuse.
func NormalizePath(p string) (string, error) {
	if err := checkBytes(p); err != nil {
		return "", err
	}
	switch {
	case strings.ContainsRune(p, '\\'):
		return "", refuseTarget(p, ErrBackslash, "")
	case strings.ContainsRune(p, '%'):
		return "", refuseTarget(p, ErrPercentEncoded, "")
	case p[0] == '/':
		return "", refuseTarget(p, ErrAbsolutePath, "")
	}
	var b strings.Builder
	for seg := range strings.SplitSeq(p, "/") {
		switch {
		case seg == "" || seg == ".":
			continue
		case strings.Trim(seg, ".") == "":
			return "", refuseTarget(p, ErrDotDot, "segment "+seg)
		}
		if b.Len() > 0 {
			b.WriteByte('/')
		}
		b.WriteString(seg)
	}
	// The home and drive-letter forms are judged on the normalized path:
	// "./~" must not pass as a file and come out as "~", which then reads
	// as the home directory (and "./c:x" as a drive).
	out := b.String()
	switch {
	case out == "":
		return "", refuseTarget(p, ErrEmptyTarget, "names the workspace root itself")
	case out[0] == '~':
		return "", refuseTarget(p, ErrAbsolutePath, "'~' is not expanded")
	case len(out) >= 2 && out[1] == ':' && isLetter(out[0]):
		return "", refuseTarget(p, ErrAbsolutePath, "drive letter")
	}
	return out, nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// NormalizePathOnDisk normalizes p lexically, then resolves it against the
// workspace directory rootDir on disk: every symbolic link on the existing
// prefix is followed, and a path that then leaves the workspace (or passes a
// dangling link, which could be created anywhere) is refused with
// ErrSymlinkEscape. It returns the path where the operation really lands,
// relative to the root, so that scope checks apply to the real place.
func NormalizePathOnDisk(rootDir, p string) (string, error) {
	rel, err := NormalizePath(p)
	if err != nil {
		return "", err
	}
	root, err := filepath.EvalSymlinks(rootDir)
	if err != nil {
		return "", fmt.Errorf("workspace root %s: %w", rootDir, err)
	}
	return resolveBelow(root, rel, p)
}

// NormalizePathBelow is NormalizePathOnDisk under a root whose own links
// are already resolved (filepath.EvalSymlinks, once, when a tree is
// opened): resolving the root's every ancestor again on each call is most
// of the cost of a resolution.
func NormalizePathBelow(realRoot, p string) (string, error) {
	rel, err := NormalizePath(p)
	if err != nil {
		return "", err
	}
	return resolveBelow(realRoot, rel, p)
}

// resolveBelow follows the links on rel's existing prefix under root (its
// own links resolved); p is the path as given, for the refusals.
func resolveBelow(root, rel, p string) (string, error) {
	at := root
	segs := strings.Split(rel, "/")
	for i, seg := range segs {
		next := filepath.Join(at, seg)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			at = filepath.Join(append([]string{at}, segs[i:]...)...)
			break
		}
		if err != nil {
			return "", fmt.Errorf("target %q: %w", p, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			real, err := filepath.EvalSymlinks(next)
			if err != nil {
				return "", refuseTarget(p, ErrSymlinkEscape, "dangling link "+strings.Join(segs[:i+1], "/"))
			}
			next = real
		}
		if !within(root, next) {
			return "", refuseTarget(p, ErrSymlinkEscape, "via "+strings.Join(segs[:i+1], "/"))
		}
		at = next
	}
	out, err := filepath.Rel(root, at)
	if err != nil || !within(root, at) {
		return "", refuseTarget(p, ErrSymlinkEscape, "")
	}
	return NormalizePath(filepath.ToSlash(out))
}

func within(root, p string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

// NormalizeAddress accepts exactly a canonical persona address. Upper case
// is refused, not folded: addresses are case-sensitive transport names, so
// "Work/Core/Lead" must not reach work/core/lead's seat.
func NormalizeAddress(s string) (string, error) {
	if err := checkBytes(s); err != nil {
		return "", err
	}
	if strings.ToLower(s) != s {
		return "", refuseTarget(s, ErrUpperCase, "use "+strings.ToLower(s))
	}
	a, err := registry.ParseAddress(s)
	if err != nil {
		return "", refuseTarget(s, ErrTargetSyntax, err.Error())
	}
	return a.String(), nil
}

// NormalizeID accepts a task, run, workspace or surface id: lowercase ASCII
// letters, digits, '.', '_' and '-', starting with a letter or digit, at
// most MaxIDLen bytes, not dot-only.
func NormalizeID(s string) (string, error) {
	if err := checkBytes(s); err != nil {
		return "", err
	}
	if len(s) > MaxIDLen {
		return "", refuseTarget(s, ErrTargetTooLong, fmt.Sprintf("ids are at most %d bytes", MaxIDLen))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
		case c >= 'A' && c <= 'Z':
			return "", refuseTarget(s, ErrUpperCase, "use "+strings.ToLower(s))
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return "", refuseTarget(s, ErrTargetSyntax, fmt.Sprintf("ids use a-z, 0-9, '.', '_' and '-'; byte %d is %q", i, c))
		}
	}
	return s, nil
}

// NormalizeSurface accepts "surface/target": the surface an id, the target
// as the stamp's binding spells it (ASCII letters, digits, '.', '_', ':',
// '@', '-'; matched exactly, so a case variant only fails to match).
func NormalizeSurface(s string) (string, error) {
	surface, target, ok := strings.Cut(s, "/")
	if !ok {
		return "", refuseTarget(s, ErrTargetSyntax, "want surface/target")
	}
	if _, err := NormalizeID(surface); err != nil {
		return "", err
	}
	if err := checkBytes(target); err != nil {
		return "", err
	}
	for i := 0; i < len(target); i++ {
		c := target[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._:@-", c) >= 0) {
			return "", refuseTarget(s, ErrTargetSyntax, fmt.Sprintf("surface target byte %d is %q", i, c))
		}
	}
	return s, nil
}

// NormalizeDestination accepts an external https URL: no credentials in it,
// an ASCII host (internationalized hosts must arrive in punycode, so a
// homograph is visible), no '..' or encoded dot or slash in its path. The
// scheme and host are case-insensitive, so they are lower-cased.
func NormalizeDestination(s string) (string, error) {
	if err := checkBytes(s); err != nil {
		return "", err
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", refuseTarget(s, ErrTargetSyntax, err.Error())
	}
	switch {
	case strings.ToLower(u.Scheme) != "https":
		return "", refuseTarget(s, ErrTargetSyntax, "external destinations are https URLs")
	case u.User != nil:
		return "", refuseTarget(s, ErrTargetSyntax, "credentials in a URL are refused")
	case u.Host == "" || u.Opaque != "":
		return "", refuseTarget(s, ErrTargetSyntax, "no host")
	case strings.ContainsRune(u.EscapedPath(), '\\'):
		return "", refuseTarget(s, ErrBackslash, "")
	}
	lowerPath := strings.ToLower(u.EscapedPath())
	for _, enc := range []string{"%2e", "%2f", "%5c", "%00"} {
		if strings.Contains(lowerPath, enc) {
			return "", refuseTarget(s, ErrPercentEncoded, enc)
		}
	}
	for seg := range strings.SplitSeq(u.Path, "/") {
		if seg != "" && strings.Trim(seg, ".") == "" {
			return "", refuseTarget(s, ErrDotDot, "")
		}
	}
	u.Scheme = "https"
	u.Host = strings.ToLower(u.Host)
	u.Fragment = ""
	return u.String(), nil
}
