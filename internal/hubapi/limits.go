package hubapi

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/graph"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/quota"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
	"github.com/virgo-hub/virgo-tui/internal/tools"
)

// Limit is one bound of the API, enforced at its edge with a named error,
// so that no persona can grow the hub's memory, its database or an
// operator's screen without end.
type Limit struct {
	// Name is how a request field names it (`limit:"reason"`) and how
	// docs/api.md lists it.
	Name string
	// Max is the largest value allowed: bytes for a text, a count otherwise.
	Max int
	// Unit says what Max counts.
	Unit string
	// What says what it bounds, for docs/api.md.
	What string
}

// Limits is the API's table of limits: the one source of the edge's checks
// and of the table in docs/api.md (a test keeps them equal).
var Limits = []Limit{
	{"body", MaxBody, "bytes", "a request body; a larger Content-Length is refused before anything is read"},
	{"reason", 2048, "bytes", "a denial's or a retirement's reason"},
	{"summary", 1024, "bytes", "a persona's summary"},
	{"activity", 1024, "bytes", "a persona's activity"},
	{"name", 64, "bytes", "a persona's or an operator's name"},
	{"correlation_id", 128, "bytes", "a correlation id"},
	{"target", 4096, "bytes", "an operation's target"},
	{"ref", 256, "bytes", "a persona reference (address, name or id), a tool, a shape, an address or a task"},
	{"pending_per_persona", 64, "confirmations", "pending confirmations one persona generation has asked for"},
	{"pending_per_authority", 1024, "confirmations", "pending confirmations routed to one authority"},
	{"connections", 1024, "connections", "connections the hub holds at once (lowered to fit its descriptor limit); over it the oldest idle connection that carried no operator's request is closed, else 503 too_many_connections"},
	{"connections_per_process", 128, "connections", "connections one peer process (by SO_PEERCRED) holds at once (503 too_many_connections)"},
	{"idle_connection", 15, "seconds", "how long a kept-alive connection may wait for its next request"},
	{"health_per_second", 20, "calls", "GET /v1/health calls per second of one peer process without a valid token (429 rate_limited)"},
	{"streams_per_token", 8, "streams", "open change, beat or message streams and confirmation waits of one token"},
	{"confirmation_wait", 60, "seconds", "how long one GET /v1/confirmations/{id}?wait= may hold for a decision"},
	{"message_subject", coord.MaxSubject, "bytes", "a coordination message's subject (one line)"},
	{"message_body", coord.MaxBody, "bytes", "a coordination message's body"},
	{"inbox", coord.MaxInbox, "messages", "messages waiting, not acked, in one seat's inbox"},
	{quota.InboxBytes, quota.DefaultInboxBytes, "bytes", "subject and body bytes of the messages waiting, not acked, in one seat's inbox; a human's reply is admitted over it (429 quota_exceeded)"},
	{"acked_retention", int(channel.DefaultAckedRetention / (24 * time.Hour)), "days", "how long a human-channel item is kept after it was acked, then deleted with its file by the retention job"},
	{"decided_retention", int(confirm.DefaultDecidedRetention / (24 * time.Hour)), "days", "how long a decided confirmation is kept after its decision; the audit log keeps the decision record"},
	{quota.UnreadBytes, quota.DefaultUnreadBytes, "bytes", "bytes personas sent one human (texts and files) that the human has not acked (429 quota_exceeded)"},
	{"page_size", paging.MaxLimit, "items", "one page of a list answered in the page form (the limit argument)"},
	{"page_token", paging.MaxToken, "bytes", "a page's continuation token (after)"},
	{"tool_arguments", tools.MaxArgs, "bytes", "a tool call's arguments"},
	{"tool_line", tools.MaxLine, "bytes", "a tool argument of one line: a title, a subject, a question, an option, an item"},
	{"tool_text", tools.MaxBodyText, "bytes", "a tool argument of several lines: a message, a brief, a decision's context"},
	{"tool_note", tools.MaxNote, "bytes", "a progress report, a run event, a note or a resolution's reason"},
	{"tool_content", tools.MaxContent, "bytes", "a workspace write's content"},
	{"tool_list", tools.MaxListItems, "items", "a tool argument that is a list: options, evidence, bounds, todo items"},
	{"runs_per_task", runs.MaxRunsPerTask, "runs", "the runs one task may have (429 too_many_runs)"},
	{"run_events", runs.MaxEvents, "events", "a run's event log; a move to a final state is logged past it (409 run_log_full)"},
	{"run_artifacts", runs.MaxArtifacts, "artifacts", "the artifacts of one run (409 too_many_artifacts)"},
	{"decision_options", decisions.MaxOptions, "options", "the options of one decision (400 too_many_options)"},
	{"decisions_per_project", decisions.MaxPerProject, "decisions", "the decisions raised in one scope and project (429 too_many_decisions)"},
	{"graph_scan", graph.MaxScan, "records", "the records one page of query_graph_context reads before it answers with a next token"},
	{"stamp", stamp.MaxBytes, "bytes", "a capability stamp, stored with its generation in the registration's one transaction (within etcd's request size)"},
}

// LimitOf returns the limit called name; it panics on a name the table
// does not hold, which is a programming error caught by every test.
func LimitOf(name string) Limit {
	for _, l := range Limits {
		if l.Name == name {
			return l
		}
	}
	panic("hubapi: no limit " + name)
}

// Named errors of the limits.
var (
	// ErrTooLong: a text over its limit.
	ErrTooLong = errors.New("text is too long")
	// ErrTooManyStreams: a token at its open-stream limit.
	ErrTooManyStreams = errors.New("too many open streams")
	// ErrTooManyConnections: a connection over the hub's connection limits
	// (per peer process, or in total with none left to shed).
	ErrTooManyConnections = errors.New("too many connections")
	// ErrRateLimited: a call over its rate (GET /v1/health without a valid
	// token, per peer process).
	ErrRateLimited = errors.New("too many calls; slow down")
	// ErrInvalidUTF8: a body or a text that is not valid UTF-8 (refused,
	// never silently replaced).
	ErrInvalidUTF8 = errors.New("not valid UTF-8")
)

// CheckText refuses text for field under limit: over its length, not valid
// UTF-8, or holding a control, bidi or invisible character (termtext's one
// table). The error names the field.
func CheckText(field, limit, text string) error {
	l := LimitOf(limit)
	if len(text) > l.Max {
		return fmt.Errorf("field %q: %w: %d bytes, over the %d-byte limit", field, ErrTooLong, len(text), l.Max)
	}
	if err := termtext.Check(text, false); errors.Is(err, termtext.ErrInvalidUTF8) {
		return fmt.Errorf("field %q: %w (%v)", field, ErrInvalidUTF8, err)
	} else if err != nil {
		return fmt.Errorf("field %q: %w (%v)", field, ErrControlText, err)
	}
	return nil
}

// CheckFields applies CheckText to every string field of the request v (a
// pointer to a struct) tagged `limit:"NAME"`, and to the strings behind
// tagged string pointers and slices, naming each by its JSON name. Untagged
// strings are still bounded by the body's limit.
func CheckFields(v any) error {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil
	}
	rt := rv.Type()
	for i := range rt.NumField() {
		f, fv := rt.Field(i), rv.Field(i)
		if f.Anonymous || (f.Type.Kind() == reflect.Struct && f.Tag.Get("limit") == "") {
			if err := CheckFields(fv.Addr().Interface()); err != nil {
				return err
			}
			continue
		}
		limit := f.Tag.Get("limit")
		if limit == "" {
			continue
		}
		field, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		for _, s := range stringsOf(fv) {
			if err := CheckText(field, limit, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// stringsOf is the strings a tagged field holds: itself, the one it points
// to, or the elements of a slice.
func stringsOf(v reflect.Value) []string {
	switch v.Kind() {
	case reflect.String:
		return []string{v.String()}
	case reflect.Pointer:
		if !v.IsNil() {
			return stringsOf(v.Elem())
		}
	case reflect.Slice:
		var out []string
		for i := range v.Len() {
			out = append(out, stringsOf(v.Index(i))...)
		}
		return out
	}
	return nil
}
