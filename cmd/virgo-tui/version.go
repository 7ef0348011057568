package main

import "runtime/debug"

// version is the program's version as the build recorded it: the module
// version of a `go install …@vX`, else the VCS revision a checkout was
// built at (with "+dirty" for uncommitted changes), else "(devel)".
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return "(devel)"
	}
	return "(devel) " + rev[:min(12, len(rev))] + dirty
}
