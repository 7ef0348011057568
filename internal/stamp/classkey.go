package stamp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// classContent is what a class-overlay learned choice is keyed by: the
// stamp's capability content, and nothing of the persona's identity (no id,
// name, generation, address, composition hash or graph namespace). Two
// personas whose stamps agree on every field here can do exactly the same
// things and have their confirmations routed to the same authorities, so a
// class-common choice learned for one is the same choice for the other.
type classContent struct {
	Profile string `json:"profile"`
	// Tools: name, handler action, access and scope of every exposed tool.
	Tools []classTool `json:"tools"`
	// MutablePaths: what workspace writes reach.
	MutablePaths []string `json:"mutable_paths"`
	// Repository: the bound worktree a path@repository target lands in.
	Repository string `json:"repository"`
	// The bindings that decide where a confirmation is routed.
	Human        string `json:"human"`
	OwningLead   string `json:"owning_lead"`
	LaneApprover string `json:"lane_approver"`
}

type classTool struct {
	Name          string `json:"name"`
	HandlerAction string `json:"handler_action"`
	Access        Access `json:"access"`
	Scope         Scope  `json:"scope"`
}

// ClassKey is the key of the class overlay of the prompt registry: the
// SHA-256 (HashPrefix, hex) of the RFC 8785 canonical JSON of the stamp's
// capability content — profile; tools with handler action, access and scope
// (sorted by name); mutable paths (sorted); bound repository; and the
// routing bindings (bound human, owning lead, lane approver). Every persona
// of a class whose stamp has the same content has the same key; changing any
// of it changes the key, which makes the class choices learned under the old
// key stale for that persona. docs/authorization.md lists the fields.
func ClassKey(s Stamp) (string, error) {
	c := classContent{
		Profile: s.Path.Profile, MutablePaths: append([]string{}, s.Workspace.MutablePaths...),
		Tools:      make([]classTool, 0, len(s.Tools)),
		Repository: s.Workspace.Repository, Human: s.Authority.Human,
		OwningLead: s.Authority.OwningLead, LaneApprover: s.Authority.LaneApprover,
	}
	for _, t := range s.Tools {
		c.Tools = append(c.Tools, classTool(t)) // a new Tool field fails to compile here: decide if it is capability content
	}
	slices.SortFunc(c.Tools, func(a, b classTool) int { return strings.Compare(a.Name, b.Name) })
	slices.Sort(c.MutablePaths)
	b, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("class key of %s: %w", s.Path.Address, err)
	}
	return Hash(b)
}
