package ui

import (
	"strconv"
	"strings"
	"time"
)

// age renders a duration the way a glance wants it: "42s", "5m", "3h", "2d".
func age(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + age(-d)
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d"
}

// since renders the age of t at now, "—" for a zero time.
func since(now, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return age(now.Sub(t))
}

// stateGlyph marks a presence state so it reads without colour.
var stateGlyph = map[PresenceState]string{
	PresenceStanding: "◇",
	PresenceActive:   "●",
	PresenceIdle:     "◔",
	PresenceStale:    "◌",
	PresenceOffline:  "○",
	PresenceRetired:  "✕",
}

// stateCell is the presence column's text.
func stateCell(s PresenceState) string {
	if g, ok := stateGlyph[s]; ok {
		return g + " " + string(s)
	}
	if s == "" {
		return "? unknown"
	}
	return "? " + string(s)
}

// appendLower appends the fields lowercased and separated by a NUL (so a
// filter never matches across two fields) to dst.
func appendLower(dst []byte, fields ...string) []byte {
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, 0)
		}
		ascii := true
		for j := 0; j < len(f); j++ {
			if f[j] >= 0x80 {
				ascii = false
				break
			}
		}
		if !ascii {
			dst = append(dst, strings.ToLower(f)...)
			continue
		}
		for j := 0; j < len(f); j++ {
			c := f[j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
		}
	}
	return dst
}
