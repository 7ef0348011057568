package operators

import (
	"slices"
	"testing"
)

// A token file enrols where the installation has no operator, or where its
// home has enrolled one before; a fresh home of an installation with
// operators enrols nobody by a file.
func TestEnrolsByFile(t *testing.T) {
	ada := Enrolment{Name: "ada", Host: "h1", Home: "/a", ModRev: 3}
	gone := Enrolment{Name: "bob", Host: "h1", Home: "/a", ModRev: 4, Removed: true}
	for _, c := range []struct {
		what       string
		all        []Enrolment
		host, home string
		want       bool
	}{
		{"no records: a first install", nil, "h2", "/b", true},
		{"only removed operators", []Enrolment{gone}, "h2", "/b", true},
		{"a fresh home on another host", []Enrolment{ada}, "h2", "/b", false},
		{"another home on the same host", []Enrolment{ada}, "h1", "/b", false},
		{"the enrolling home", []Enrolment{ada}, "h1", "/a", true},
		{"a home that enrolled only for SSH", []Enrolment{{Name: "eve", Host: "h1", Home: "/a", ModRev: 5, SSHOnly: true}}, "h1", "/a", false},
	} {
		if got := EnrolsByFile(slices.Values(c.all), c.host, c.home); got != c.want {
			t.Errorf("%s: EnrolsByFile = %v, want %v", c.what, got, c.want)
		}
	}
}
