package tools

import (
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/paging"
)

// ParamType is the JSON type of one argument.
type ParamType uint8

// The argument types. Every one is bounded: a string by MaxLength, an
// integer by Min and Max, a list by MaxItems and its items' MaxLength.
const (
	// TypeString: one line of text a persona writes (checked by termtext:
	// no control, bidi or invisible characters).
	TypeString ParamType = iota + 1
	// TypeText: text of several lines ("\n" allowed, else as TypeString).
	TypeText
	// TypeContent: a file's content, taken as it is (a workspace write);
	// it is written to the persona's own file, never shown unescaped.
	TypeContent
	// TypeInteger: a whole number between Min and Max.
	TypeInteger
	// TypeStrings: a list of one-line strings.
	TypeStrings
)

// Param is one argument of a tool: the source of its JSON Schema property
// and of the checks the schema cannot express.
type Param struct {
	Name     string
	Type     ParamType
	Required bool
	// Doc is the property's description.
	Doc string
	// MaxLength bounds a string (bytes; the schema counts characters, so
	// the bytes are checked again after validation) or a list's items.
	MaxLength int
	// Pattern is a regular expression a string (or each item) matches.
	Pattern string
	// Enum lists the values a string may take.
	Enum []string
	// Min and Max bound an integer; MaxItems a list (MinItems its least).
	Min, Max           int64
	MinItems, MaxItems int
	// File marks a path in the persona's workspace. A file argument that is
	// not the tool's path target lets the file leave the workspace with the
	// call (Tool.Exports): the hub judges it by the secret and authority
	// material table on the file it resolves to (confirm.Egress).
	File bool
	// Unbound marks an argument that never changes what a call does (the
	// paging of a list): it is left out of the operation's bound
	// arguments (Tool.Bound). Every other argument is bound.
	Unbound bool
}

// Argument limits shared by the table. They are the hub's limits too
// (hubapi.Limits lists them for docs/api.md).
const (
	// MaxLine bounds a one-line text: a title, a subject, a choice.
	MaxLine = 256
	// MaxBodyText bounds a message's, brief's or context's text.
	MaxBodyText = 16 << 10
	// MaxNote bounds a progress report, a run event or a reason.
	MaxNote = 4 << 10
	// MaxContent bounds a workspace write's content: the whole call must
	// fit the hub's 1 MiB request body.
	MaxContent = 512 << 10
	// MaxListItems bounds a list argument (options, evidence, todo items).
	MaxListItems = 32
	// MaxIDLen bounds a record id, a correlation id or a reaction id.
	MaxIDLen = 128
	// MaxPathLen bounds a workspace path, an address or a URL.
	MaxPathLen = 1024
)

// idPattern is a record, correlation or reaction id (confirm.NormalizeID's
// alphabet; the normalizer is the final word).
const idPattern = `^[a-z0-9][a-z0-9._-]*$`

// The parameter constructors: every tool's arguments are built from these,
// so one kind of value is bounded the same way everywhere.

func id(name, doc string, required bool) Param {
	return Param{Name: name, Type: TypeString, Required: required, Doc: doc, MaxLength: MaxIDLen, Pattern: idPattern}
}

func address(name, doc string, required bool) Param {
	return Param{Name: name, Type: TypeString, Required: required, Doc: doc, MaxLength: MaxPathLen,
		Pattern: `^[a-z0-9][a-z0-9/_-]*$`}
}

func path(name, doc string, required bool) Param {
	return Param{Name: name, Type: TypeString, Required: required, Doc: doc, MaxLength: MaxPathLen, File: true}
}

func line(name, doc string, required bool) Param {
	return Param{Name: name, Type: TypeString, Required: required, Doc: doc, MaxLength: MaxLine}
}

func text(name, doc string, max int, required bool) Param {
	return Param{Name: name, Type: TypeText, Required: required, Doc: doc, MaxLength: max}
}

func enum(name, doc string, required bool, values ...string) Param {
	return Param{Name: name, Type: TypeString, Required: required, Doc: doc, MaxLength: MaxLine, Enum: values}
}

func lines(name, doc string, minItems int, required bool) Param {
	return Param{Name: name, Type: TypeStrings, Required: required, Doc: doc, MaxLength: MaxLine,
		MinItems: minItems, MaxItems: MaxListItems}
}

// atMost lowers a list's MaxItems to the limit of the rule behind it (a
// decision's options, a card's actions), so the schema promises no more
// than the rule accepts.
func atMost(p Param, items int) Param {
	p.MaxItems = min(p.MaxItems, items)
	return p
}

func integer(name, doc string, lo, hi int64) Param {
	return Param{Name: name, Type: TypeInteger, Doc: doc, Min: lo, Max: hi}
}

// page is the two arguments of every list: where to continue and how many.
func page() []Param {
	return []Param{
		{Name: "after", Type: TypeString, Doc: "the continuation token of the previous page's \"next\"; absent for the first page",
			MaxLength: paging.MaxToken, Pattern: `^[A-Za-z0-9_-]*$`, Unbound: true},
		{Name: "limit", Type: TypeInteger, Doc: fmt.Sprintf("items per page, 1 to %d (default %d)", paging.MaxLimit, paging.DefaultLimit),
			Min: 1, Max: paging.MaxLimit, Unbound: true},
	}
}

// correlation is the argument every tool takes: a retry under the same id
// joins the same confirmation and is executed at most once.
var correlation = id("correlation_id",
	"names this call for its retries: a retry with the same id joins the same confirmation and is carried out at most once", false)

// property is the JSON Schema of one parameter.
func (p Param) property() map[string]any {
	prop := map[string]any{}
	if p.Doc != "" {
		prop["description"] = p.Doc
	}
	str := func(into map[string]any) {
		into["type"] = "string"
		into["maxLength"] = p.MaxLength
		if p.Pattern != "" {
			into["pattern"] = p.Pattern
		}
		if len(p.Enum) > 0 {
			into["enum"] = p.Enum
		}
	}
	switch p.Type {
	case TypeString, TypeText, TypeContent:
		str(prop)
	case TypeInteger:
		prop["type"] = "integer"
		prop["minimum"] = p.Min
		prop["maximum"] = p.Max
	case TypeStrings:
		prop["type"] = "array"
		prop["maxItems"] = p.MaxItems
		if p.MinItems > 0 {
			prop["minItems"] = p.MinItems
		}
		items := map[string]any{}
		str(items)
		prop["items"] = items
	}
	return prop
}

// schemaOf is the strict JSON Schema of an argument list: an object with
// exactly these properties (additionalProperties false).
func schemaOf(params []Param) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, p := range params {
		props[p.Name] = p.property()
		if p.Required {
			required = append(required, p.Name)
		}
	}
	return map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	}
}
