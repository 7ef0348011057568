package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// modelAPI is a scripted model endpoint: a server on 127.0.0.1 speaking the
// part of the Anthropic Messages API that Claude Code uses (POST
// /v1/messages, streamed as server-sent events when the request asks), so
// the real harness runs with no network and no model. Claude Code finds it
// through ANTHROPIC_BASE_URL.
//
// Requests of the agent's conversation (those that offer tools) take the
// next scripted turn; Claude Code's side requests (a title for the session,
// a quota probe) get a short text. Every request is recorded, so a test can
// assert what the harness offered and what came back.
type modelAPI struct {
	t   *testing.T
	srv *http.Server
	url string

	mu    sync.Mutex
	turns []modelTurn
	reqs  []modelRequest
	// arrived is signalled (without blocking) after each recorded request.
	arrived chan struct{}
}

// modelTurn is one scripted answer: either tool calls or a final text.
type modelTurn struct {
	// Text is the assistant's text; with no ToolUses it ends the turn.
	Text string
	// ToolUses are the tool calls of the answer, in order.
	ToolUses []toolUse
}

// toolUse is one scripted tool call.
type toolUse struct {
	Name  string
	Input map[string]any
}

// modelRequest is one request as the endpoint received it.
type modelRequest struct {
	Path     string
	Header   http.Header
	Body     messagesRequest
	Raw      []byte
	Scripted bool
}

// messagesRequest is the part of a Messages API request the tests read.
type messagesRequest struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	Tools  []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Messages []message `json:"messages"`
	// Metadata.UserID is a JSON object in a string; Claude Code puts its
	// session_id there.
	Metadata struct {
		UserID string `json:"user_id"`
	} `json:"metadata"`
}

// message is one message of the conversation; content is a string or a
// list of blocks.
type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// block is one content block of a message.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// blocks is the message's content as blocks (a string is one text block).
func (m message) blocks() []block {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

// text is a tool_result's content as text (a string or text blocks).
func (b block) text() string {
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return s
	}
	var bs []block
	_ = json.Unmarshal(b.Content, &bs)
	var parts []string
	for _, x := range bs {
		parts = append(parts, x.Text)
	}
	return strings.Join(parts, "\n")
}

// sessionID is the session id the request's metadata names.
func (r modelRequest) sessionID() string {
	var user struct {
		SessionID string `json:"session_id"`
	}
	_ = json.Unmarshal([]byte(r.Body.Metadata.UserID), &user)
	return user.SessionID
}

// toolNames are the names of the tools the request offered.
func (r modelRequest) toolNames() []string {
	var names []string
	for _, tl := range r.Body.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// startModelAPI starts the endpoint with its script; it stops with the test.
func startModelAPI(t *testing.T, turns ...modelTurn) *modelAPI {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &modelAPI{t: t, turns: turns, arrived: make(chan struct{}, 1), url: "http://" + ln.Addr().String()}
	m.srv = &http.Server{Handler: http.HandlerFunc(m.serve), ReadHeaderTimeout: 10 * time.Second}
	go m.srv.Serve(ln)
	t.Cleanup(func() { m.srv.Close() })
	return m
}

// script appends turns to the script.
func (m *modelAPI) script(turns ...modelTurn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.turns = append(m.turns, turns...)
}

// requests is a copy of what has arrived so far.
func (m *modelAPI) requests() []modelRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]modelRequest(nil), m.reqs...)
}

// scripted is the requests that took a scripted turn (the conversation's).
func (m *modelAPI) scripted() []modelRequest {
	var out []modelRequest
	for _, r := range m.requests() {
		if r.Scripted {
			out = append(out, r)
		}
	}
	return out
}

// waitScripted waits until n requests have taken scripted turns and
// returns them; when they do not come within d it fails the test with
// what did, and with more, when set (the harness's screen).
func (m *modelAPI) waitScripted(n int, d time.Duration, why string, more func() string) []modelRequest {
	m.t.Helper()
	deadline := time.After(d)
	for {
		if got := m.scripted(); len(got) >= n {
			return got
		}
		select {
		case <-m.arrived:
		case <-deadline:
			extra := ""
			if more != nil {
				extra = more()
			}
			m.t.Fatalf("%s: %d conversation requests reached the model endpoint within %v, want %d\n%s%s",
				why, len(m.scripted()), d, n, m.describe(), extra)
		}
	}
}

// describe lists the requests, for a failure message.
func (m *modelAPI) describe() string {
	var b strings.Builder
	for i, r := range m.requests() {
		fmt.Fprintf(&b, "  request %d %s scripted=%v model=%s tools=%v messages=%d\n",
			i, r.Path, r.Scripted, r.Body.Model, r.toolNames(), len(r.Body.Messages))
	}
	return b.String()
}

func (m *modelAPI) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	rec := modelRequest{Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw}
	_ = json.Unmarshal(raw, &rec.Body)
	var turn modelTurn
	switch {
	case r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/messages"):
		m.record(rec)
		http.NotFound(w, r)
		return
	case strings.HasSuffix(r.URL.Path, "/count_tokens"):
		m.record(rec)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"input_tokens": 100}`)
		return
	case len(rec.Body.Tools) > 0:
		m.mu.Lock()
		if len(m.turns) > 0 {
			turn, m.turns = m.turns[0], m.turns[1:]
			rec.Scripted = true
		} else {
			turn = modelTurn{Text: "The script has no more turns."}
		}
		m.mu.Unlock()
	default:
		turn = modelTurn{Text: "Scripted session"}
	}
	m.record(rec)
	if rec.Body.Stream {
		streamTurn(w, rec.Body.Model, turn)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(wholeMessage(rec.Body.Model, turn))
}

func (m *modelAPI) record(rec modelRequest) {
	m.mu.Lock()
	m.reqs = append(m.reqs, rec)
	m.mu.Unlock()
	select {
	case m.arrived <- struct{}{}:
	default:
	}
}

// msgSeq numbers messages and tool calls so every id is unique.
var (
	msgSeqMu sync.Mutex
	msgSeq   int
)

func nextID(prefix string) string {
	msgSeqMu.Lock()
	defer msgSeqMu.Unlock()
	msgSeq++
	return fmt.Sprintf("%s_%024d", prefix, msgSeq)
}

// contentOf is the turn's content blocks and its stop reason.
func contentOf(turn modelTurn) ([]map[string]any, string) {
	var content []map[string]any
	if turn.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": turn.Text})
	}
	for _, u := range turn.ToolUses {
		in := u.Input
		if in == nil {
			in = map[string]any{}
		}
		content = append(content, map[string]any{"type": "tool_use", "id": nextID("toolu"), "name": u.Name, "input": in})
	}
	if len(turn.ToolUses) > 0 {
		return content, "tool_use"
	}
	return content, "end_turn"
}

var usage = map[string]any{"input_tokens": 100, "output_tokens": 10,
	"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}

// wholeMessage is the non-streamed answer.
func wholeMessage(model string, turn modelTurn) map[string]any {
	content, stop := contentOf(turn)
	return map[string]any{"id": nextID("msg"), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage}
}

// streamTurn writes the turn as the Messages API's event stream.
func streamTurn(w http.ResponseWriter, model string, turn modelTurn) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	event := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	content, stop := contentOf(turn)
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": nextID("msg"), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	for i, c := range content {
		switch c["type"] {
		case "text":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": c["text"]}})
		case "tool_use":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": c["id"], "name": c["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(c["input"])
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	event("message_stop", map[string]any{"type": "message_stop"})
}
