package tools

import (
	"encoding/json"
	"fmt"
	"strings"
)

// This file is the output side of the tool table: the shape of what each
// tool answers (Tool.Answers), from which its output schema is derived
// (Tool.OutputSchema, MCP's outputSchema). A shape names the members the
// answer carries and their JSON types; members it does not name may be
// there too, as the wire contract grows.

// Kind is the JSON type of one member of an answer.
type Kind uint8

// The kinds of member.
const (
	// KindString: a string (a time, an id, a principal, a state).
	KindString Kind = iota + 1
	// KindInteger: a whole number.
	KindInteger
	// KindBoolean: true or false.
	KindBoolean
	// KindObject: an object, with Members when they are described.
	KindObject
	// KindList: a list (or null: an empty list may be encoded as null),
	// of objects with Members, of strings when Members is nil.
	KindList
	// KindAny: any JSON value (a recorded answer carried as it was).
	KindAny
)

// Member is one member of an answer.
type Member struct {
	// Name is the member's JSON name.
	Name string
	Kind Kind
	// Optional: the member is left out when it is empty; every other
	// member is always there.
	Optional bool
	// Members describe an object member, or each object of a list.
	Members Result
	// Values are the only values a string member takes, when given.
	Values []string
}

// Result is the shape of one kind of answer: a JSON object with these
// members.
type Result []Member

// field is a member named name; a name ending in "?" is an optional
// member (left out when empty).
func field(name string, k Kind, of Result) Member {
	n, optional := strings.CutSuffix(name, "?")
	return Member{Name: n, Kind: k, Optional: optional, Members: of}
}

// The member constructors of the answers' shapes (name? for optional).

func str(name string) Member             { return field(name, KindString, nil) }
func num(name string) Member             { return field(name, KindInteger, nil) }
func boolean(name string) Member         { return field(name, KindBoolean, nil) }
func obj(name string, of Result) Member  { return field(name, KindObject, of) }
func list(name string, of Result) Member { return field(name, KindList, of) }
func strs(name string) Member            { return field(name, KindList, nil) }

// oneOf is a string member that takes only these values.
func oneOf(name string, values ...string) Member {
	m := str(name)
	m.Values = values
	return m
}

// with is r followed by more members (an embedded struct's members).
func with(r Result, more ...Member) Result {
	return append(append(Result(nil), r...), more...)
}

// pageOf is a page of a list: its items and the continuation token.
func pageOf(item Result) Result { return Result{list("items", item), str("next?")} }

// The shapes of the records and answers the tools return, each once.
var (
	// party is a task's party (tasks.Party).
	party = Result{str("id"), str("address?"), num("generation?"), str("name?")}
	// sender is a message's sender with its provenance (coord.Sender).
	sender = Result{str("address"), str("project?"), str("name"), str("id"), num("generation"), str("instance_since?")}
	report = Result{str("at"), obj("by?", party), str("progress"), strs("evidence?"), str("state?")}
	task   = Result{str("id"), str("scope"), str("project?"), obj("assignee", party), obj("assigned_by", party), str("title"),
		str("brief"), strs("bounds?"), str("state"), list("reports?", report), str("correlation_id?"), str("created"), str("updated")}
	run = Result{str("id"), str("scope"), str("project?"), str("task"), num("seq"), str("title"), str("state"), str("created_by"),
		str("created"), str("updated"), num("events"), num("artifacts")}
	runEvent = Result{num("seq"), str("time"), str("by"), str("kind"), str("text?"), str("from?"), str("to?")}
	artifact = Result{str("run"), str("scope"), str("project?"), str("task"), num("seq"), str("name"), num("size"), str("sha256"),
		str("path"), str("workspace?"), str("by"), str("time")}
	// byteRange is a ranged read's place (confirm.Range).
	byteRange  = Result{num("offset"), num("length"), num("next_offset"), boolean("eof")}
	resolution = Result{str("option"), str("note?"), str("resolved_by"), str("decided_by"), str("confirmation_id?"), str("time")}
	decision   = Result{str("id"), str("scope"), str("project?"), num("seq"), str("question"), strs("options"), str("context?"),
		str("raised_by"), str("raised"), str("state"), obj("resolution?", resolution)}
	coordMessage = Result{str("id"), str("to"), obj("from", sender), str("subject?"), str("body"), str("reply_to?"), str("item?"),
		obj("about?", Result{str("kind"), str("id"), str("event")}), str("sent_at")}
	messageAck = Result{str("id"), boolean("repeat")}
	presence   = Result{str("state"), num("beats"), str("activity?"), str("summary?")}
	peer       = Result{str("address"), str("name"), num("generation"), str("peer_id"), str("state"), str("summary?")}
	graphNode  = Result{str("kind"), str("id"), str("scope"), str("project?"), str("to?"), str("task?"), str("run?"), str("title?"), str("state?"), str("by"), str("time")}
	humanItem  = Result{str("id"), str("human"), obj("persona", sender), boolean("from_human"), str("kind"), str("thread"), str("reply_to?"),
		str("text?"), str("title?"), strs("actions?"), list("todo?", Result{str("text"), boolean("done"), str("done_at?")}),
		obj("file?", Result{str("name"), num("size"), str("sha256"), str("path")}), str("at"), str("acked_at?"),
		list("reactions?", Result{str("reaction"), str("by"), str("at")}), obj("answer?", Result{str("action"), str("by"), str("at")})}
	typing        = Result{obj("persona", sender), str("thread?"), str("until")}
	runView       = with(run, obj("log", pageOf(runEvent)), list("artifact_list", artifact))
	artifactPage  = with(Result{obj("artifact", artifact), str("text?"), str("data?")}, byteRange...)
	wake          = Result{obj("presence", presence), num("waiting"), obj("inbox", pageOf(coordMessage))}
	reactionIDs   = Result{strs("reactions")}
	outcome       = Result{boolean("known"), boolean("applied"), str("reason?"), str("item?"), str("reaction?"), str("at?")}
	surfaceStatus = Result{str("surface"), str("human"), num("unread")}
	target        = Result{str("kind"), str("value"), str("workspace?"), str("scope?"), str("project?"), str("task?")}
	// operation is a normalized operation (confirm.Operation).
	operation = Result{str("persona"), num("generation"), str("tool"), str("handler_action"), obj("target?", target), str("shape"),
		list("arguments?", Result{str("name"), str("value")})}
	decisionRecord = Result{str("requester"), str("authority"), str("authority_binding"), obj("operation", operation), str("stamp_hash"),
		str("decision"), str("decider"), str("correlation_id"), str("time"), str("remember?"), str("reason?"), obj("via?", nil)}
	confirmation = Result{str("id"), str("kind"), str("requester"), str("authority"), str("authority_binding"), str("route"),
		boolean("unroutable?"), obj("operation", operation), str("persona_id?"), str("profile"), str("stamp_hash"), str("class_key?"),
		str("correlation_id"), str("fingerprint"), str("boundary"), str("reason?"), str("detail?"), str("request_reason?"),
		str("created_at"), str("expires_at"), str("state"), obj("decision?", decisionRecord)}
	routed = Result{list("items", confirmation), boolean("more")}

	// The workspace's answers (package workspace), carried out by the
	// persona's runtime.
	entry    = Result{str("path"), str("type"), num("size"), str("mode"), str("modified")}
	listing  = Result{str("path"), list("entries", entry), str("next?")}
	digest   = Result{str("path"), num("size"), str("sha256")}
	filePage = with(Result{str("path"), num("size")}, byteRange...)
	// A page of a file is its text, or (other bytes) the URI of the blob
	// that carries them beside the structured answer.
	textPage = with(filePage, oneOf("encoding", "utf-8"), str("content"))
	blobPage = with(filePage, oneOf("encoding", "blob"), str("resource"))
	written  = Result{str("path"), num("size"), boolean("created"), str("sha256")}
	removed  = Result{str("path"), str("sha256?"), num("size")}

	// published is publish_deployment_v1's answer once approved.
	published = Result{oneOf("status", "approved"), oneOf("action", "publish", "deploy"), str("destination"), str("confirmation?"), str("note")}
)

// carried is the answer to a runtime tool's call whose operation was
// already handed to the runtime under its correlation id (ToolCall with
// status carried).
var carried = Result{oneOf("status", string(ToolCarried)), str("tool"), str("correlation_id"), obj("operation", operation),
	obj("decision", Result{str("verdict"), str("boundary"), str("reason?"), boolean("remembered?")}), str("confirmation_id?"),
	field("result?", KindAny, nil), str("carried_at?")}

// schema is the JSON Schema of a member.
func (m Member) schema() map[string]any {
	s := map[string]any{}
	switch m.Kind {
	case KindString:
		s["type"] = "string"
		if len(m.Values) > 0 {
			s["enum"] = m.Values
		}
	case KindInteger:
		s["type"] = "integer"
	case KindBoolean:
		s["type"] = "boolean"
	case KindObject:
		s = m.Members.schema()
	case KindList:
		items := map[string]any{"type": "string"}
		if m.Members != nil {
			items = m.Members.schema()
		}
		s["type"] = []string{"array", "null"}
		s["items"] = items
	}
	return s
}

// schema is the JSON Schema of an answer of shape r: an object whose
// members, those always there required, have their types; other members
// are allowed.
func (r Result) schema() map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, m := range r {
		props[m.Name] = m.schema()
		if !m.Optional {
			required = append(required, m.Name)
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required}
}

// OutputSchema returns the JSON Schema (draft 2020-12) of every answer a
// call of the tool can carry as structured content: an object that is
// one of its Answers, one of also (the answers a front end gives to
// every call: its failure, a call still waiting), or for a runtime tool
// the answer that its operation was already carried (ToolCarried).
func (t Tool) OutputSchema(also ...Result) json.RawMessage {
	var branches []any
	for _, r := range t.answers(also) {
		branches = append(branches, r.schema())
	}
	b, err := json.Marshal(map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type":    "object",
		"anyOf":   branches,
	})
	if err != nil {
		panic(fmt.Sprintf("tools: output schema of %s: %v", t.Name, err)) // a table of plain values always marshals
	}
	return b
}

// answers are every shape of the tool's structured answer.
func (t Tool) answers(also []Result) []Result {
	out := append(append([]Result(nil), t.Answers...), also...)
	if t.Runtime {
		out = append(out, carried)
	}
	return out
}
