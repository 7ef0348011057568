package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// Why a line of the stdio transport is refused; each ends the session, as
// a malformed message ends the SDK's own stdio connection.
var (
	// ErrLineTooLong: a message longer than the transport's line limit.
	ErrLineTooLong = errors.New("a JSON-RPC message is longer than the line limit")
	// ErrBadMessage: a line that is not one JSON-RPC 2.0 message (nor a
	// batch of them).
	ErrBadMessage = errors.New("not a JSON-RPC 2.0 message")
)

// LineTransport is the server side of MCP's stdio transport:
// newline-delimited JSON-RPC over a byte stream in each direction, as the
// SDK's IOTransport, without its JSON costs per message. The SDK decodes
// every line twice (as a batch, then as a message) and the method once
// more, each time through a decoder with a fresh 32 KiB buffer, and
// re-compacts every result it writes; here each line is decoded once, by
// the module's one decoder (internal/strictjson: a name twice, invalid
// UTF-8 and trailing data refused; members JSON-RPC may grow skipped), into the
// message the SDK's session reads, and a result is written as the session
// encoded it. The SDK's session (tools, schemas, notifications) is
// unchanged.
type LineTransport struct {
	Reader io.ReadCloser
	Writer io.WriteCloser
	// MaxLineLength bounds one incoming message (a line); zero is the
	// SDK's default, mcp.DefaultMaxLineLength.
	MaxLineLength int
}

// StdioTransport is the LineTransport of the process's stdin and stdout.
func StdioTransport() *LineTransport {
	return &LineTransport{Reader: os.Stdin, Writer: nopWriteCloser{os.Stdout}}
}

// nopWriteCloser leaves stdout open when the session closes: the process
// may still print after it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// Connect implements mcp.Transport: it starts reading t.Reader.
func (t *LineTransport) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxLineLength
	if limit <= 0 {
		limit = mcp.DefaultMaxLineLength
	}
	c := &lineConn{r: t.Reader, w: t.Writer, incoming: make(chan incoming), closed: make(chan struct{})}
	go c.readLines(limit)
	return c, nil
}

// incoming is what the read loop hands to Read: the messages of one line,
// or why reading stopped.
type incoming struct {
	msgs  []jsonrpc.Message
	batch bool
	err   error
}

// lineConn is one session's connection over a LineTransport.
type lineConn struct {
	r io.ReadCloser
	w io.WriteCloser

	incoming chan incoming
	// queue holds the rest of a batch; only Read touches it.
	queue []jsonrpc.Message

	writeMu sync.Mutex
	buf     []byte // the line being written, reused under writeMu

	// batches tracks the calls of incoming batches, whose responses go out
	// together as one array (JSON-RPC 2.0, as MCP 2025-03-26 allows).
	batchMu sync.Mutex
	batches map[jsonrpc.ID]*batch

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

// batch is an incoming batch's calls and their responses, in order.
type batch struct {
	pending   map[jsonrpc.ID]int
	responses []*jsonrpc.Response
}

// readLines reads and decodes lines until the reader fails or the
// connection closes. It runs on its own goroutine, so that Close unblocks
// Read even while the reader blocks (stdin cannot be interrupted).
func (c *lineConn) readLines(limit int) {
	sc := bufio.NewScanner(c.r)
	sc.Buffer(make([]byte, 0, min(limit, 64<<10)), limit)
	for {
		var in incoming
		if sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			in.msgs, in.batch, in.err = decodeLine(line)
		} else {
			in.err = sc.Err()
			switch {
			case in.err == nil:
				in.err = io.EOF
			case errors.Is(in.err, bufio.ErrTooLong):
				in.err = fmt.Errorf("%w (%d bytes)", ErrLineTooLong, limit)
			}
		}
		select {
		case c.incoming <- in:
		case <-c.closed:
			return
		}
		if in.err != nil {
			return
		}
	}
}

// wireMessage is a JSON-RPC 2.0 message as it arrives: a call or a
// notification (method), or a response (result or error).
type wireMessage struct {
	Version string         `json:"jsonrpc"`
	ID      any            `json:"id"`
	Method  *string        `json:"method"`
	Params  jsontext.Value `json:"params"`
	Result  jsontext.Value `json:"result"`
	Error   *jsonrpc.Error `json:"error"`
}

// decodeLine decodes one line: a message, or a batch of them.
func decodeLine(line []byte) (msgs []jsonrpc.Message, isBatch bool, err error) {
	if line[0] != '[' {
		m, err := decodeMessage(line)
		if err != nil {
			return nil, false, err
		}
		return []jsonrpc.Message{m}, false, nil
	}
	var raws []jsontext.Value
	if err := strictjson.DecodeOpen(line, &raws); err != nil {
		return nil, true, fmt.Errorf("%w: %w", ErrBadMessage, err)
	}
	if len(raws) == 0 {
		return nil, true, fmt.Errorf("%w: an empty batch", ErrBadMessage)
	}
	msgs = make([]jsonrpc.Message, 0, len(raws))
	for _, raw := range raws {
		m, err := decodeMessage(raw)
		if err != nil {
			return nil, true, err
		}
		msgs = append(msgs, m)
	}
	return msgs, true, nil
}

// decodeMessage decodes one message, refusing what the SDK's decoder
// refuses: another version, an id neither a number nor a string, a
// response without an id.
func decodeMessage(b []byte) (jsonrpc.Message, error) {
	var w wireMessage
	if err := strictjson.DecodeOpen(b, &w); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadMessage, err)
	}
	if w.Version != "2.0" {
		return nil, fmt.Errorf("%w: jsonrpc is %q, not \"2.0\"", ErrBadMessage, w.Version)
	}
	id, err := jsonrpc.MakeID(w.ID)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadMessage, err)
	}
	if w.Method != nil {
		return &jsonrpc.Request{ID: id, Method: *w.Method, Params: []byte(w.Params)}, nil
	}
	if !id.IsValid() {
		return nil, fmt.Errorf("%w: a response without an id", ErrBadMessage)
	}
	resp := &jsonrpc.Response{ID: id, Result: []byte(w.Result)}
	if w.Error != nil {
		resp.Error = w.Error
	}
	return resp, nil
}

// Read implements mcp.Connection.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(c.queue) > 0 {
		m := c.queue[0]
		c.queue = c.queue[1:]
		return m, nil
	}
	var in incoming
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case in = <-c.incoming:
	}
	if in.err != nil {
		return nil, in.err
	}
	if in.batch {
		if err := c.addBatch(in.msgs); err != nil {
			return nil, err
		}
	}
	c.queue = in.msgs[1:]
	return in.msgs[0], nil
}

// addBatch records the calls of an incoming batch, whose responses are
// then written together; an id already in flight in a batch is refused.
func (c *lineConn) addBatch(msgs []jsonrpc.Message) error {
	b := &batch{pending: map[jsonrpc.ID]int{}}
	for _, m := range msgs {
		if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
			if _, dup := b.pending[req.ID]; dup {
				return fmt.Errorf("%w: id %v twice in a batch", ErrBadMessage, req.ID.Raw())
			}
			b.pending[req.ID] = len(b.responses)
			b.responses = append(b.responses, nil)
		}
	}
	if len(b.pending) == 0 {
		return nil
	}
	c.batchMu.Lock()
	defer c.batchMu.Unlock()
	for id := range b.pending {
		if _, dup := c.batches[id]; dup {
			return fmt.Errorf("%w: id %v is already in flight in a batch", ErrBadMessage, id.Raw())
		}
	}
	if c.batches == nil {
		c.batches = map[jsonrpc.ID]*batch{}
	}
	for id := range b.pending {
		c.batches[id] = b
	}
	return nil
}

// inBatch files resp when it answers a call of an incoming batch: it
// reports whether it did, and the batch's responses once all are in.
func (c *lineConn) inBatch(resp *jsonrpc.Response) ([]*jsonrpc.Response, bool) {
	c.batchMu.Lock()
	defer c.batchMu.Unlock()
	b, ok := c.batches[resp.ID]
	if !ok {
		return nil, false
	}
	delete(c.batches, resp.ID)
	b.responses[b.pending[resp.ID]] = resp
	delete(b.pending, resp.ID)
	if len(b.pending) > 0 {
		return nil, true
	}
	return b.responses, true
}

// Write implements mcp.Connection: msg as one line (a batch's responses
// as one array line, once the batch is answered).
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	msgs := []jsonrpc.Message{msg}
	isBatch := false
	if resp, ok := msg.(*jsonrpc.Response); ok {
		rs, ok := c.inBatch(resp)
		if ok && rs == nil {
			return nil
		}
		if ok {
			isBatch, msgs = true, msgs[:0]
			for _, r := range rs {
				msgs = append(msgs, r)
			}
		}
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	b := c.buf[:0]
	if isBatch {
		b = append(b, '[')
	}
	for i, m := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendMessage(b, m); err != nil {
			return err
		}
	}
	if isBatch {
		b = append(b, ']')
	}
	b = append(b, '\n')
	_, err := c.w.Write(b)
	if cap(b) <= 64<<10 {
		c.buf = b // a large answer's buffer is not kept
	}
	return err
}

// appendMessage appends msg's JSON to b. Params and results are the
// session's own encoding of them (encoding/json: compact, one line), so
// they are copied as they are; one that is not one compact line is
// compacted, so that a message stays one line.
func appendMessage(b []byte, msg jsonrpc.Message) ([]byte, error) {
	b = append(b, `{"jsonrpc":"2.0"`...)
	var id jsonrpc.ID
	var err error
	switch m := msg.(type) {
	case *jsonrpc.Request:
		id = m.ID
		if b, err = appendID(b, id); err != nil {
			return b, err
		}
		b = append(b, `,"method":`...)
		if b, err = jsontext.AppendQuote(b, m.Method); err != nil {
			return b, fmt.Errorf("jsonrpc method %q: %w", m.Method, err)
		}
		if len(m.Params) > 0 {
			b = append(b, `,"params":`...)
			if b, err = appendRaw(b, m.Params); err != nil {
				return b, err
			}
		}
	case *jsonrpc.Response:
		if b, err = appendID(b, m.ID); err != nil {
			return b, err
		}
		if len(m.Result) > 0 {
			b = append(b, `,"result":`...)
			if b, err = appendRaw(b, m.Result); err != nil {
				return b, err
			}
		}
		if m.Error != nil {
			e, err := json.Marshal(wireError(m.Error))
			if err != nil {
				return b, fmt.Errorf("jsonrpc error: %w", err)
			}
			b = append(append(b, `,"error":`...), e...)
		}
	default:
		return b, fmt.Errorf("%w: cannot write a %T", ErrBadMessage, msg)
	}
	return append(b, '}'), nil
}

// appendID appends the id member of a call or response; a notification
// has none.
func appendID(b []byte, id jsonrpc.ID) ([]byte, error) {
	switch v := id.Raw().(type) {
	case nil:
		return b, nil
	case int64:
		return strconv.AppendInt(append(b, `,"id":`...), v, 10), nil
	case string:
		return jsontext.AppendQuote(append(b, `,"id":`...), v)
	default:
		return b, fmt.Errorf("%w: id of type %T", ErrBadMessage, v)
	}
}

// appendRaw appends a JSON value, compacting it when it spans lines.
func appendRaw(b, raw []byte) ([]byte, error) {
	if bytes.IndexByte(raw, '\n') < 0 && bytes.IndexByte(raw, '\r') < 0 {
		return append(b, raw...), nil
	}
	v := jsontext.Value(bytes.Clone(raw))
	if err := v.Compact(); err != nil {
		return b, fmt.Errorf("%w: %v", ErrBadMessage, err)
	}
	return append(b, v...), nil
}

// wireError is err as a JSON-RPC error object, as the SDK writes it: a
// wire error as it is, another error's text under the code of a wire error
// it wraps (0 if none).
func wireError(err error) *jsonrpc.Error {
	var we *jsonrpc.Error
	if errors.As(err, &we) && we == err {
		return we
	}
	out := &jsonrpc.Error{Message: err.Error()}
	if we != nil {
		out.Code = we.Code
	}
	return out
}

// Close implements mcp.Connection: it closes both streams, once.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.closeErr = errors.Join(c.r.Close(), c.w.Close())
	})
	return c.closeErr
}

// SessionID implements mcp.Connection: a stdio session has none.
func (c *lineConn) SessionID() string { return "" }
