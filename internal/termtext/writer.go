package termtext

import (
	"fmt"
	"io"
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
// C1, bidi and invisible characters) can only stand inside a string, where
// \uXXXX means the same character. In a table the operator sees what the
// text held instead of having the terminal act on it.
type Writer struct {
	w io.Writer
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
	buf := p
	if len(w.pending) > 0 {
		buf = append(append([]byte(nil), w.pending...), p...) // rare: a split sequence
		w.pending = w.pending[:0]
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
			out = fmt.Appendf(out, `\u%04x`, r)
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
