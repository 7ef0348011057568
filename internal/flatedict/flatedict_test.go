package flatedict

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
)

var testDict = []byte(`{"name": "workspace_read", "handler_action": "workspace.read", "access": "allow", "scope": "own-workspace"}`)

// A text like the dictionary packs to a few bytes and expands to itself,
// from many goroutines at once (one writer taken in turn, readers reused).
func TestPackExpandsToItself(t *testing.T) {
	c := New(7, testDict, 1<<10)
	text := []byte(`{"name": "workspace_write", "handler_action": "workspace.write", "access": "confirm", "scope": "own-workspace"}`)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				z := c.Pack(text)
				if z == nil || z[0] != 7 || len(z) > len(text)/2 {
					t.Errorf("packed %d bytes to %d (%v)", len(text), len(z), z[:min(len(z), 1)])
					return
				}
				got, err := c.Unpack(z)
				if err != nil || !bytes.Equal(got, text) {
					t.Errorf("expanded to %q, %v", got, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// Pack declines what it cannot store smaller or may not expand: the caller
// keeps the text as it is.
func TestPackDeclines(t *testing.T) {
	c := New(1, testDict, 64)
	if z := c.Pack([]byte("x")); z != nil {
		t.Errorf("a one-byte text packed to %d bytes", len(z))
	}
	if z := c.Pack(bytes.Repeat([]byte("a"), 65)); z != nil {
		t.Errorf("a text past the bound packed to %d bytes", len(z))
	}
}

// Unpack is given stored bytes, which may be anything: a wrong format, a
// broken stream and a bomb are named errors, and a bomb is read only to its
// bound.
func TestUnpackRefusesDamage(t *testing.T) {
	c := New(1, testDict, 4<<10)
	big := New(1, testDict, 64<<20)
	bomb := big.Pack(make([]byte, 64<<20))
	good := c.Pack(bytes.Repeat(testDict, 3))
	for _, tc := range []struct {
		name string
		z    []byte
		want error
		says string
	}{
		{"empty", nil, ErrDamaged, "format []"},
		{"other format", append([]byte{2}, good[1:]...), ErrDamaged, "want 1"},
		{"truncated", good[:len(good)/2], ErrDamaged, "unexpected EOF"},
		{"format only", []byte{1}, ErrDamaged, "unexpected EOF"},
		{"bomb", bomb, ErrTooLarge, "more than 4096 bytes"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := c.Unpack(tc.z)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v; want %v saying %q", tc.name, err, tc.want, tc.says)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("%s: expanding allocated %d bytes; the bound is 4 KiB", tc.name, grew)
		}
	}
}
