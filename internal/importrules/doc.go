// Package importrules holds the one direction of dependency between this
// module's packages as a table of forbidden imports, checked by its test
// against the import graph `go list -deps` reports (see
// docs/architecture.md). It has no code of its own: a rule lives here so
// that one test, not one per package, guards every layer.
package importrules
