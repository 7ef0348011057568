// Package tools is the one table of the persona tools' contracts: for every
// tool of the inventory (stamp.Inventory) its description, the strict JSON
// Schema of its arguments, and how the arguments become the normalized
// operation the handler decides (the target's kind and the arguments that
// form it, the shape). The hub's tool calls, the MCP server and the docs
// read this table; nothing keeps a second list.
package tools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Named errors of a tool call's arguments.
var (
	// ErrUnknownTool: the name is not a tool of the inventory.
	ErrUnknownTool = errors.New("no such tool in the tool inventory")
	// ErrInvalidArguments: arguments that are not the tool's JSON object
	// (its schema: known fields only, each bounded and well-formed).
	ErrInvalidArguments = errors.New("invalid tool arguments")
	// ErrNoRecord: a task, run or decision id that names no stored record.
	ErrNoRecord = errors.New("no such record")
)

// printer renders a schema refusal in English.
var printer = message.NewPrinter(language.English)

// MaxArgs bounds a call's arguments in bytes (the hub's request body).
const MaxArgs = 1 << 20

// byName indexes the table; schemas holds each row's compiled schema.
var (
	byName  = map[string]int{}
	schemas = sync.OnceValues(compileAll)
)

func init() {
	for i, t := range table {
		byName[t.Name] = i
	}
}

// All returns the table in inventory order. Callers must not modify it.
func All() []Tool { return table }

// Lookup returns the row of a tool name, or ErrUnknownTool.
func Lookup(name string) (Tool, error) {
	i, ok := byName[name]
	if !ok {
		return Tool{}, fmt.Errorf("tool %q: %w", clip(name), ErrUnknownTool)
	}
	return table[i], nil
}

// params are the tool's arguments with correlation_id.
func (t Tool) params() []Param { return append(append([]Param(nil), t.Params...), correlation) }

// Schema returns the tool's JSON Schema (draft 2020-12) of its arguments:
// an object of exactly its parameters, each bounded.
func (t Tool) Schema() json.RawMessage {
	b, err := json.Marshal(schemaOf(t.params()))
	if err != nil {
		panic(fmt.Sprintf("tools: schema of %s: %v", t.Name, err)) // a table of plain values always marshals
	}
	return b
}

func compileAll() (map[string]*jsonschema.Schema, error) {
	out := make(map[string]*jsonschema.Schema, len(table))
	for _, t := range table {
		s, err := CompileSchema("https://virgo-hub.github.io/schemas/tools/"+t.Name+".json", t.Schema())
		if err != nil {
			return nil, fmt.Errorf("tool %s: schema: %w", t.Name, err)
		}
		out[t.Name] = s
	}
	return out, nil
}

// CompileSchema compiles a JSON Schema (draft 2020-12 unless it names
// another) under url, with the validator the tools' arguments are checked
// by: a tool's input schema, and its output schema where an answer is
// checked against it.
func CompileSchema(url string, schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// Args are a call's arguments, validated against the tool's schema.
type Args struct {
	raw json.RawMessage
	m   map[string]any
}

// Validate reads raw (a JSON object; empty or null is {}) as t's
// arguments: it must match t's schema, every string its byte bound, and
// every text a persona writes must be clean (no control, bidi or invisible
// characters, termtext's table). A refusal is ErrInvalidArguments naming
// the argument and the rule.
func (t Tool) Validate(raw json.RawMessage) (Args, error) {
	if len(raw) > MaxArgs {
		return Args{}, fmt.Errorf("%s: %w: %d bytes, over the %d-byte limit", t.Name, ErrInvalidArguments, len(raw), MaxArgs)
	}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	if !utf8.Valid(raw) {
		return Args{}, fmt.Errorf("%s: %w: not valid UTF-8", t.Name, ErrInvalidArguments)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return Args{}, fmt.Errorf("%s: %w: not one JSON object: %v", t.Name, ErrInvalidArguments, err)
	}
	all, err := schemas()
	if err != nil {
		return Args{}, err
	}
	if err := all[t.Name].Validate(doc); err != nil {
		return Args{}, fmt.Errorf("%s: %w: %s", t.Name, ErrInvalidArguments, firstCause(err))
	}
	m, _ := doc.(map[string]any) // the schema's type: object
	for _, p := range t.params() {
		if err := p.check(m[p.Name]); err != nil {
			return Args{}, fmt.Errorf("%s: %w: argument %q: %v", t.Name, ErrInvalidArguments, p.Name, err)
		}
	}
	return Args{raw: raw, m: m}, nil
}

// firstCause is the innermost message of a validation error, with where.
func firstCause(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	at := "the arguments"
	if len(ve.InstanceLocation) > 0 {
		at = fmt.Sprintf("argument %q", clip(ve.InstanceLocation[0]))
	}
	return at + ": " + termtext.Clean(ve.ErrorKind.LocalizedString(printer))
}

// check applies what the schema cannot: byte bounds and clean text.
func (p Param) check(v any) error {
	var texts []string
	switch x := v.(type) {
	case string:
		texts = []string{x}
	case []any:
		for _, item := range x {
			s, _ := item.(string)
			texts = append(texts, s)
		}
	}
	for _, s := range texts {
		if len(s) > p.MaxLength {
			return fmt.Errorf("%d bytes, over the %d-byte limit", len(s), p.MaxLength)
		}
		if p.Type == TypeContent {
			continue
		}
		if err := termtext.Check(s, p.Type == TypeText); err != nil {
			return err
		}
	}
	return nil
}

// Exports lists the tool's file arguments (Param.File) that are not its
// path target: each names a workspace file that leaves the workspace with
// the call (a file sent to the human, an artifact recorded for others to
// fetch). A path target is decided by Authorize; an export is decided by
// confirm.Egress on the file it resolves to. Derived from the table, so a
// new tool naming a file cannot skip the decision.
func (t Tool) Exports() []string {
	var out []string
	for _, p := range t.Params {
		if p.File && !(t.Target.Kind == confirm.TargetPath && t.Target.Field == p.Name) {
			out = append(out, p.Name)
		}
	}
	return out
}

// Str is a string argument, "" when absent.
func (a Args) Str(name string) string {
	s, _ := a.m[name].(string)
	return s
}

// Int is an integer argument and whether it was given.
func (a Args) Int(name string) (int64, bool) {
	n, ok := a.m[name].(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// Strings is a list argument, nil when absent.
func (a Args) Strings(name string) []string {
	items, _ := a.m[name].([]any)
	out := make([]string, 0, len(items))
	for _, item := range items {
		s, _ := item.(string)
		out = append(out, s)
	}
	return out
}

// Decode unmarshals the validated arguments into v (a pointer to the
// executor's own struct).
func (a Args) Decode(v any) error {
	if err := strictjson.DecodeOpen(a.raw, v); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidArguments, err)
	}
	return nil
}

// Raw is the validated arguments as sent.
func (a Args) Raw() json.RawMessage { return a.raw }

// Canonical is the arguments re-encoded with sorted keys and no spacing:
// two sendings of the same arguments have the same canonical form.
func (a Args) Canonical() []byte {
	b, _ := json.Marshal(a.m) // decoded JSON always encodes
	return b
}

// Bound returns the call's bound arguments, the part of its operation
// that an approval binds (confirm.Operation.Arguments): every argument
// given, in the tool's parameter order, but correlation_id (it names the
// call) and those marked Unbound (paging). One rule over the whole table,
// so a new tool's arguments are bound without anyone remembering to. A
// file's content is bound by its sha256 and size: the decider sees and
// the fingerprint binds exactly those bytes, not a copy of them.
func (t Tool) Bound(a Args) []confirm.Argument {
	var out []confirm.Argument
	for _, p := range t.Params {
		v, ok := a.m[p.Name]
		if !ok || p.Unbound {
			continue
		}
		out = append(out, confirm.Argument{Name: p.Name, Value: boundValue(p, v)})
	}
	return out
}

// boundValue is an argument's value as confirm.Argument keeps it: a
// string as it is (its parameter fixes its type, so "3" and 3 never meet),
// a file's content as its digest, anything else as canonical JSON.
func boundValue(p Param, v any) string {
	s, isString := v.(string)
	switch {
	case p.Type == TypeContent:
		sum := sha256.Sum256([]byte(s))
		return fmt.Sprintf("sha256:%s, %d bytes", hex.EncodeToString(sum[:]), len(s))
	case isString:
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // shown to the decider: "<" as itself
	_ = enc.Encode(v)        // decoded JSON always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// Caller is the persona a call is made as.
type Caller struct {
	// PersonaID is the generation's registry id.
	PersonaID string
	Address   registry.Address
	// Human is the stamp's bound human ("human:henry"), the surface a
	// human-surface tool reaches when it names none.
	Human string
}

// Records finds what a mapping reads from the store.
type Records interface {
	// Record returns the target of the stored record of kind (task, run,
	// decision) with id: scope, project and a run's task as recorded. An
	// unknown id is ErrNoRecord.
	Record(ctx context.Context, kind confirm.TargetKind, id string) (confirm.Target, error)
	// Seat returns the registered address of a seat (its scope and
	// project); an address no persona was registered at is an error.
	Seat(ctx context.Context, address string) (registry.Address, error)
}

// Operation maps validated arguments to the operation's target and shape.
// A target normalization refuses is returned as confirm's named error
// (confirm.MalformedTarget tells a malformed one from an escape).
// correlationID names the call (never empty): a new record's id is
// derived from it (NewRecordID).
func (t Tool) Operation(ctx context.Context, c Caller, a Args, correlationID string, rec Records) (confirm.Target, stamp.Shape, error) {
	shape, err := t.shape(a)
	if err != nil {
		return confirm.Target{}, "", err
	}
	target, err := t.target(ctx, c, a, correlationID, rec)
	return target, shape, err
}

func (t Tool) shape(a Args) (stamp.Shape, error) {
	if t.ShapeArg == "" {
		return t.Shape, nil
	}
	v := a.Str(t.ShapeArg)
	if v == "" {
		return t.ShapeOf[0].Shape, nil
	}
	for _, c := range t.ShapeOf {
		if c.Value == v {
			return c.Shape, nil
		}
	}
	return "", fmt.Errorf("%s: %w: argument %q: %q is not one of its values", t.Name, ErrInvalidArguments, t.ShapeArg, clip(v))
}

func (t Tool) target(ctx context.Context, c Caller, a Args, corr string, rec Records) (confirm.Target, error) {
	m := t.Target
	switch m.From {
	case FromCaller:
		return confirm.Target{Kind: confirm.TargetAddress, Value: c.Address.String()}, nil
	case FromSurface:
		to := a.Str(m.Field)
		if to == "" {
			to = c.Human
		}
		v, err := confirm.NormalizeSurface(stamp.DefaultSurface + "/" + to)
		return confirm.Target{Kind: confirm.TargetSurface, Value: v}, err
	case FromRecord:
		rid, err := confirm.NormalizeID(a.Str(m.Field))
		if err != nil {
			return confirm.Target{}, err
		}
		return rec.Record(ctx, m.Kind, rid)
	case FromNewRecord:
		return t.newRecord(ctx, c, a, corr, rec)
	}
	return argumentTarget(m, a)
}

// argumentTarget normalizes a target named by an argument.
func argumentTarget(m Target, a Args) (confirm.Target, error) {
	v := a.Str(m.Field)
	switch m.Kind {
	case confirm.TargetPath:
		ws := a.Str(m.Workspace)
		if v == "" && m.Default == WorkspaceRoot {
			return confirm.Target{Kind: confirm.TargetPath, Value: WorkspaceRoot, Workspace: ws}, nil
		}
		text := "path:" + v
		if ws != "" {
			text = "path@" + ws + ":" + v
		}
		return confirm.ParseTarget(text)
	case confirm.TargetAddress:
		addr, err := confirm.NormalizeAddress(v)
		return confirm.Target{Kind: confirm.TargetAddress, Value: addr}, err
	}
	dest, err := confirm.NormalizeDestination(v)
	return confirm.Target{Kind: m.Kind, Value: dest}, err
}

func (t Tool) newRecord(ctx context.Context, c Caller, a Args, corr string, rec Records) (confirm.Target, error) {
	m := t.Target
	out := confirm.Target{Kind: m.Kind, Value: NewRecordID(m.Kind, c.PersonaID, corr), Scope: c.Address.Scope, Project: c.Address.Project}
	switch m.In {
	case InSeat:
		addr, err := confirm.NormalizeAddress(a.Str(m.Field))
		if err != nil {
			return confirm.Target{}, err
		}
		seat, err := rec.Seat(ctx, addr)
		if err != nil {
			return confirm.Target{}, err
		}
		out.Scope, out.Project = seat.Scope, seat.Project
	case InRecord:
		rid, err := confirm.NormalizeID(a.Str(m.Field))
		if err != nil {
			return confirm.Target{}, err
		}
		parent, err := rec.Record(ctx, confirm.TargetTask, rid)
		if err != nil {
			return confirm.Target{}, err
		}
		out.Scope, out.Project, out.Task = parent.Scope, parent.Project, parent.Value
	}
	return out, nil
}

// recordPrefixes are the id prefixes of new records by kind.
var recordPrefixes = map[confirm.TargetKind]string{confirm.TargetTask: "t-", confirm.TargetRun: "r-", confirm.TargetDecision: "d-"}

// NewRecordID is the id of the record a persona generation creates under
// a correlation id: derived, not random, so that a retry of the call (the
// same correlation id, after a confirmation or a lost answer) names the
// same record and creates nothing twice. Ids of different generations or
// correlation ids differ (64 bits of sha256).
func NewRecordID(kind confirm.TargetKind, personaID, correlationID string) string {
	sum := sha256.Sum256([]byte(kind.String() + "\x00" + personaID + "\x00" + correlationID))
	return recordPrefixes[kind] + hex.EncodeToString(sum[:8])
}

// clip bounds a caller's text quoted in an error.
func clip(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return termtext.Clean(s)
}

// Mapping says in words how the tool's arguments become its operation:
// the target and where it comes from, then the shape.
func (t Tool) Mapping() string {
	m := t.Target
	var target string
	switch m.From {
	case FromArgument:
		target = fmt.Sprintf("%s from `%s`", m.Kind, m.Field)
		if m.Workspace != "" {
			target += fmt.Sprintf(" (workspace from `%s`)", m.Workspace)
		}
		if m.Default != "" {
			target += fmt.Sprintf(", `%s` when absent", m.Default)
		}
	case FromCaller:
		target = "address: the caller's own"
	case FromRecord:
		target = fmt.Sprintf("%s: the stored record `%s` names (scope, project from the record)", m.Kind, m.Field)
	case FromNewRecord:
		target = fmt.Sprintf("%s: a new record (id derived from the correlation id)", m.Kind)
		switch m.In {
		case InSeat:
			target += fmt.Sprintf(" in the project of the seat `%s`", m.Field)
		case InRecord:
			target += fmt.Sprintf(" in the stored task `%s`", m.Field)
		default:
			target += " in the caller's scope and project"
		}
	case FromSurface:
		target = fmt.Sprintf("surface: virgo-channel/`%s`, the bound human when absent", m.Field)
	}
	shape := "`" + string(t.Shape) + "`"
	if t.ShapeArg != "" {
		var parts []string
		for _, c := range t.ShapeOf {
			parts = append(parts, fmt.Sprintf("%s → `%s`", c.Value, c.Shape))
		}
		shape = fmt.Sprintf("by `%s`: %s", t.ShapeArg, strings.Join(parts, ", "))
	}
	out := target + "; " + shape
	for _, f := range t.Exports() {
		out += fmt.Sprintf("; the file `%s` leaves the workspace: secret and authority material is denied", f)
	}
	return out
}
