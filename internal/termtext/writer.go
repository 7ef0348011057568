package termtext

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Writer passes text to a terminal (or a pipe that ends at one) with every
// unsafe character written as a visible \uXXXX escape and every byte of
// invalid UTF-8 as \xNN; line feeds and tabs pass, since command output is
// laid out with them. Everything a command prints goes through one Writer,
// so no stored text can reach a terminal raw, whichever code path printed it.
//
// The escape keeps JSON output valid and lossless: encoding/json already
// escapes C0 controls, and the only unsafe characters it leaves raw (DEL,
// C1, format, bidi and invisible characters) can only stand inside a
// string, where \uXXXX (a surrogate pair above U+FFFF) means the same
// character. In a table the operator sees what the
// text held instead of having the terminal act on it.
//
// A Writer is safe for concurrent use: a command's own output and the
// logs of the hub it runs share one (serve), and a split sequence held
// for the next Write must not meet another goroutine's bytes.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
	// pending holds the first bytes of a UTF-8 sequence split across two
	// Write calls.
	pending []byte
	out     []byte
}

// NewWriter returns a Writer onto w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p, escaped, and reports len(p) on success: the caller's bytes
// were all consumed even though more were written.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := p
	if len(w.pending) > 0 {
		buf = append(append([]byte(nil), w.pending...), p...) // rare: a split sequence
		w.pending = w.pending[:0]
	} else if n := safePrefix(p); n > 0 {
		// The common case — a command's own words, the JSON of clean
		// records — has nothing to escape: up to the first byte that
		// needs it, p is written as it is, not copied.
		if _, err := w.w.Write(p[:n]); err != nil {
			return 0, err
		}
		if n == len(p) {
			return len(p), nil
		}
		buf = p[n:]
	}
	out := w.out[:0]
	for i := 0; i < len(buf); {
		c := buf[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(buf[i:])
		if r == utf8.RuneError && n <= 1 {
			if !utf8.FullRune(buf[i:]) {
				w.pending = append(w.pending, buf[i:]...) // the rest comes in the next Write
				break
			}
			out = fmt.Appendf(out, `\x%02x`, c)
			i++
			continue
		}
		if Unsafe(r) {
			out = appendEscape(out, r)
		} else {
			out = append(out, buf[i:i+n]...)
		}
		i += n
	}
	w.out = out
	if _, err := w.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// appendEscape appends r as JSON writes it escaped: \uXXXX, or for a
// character above U+FFFF (the Tag block, the supplementary variation
// selectors) its UTF-16 surrogate pair, since "\ue0041" would read as
// U+E004 followed by "1".
func appendEscape(out []byte, r rune) []byte {
	if r > 0xffff {
		hi, lo := utf16.EncodeRune(r)
		return fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
	}
	return fmt.Appendf(out, `\u%04x`, r)
}

// safePrefix is the length of the start of p that Write writes as it is:
// printable ASCII, line feeds, tabs and complete UTF-8 sequences of safe
// characters. Printable ASCII is checked eight bytes at a time: a
// 10,000-persona list is 7 MB.
func safePrefix(p []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for i := 0; i < len(p); {
		if len(p)-i >= 8 {
			x := binary.LittleEndian.Uint64(p[i:])
			// No byte below 0x20, none above 0x7e (0x7f and up reach the
			// high bit when one is added).
			if (x-0x20*ones)&^x&highs == 0 && (x+ones|x)&highs == 0 {
				i += 8
				continue
			}
		}
		c := p[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			continue
		}
		r, n := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && n <= 1 || Unsafe(r) {
			return i
		}
		i += n
	}
	return len(p)
}

// Flush writes a UTF-8 sequence left incomplete by the last Write, escaped
// byte by byte: at the end of the output it can no longer be completed.
func (w *Writer) Flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	var out []byte
	for _, c := range w.pending {
		out = fmt.Appendf(out, `\x%02x`, c)
	}
	w.pending = w.pending[:0]
	_, err := w.w.Write(out)
	return err
}
