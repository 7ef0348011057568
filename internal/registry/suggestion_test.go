package registry

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// concreteAddress finds the addresses a fix suggests: path-shaped words
// without a <placeholder> ("use work/core/lead", "e.g. root/secretary").
// Templates such as "work/<project>/lead" name a shape, not an address.
var concreteAddress = regexp.MustCompile(`(^|[\s(])([^\s<>'"/(),;]+(/[^\s<>'"/(),;]+)+)`)

// TestEverySuggestedFixIsAValidAddress: "a suggested fix
// in a refusal is itself a valid address". Every input built from a grid of
// segments (roles, scopes, placeholders, upper case, bad bytes, root) in one
// to three segments (and a few longer) is parsed; every concrete address a refusal suggests must
// parse in turn.
func TestEverySuggestedFixIsAValidAddress(t *testing.T) {
	segs := []string{"root", "work", "core", "secretary", "operator", "coordinator", "lead", "deputy",
		"all", "-", "*", "", "WORK", "Lead", "CORE", "core_1", "1st", strings.Repeat("a", MaxSegmentLen+1)}
	var inputs []string
	var grow func(prefix []string, n int)
	grow = func(prefix []string, n int) {
		if len(prefix) > 0 {
			inputs = append(inputs, strings.Join(prefix, "/"))
		}
		if n == 0 {
			return
		}
		for _, s := range segs {
			grow(append(prefix[:len(prefix):len(prefix)], s), n-1)
		}
	}
	grow(nil, 3)
	// Four or more segments: the fix depends on nothing but the count.
	inputs = append(inputs, "work/core/lead/x", "root/a/b/secretary", "WORK/Core/x/LEAD/y")
	refusals, suggestions := 0, 0
	for _, in := range inputs {
		_, err := ParseAddress(in)
		var ae *AddressError
		if !errors.As(err, &ae) {
			continue
		}
		refusals++
		for _, m := range concreteAddress.FindAllStringSubmatch(ae.Fix, -1) {
			suggestions++
			if _, err := ParseAddress(m[2]); err != nil {
				t.Errorf("%q is refused (%s) with the fix %q, but %q is not an address: %v", in, ae.Rule, ae.Fix, m[2], err)
			}
		}
	}
	if refusals < 5000 || suggestions < 300 {
		t.Fatalf("only %d refusals with %d suggested addresses: the grid no longer exercises the fixes", refusals, suggestions)
	}
	t.Logf("%d inputs, %d refusals, %d suggested addresses parsed", len(inputs), refusals, suggestions)
}
