package stamp

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// Input is everything the factory stamps. It has no address default of its
// own: Address must be the persona's registered canonical address.
type Input struct {
	Persona         Identity
	CompositionHash string
	// Address is the registered canonical address (root/secretary,
	// work/coordinator, work/core/lead). Empty or unparsable fails.
	Address        string
	GraphNamespace string
	HumanSurfaces  []SurfaceBinding
	Authority      Authority
	// Workspace is the workspace binding; the factory adds the standard
	// mutable paths (QUEUE.md, DECISIONS.md, FINDINGS.md, memory/**) first.
	Workspace Workspace
}

// Build resolves the role's class profile plus the persona path into one v3
// stamp and runs the JSON Schema and the semantic validator on it. Nothing is
// written; see Write.
func Build(in Input) (Stamp, error) {
	if in.Address == "" {
		return Stamp{}, fmt.Errorf("build stamp: %w: the factory stamps the persona's registered address and has no default", ErrNoAddress)
	}
	a, err := registry.ParseAddress(in.Address)
	if err != nil {
		return Stamp{}, fmt.Errorf("build stamp: %w: %w", ErrNoAddress, err)
	}
	s := Stamp{
		SchemaVersion:   SchemaVersion,
		Persona:         in.Persona,
		Path:            Path{Address: a.String(), Scope: a.Scope, Project: a.Project, Role: a.Role, Profile: string(a.Profile())},
		CompositionHash: in.CompositionHash,
		GraphNamespace:  in.GraphNamespace,
		HumanSurfaces:   append([]SurfaceBinding{}, in.HumanSurfaces...),
		Authority:       in.Authority,
		Workspace: Workspace{
			Root:         in.Workspace.Root,
			MutablePaths: mergePaths(standardMutablePaths, in.Workspace.MutablePaths),
			Repository:   in.Workspace.Repository,
		},
		Tools: ToolsFor(a.Profile()),
	}
	b, err := Marshal(s)
	if err != nil {
		return Stamp{}, err
	}
	if _, err := validStamp(s, b, "build "+a.String()); err != nil {
		return Stamp{}, err
	}
	return s, nil
}

// mergePaths is base followed by the extras not already in it, in order.
func mergePaths(base, extra []string) []string {
	out := append([]string{}, base...)
	seen := map[string]bool{}
	for _, p := range base {
		seen[p] = true
	}
	for _, p := range extra {
		if !seen[p] {
			out = append(out, p)
			seen[p] = true
		}
	}
	return out
}

// Marshal renders a stamp as the file's bytes: two-space indented JSON, keys
// in schema order, no HTML escaping, one trailing newline. The same stamp
// always gives the same bytes.
func Marshal(s Stamp) ([]byte, error) {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("marshal stamp %s: %w", s.Path.Address, err)
	}
	// Indenting into a buffer sized once is cheaper than the encoder's own
	// indentation, which grows its buffer as it goes.
	var out bytes.Buffer
	out.Grow(compact.Len() * 2)
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("marshal stamp %s: %w", s.Path.Address, err)
	}
	return out.Bytes(), nil
}
