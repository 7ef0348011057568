package coord

import "strconv"

// clip quotes a caller's text for an error message, cut to 64 bytes: a
// hostile id neither drives a terminal nor grows the answer.
func clip(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strconv.QuoteToASCII(s)
}
