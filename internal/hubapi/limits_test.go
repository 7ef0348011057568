package hubapi

import (
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// docs/api.md's limits table is hubapi.Limits, row for row.
func TestDocsListEveryLimit(t *testing.T) {
	doc, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "## Limits")
	if !ok {
		t.Fatal("docs/api.md has no ## Limits section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| ([0-9]+) \\| ([a-z]+) \\| (.+) \\|$")
	rows := row.FindAllStringSubmatch(sec, -1)
	if len(rows) != len(Limits) {
		t.Fatalf("docs/api.md lists %d limits, the code has %d", len(rows), len(Limits))
	}
	for i, r := range rows {
		l := Limits[i]
		if max, _ := strconv.Atoi(r[2]); r[1] != l.Name || max != l.Max || r[3] != l.Unit || r[4] != l.What {
			t.Errorf("docs/api.md row %d is %v, the code says %+v", i+1, r[1:], l)
		}
	}
}

// Each text field of a request is checked against its limit and named.
func TestCheckFieldsNamesTheField(t *testing.T) {
	long := strings.Repeat("r", LimitOf("reason").Max+1)
	summary := "ok \u202eevil"
	for _, c := range []struct {
		v    any
		want error
		says string
	}{
		{&DecideRequest{Reason: long}, ErrTooLong, `field "reason"`},
		{&DecideRequest{Reason: "fine, thanks ✓"}, nil, ""},
		{&RetireRequest{Persona: "work/core/lead", Reason: "no\x1b]0;x\a"}, ErrControlText, `field "reason"`},
		{&PresenceReport{Summary: &summary}, ErrControlText, "U+202E"},
		{&OperationRequest{CorrelationID: "c\xff"}, ErrInvalidUTF8, `field "correlation_id"`},
		{&EnrolRequest{Name: strings.Repeat("n", 65)}, ErrTooLong, `field "name"`},
	} {
		err := CheckFields(c.v)
		if !errors.Is(err, c.want) || c.want != nil && !strings.Contains(err.Error(), c.says) {
			t.Errorf("%T: %v, want %v naming %q", c.v, err, c.want, c.says)
		}
	}
}
