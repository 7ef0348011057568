package stamp

import (
	"bytes"
	_ "embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// schemaV3 is the JSON Schema (draft 2020-12) of stamp schema v3, embedded so
// the binary prints and checks exactly the file in the repository.
//
//go:embed schema/capability-stamp.v3.schema.json
var schemaV3 []byte

// SchemaV3 returns the embedded JSON Schema document.
func SchemaV3() []byte { return append([]byte(nil), schemaV3...) }

const schemaURL = "https://virgo-hub.github.io/schemas/capability-stamp.v3.schema.json"

// compiled is the schema, compiled once on first use.
var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaV3))
	if err != nil {
		return nil, fmt.Errorf("embedded stamp schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("embedded stamp schema: %w", err)
	}
	return c.Compile(schemaURL)
})

var printer = message.NewPrinter(language.English)

// schemaProblems validates a decoded JSON document against schema v3 and
// returns one problem per failing leaf keyword, sorted by location.
func schemaProblems(doc any) []Problem {
	sch, err := compiled()
	if err != nil {
		return []Problem{{Rule: RuleSchema, Message: err.Error()}}
	}
	err = sch.Validate(doc)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []Problem{{Rule: RuleSchema, Message: err.Error()}}
	}
	var out []Problem
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, Problem{Rule: RuleSchema, Field: fieldPath(e.InstanceLocation),
				Tool: toolAt(doc, e.InstanceLocation), Message: e.ErrorKind.LocalizedString(printer)})
			return
		}
		for _, cause := range e.Causes {
			walk(cause)
		}
	}
	walk(ve)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}

// fieldPath renders a JSON pointer's tokens as "tools[3].access".
func fieldPath(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		if t != "" && strings.Trim(t, "0123456789") == "" {
			b.WriteString("[" + t + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(t)
	}
	return b.String()
}

// toolAt names the tool a location under tools[] points into, if it has one.
func toolAt(doc any, loc []string) string {
	if len(loc) < 2 || loc[0] != "tools" {
		return ""
	}
	top, _ := doc.(map[string]any)
	tools, _ := top["tools"].([]any)
	var i int
	if _, err := fmt.Sscan(loc[1], &i); err != nil || i < 0 || i >= len(tools) {
		return ""
	}
	t, _ := tools[i].(map[string]any)
	name, _ := t["name"].(string)
	return name
}
