package hubapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// "Every API error code maps to exactly one named error;
// a test fails on a duplicate".
func TestEveryErrorCodeIsOneNamedError(t *testing.T) {
	codeForm := regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)
	byCode, byErr := map[string]error{}, map[error]string{}
	for _, m := range errorTable {
		if prev, dup := byCode[m.code]; dup {
			t.Errorf("code %q names two errors: %q and %q", m.code, prev, m.err)
		}
		if prev, dup := byErr[m.err]; dup {
			t.Errorf("error %q has two codes: %q and %q", m.err, prev, m.code)
		}
		byCode[m.code], byErr[m.err] = m.err, m.code
		if !codeForm.MatchString(m.code) {
			t.Errorf("code %q is not snake_case", m.code)
		}
		if m.status < 400 || m.status > 599 {
			t.Errorf("code %q has status %d, not an error", m.code, m.status)
		}
	}
}

// "errors.Is across the wire matches only its own error":
// each named error, wrapped with context, answered as JSON and read back as
// the client reads it, is that error and no other.
func TestErrorsIsAcrossTheWireMatchesOnlyItsOwnError(t *testing.T) {
	for _, m := range errorTable {
		b, err := json.Marshal(FromError(fmt.Errorf("POST /v1/something: %w", m.err)))
		if err != nil {
			t.Fatal(err)
		}
		var got APIError
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		for _, other := range errorTable {
			if is := errors.Is(&got, other.err); is != (other.err == m.err) {
				t.Errorf("%s answered as %s: errors.Is(_, %q) = %v", m.code, b, other.err, is)
			}
		}
	}
}

// Anything the table does not name is answered as ErrInternal, and Errorf
// keeps a named error's code with its own sentence.
func TestUnnamedErrorsAreInternalAndErrorfKeepsTheCode(t *testing.T) {
	if ae := FromError(errors.New("disk on fire")); !errors.Is(ae, ErrInternal) || ae.Status != 500 || ae.Msg != "disk on fire" {
		t.Fatalf("unnamed error answered as %+v", ae)
	}
	ae := Errorf(ErrBadQuery, "n=%q: want a count", "x")
	if !errors.Is(ae, ErrBadQuery) || ae.Status != 400 || ae.Msg != `n="x": want a count` {
		t.Fatalf("Errorf: %+v", ae)
	}
}

// docs/api.md's error table lists exactly the codes of errorTable, each
// under its status.
func TestDocsListEveryErrorCode(t *testing.T) {
	doc, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Errors\n")
	if !ok {
		t.Fatal("docs/api.md has no ## Errors section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile(`(?m)^\| (\d{3}) \| (.*) \|$`)
	code := regexp.MustCompile("`([a-z_]+)`")
	documented := map[string]int{}
	for _, r := range row.FindAllStringSubmatch(section, -1) {
		status, _ := strconv.Atoi(r[1])
		cell := r[2]
		for _, c := range code.FindAllStringSubmatch(cell, -1) {
			// a listed code, not a field named in a note
			if isListedCode(cell, c[1]) {
				documented[c[1]] = status
			}
		}
	}
	for _, m := range errorTable {
		if st, ok := documented[m.code]; !ok {
			t.Errorf("docs/api.md does not list code %q (%d)", m.code, m.status)
		} else if st != m.status {
			t.Errorf("docs/api.md lists %q under %d, the hub answers %d", m.code, st, m.status)
		}
		delete(documented, m.code)
	}
	for c := range documented {
		t.Errorf("docs/api.md lists code %q, which the hub never answers", c)
	}
}

// isListedCode reports whether `code` opens an item of a cell's
// comma-separated list (and is not, say, a field named in parentheses).
func isListedCode(cell, code string) bool {
	depth := 0
	for i := 0; i < len(cell); i++ {
		switch cell[i] {
		case '(':
			depth++
		case ')':
			depth--
		case '`':
			if depth == 0 && strings.HasPrefix(cell[i:], "`"+code+"`") {
				return true
			}
		}
	}
	return false
}
