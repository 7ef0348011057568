package mcpserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawConn is the server's connection of a LineTransport over an in-memory
// stream, with the raw client end.
func rawConn(t *testing.T, maxLine int) (mcp.Connection, net.Conn) {
	t.Helper()
	client, server := net.Pipe()
	conn, err := (&LineTransport{Reader: server, Writer: server, MaxLineLength: maxLine}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(); client.Close() })
	return conn, client
}

// idOf is the JSON-RPC id of v (a float64 or a string).
func idOf(v any) jsonrpc.ID {
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		panic(err)
	}
	return id
}

// readWithin reads the next message of conn, failing after 5 s.
func readWithin(t *testing.T, conn mcp.Connection) (jsonrpc.Message, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return conn.Read(ctx)
}

// A line that is not one JSON-RPC 2.0 message ends the session with a
// named error, as the SDK's transport ends it; blank lines and CRLF
// endings are not errors.
func TestLineTransportRefusesWhatIsNotOneMessage(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2048) + `"}}`
	for _, c := range []struct {
		name, line string
		want       error
	}{
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"ping"`, ErrBadMessage},
		{"not JSON", `ping`, ErrBadMessage},
		{"another version", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, ErrBadMessage},
		{"no version", `{"id":1,"method":"ping"}`, ErrBadMessage},
		{"a name twice", `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, ErrBadMessage},
		{"an object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, ErrBadMessage},
		{"two messages on a line", `{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":2,"method":"ping"}`, ErrBadMessage},
		{"a response without an id", `{"jsonrpc":"2.0","result":{}}`, ErrBadMessage},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}", ErrBadMessage},
		{"an empty batch", `[]`, ErrBadMessage},
		{"an id twice in a batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]`, ErrBadMessage},
		{"a bad message in a batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0"}]`, ErrBadMessage},
		{"over the line limit", long, ErrLineTooLong},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, client := rawConn(t, 1024)
			go io.WriteString(client, "\r\n  \n"+c.line+"\n")
			msg, err := readWithin(t, conn)
			if !errors.Is(err, c.want) {
				t.Fatalf("read %q: %v, %v; want %v", c.line, msg, err, c.want)
			}
		})
	}

	conn, client := rawConn(t, 1024)
	go io.WriteString(client, "\n \r\n"+`{"jsonrpc":"2.0","id":"a","method":"ping","params":{}}`+"\r\n")
	msg, err := readWithin(t, conn)
	want := &jsonrpc.Request{ID: idOf("a"), Method: "ping", Params: []byte(`{}`)}
	if err != nil || !reflect.DeepEqual(msg, want) {
		t.Fatalf("read after blank lines: %#v, %v; want %#v", msg, err, want)
	}
}

// Every message the transport writes is one line that the SDK's own
// decoder reads back as the same message: a result that spans lines is
// compacted, an error keeps the code of the wire error it wraps.
func TestLineTransportWritesOneLineTheSDKReads(t *testing.T) {
	for _, c := range []struct {
		msg  jsonrpc.Message
		want jsonrpc.Message // nil: msg itself
		line string
	}{
		{msg: &jsonrpc.Request{ID: idOf(3.0), Method: "roots/list", Params: []byte(`{"a":"b"}`)},
			line: `{"jsonrpc":"2.0","id":3,"method":"roots/list","params":{"a":"b"}}`},
		{msg: &jsonrpc.Request{Method: "notifications/progress", Params: []byte(`{"progress":1}`)},
			line: `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`},
		{msg: &jsonrpc.Response{ID: idOf("q\"1"), Result: []byte("{\n  \"text\": \"a\\nb\"\r\n}")},
			want: &jsonrpc.Response{ID: idOf("q\"1"), Result: []byte(`{"text":"a\nb"}`)},
			line: `{"jsonrpc":"2.0","id":"q\"1","result":{"text":"a\nb"}}`},
		{msg: &jsonrpc.Response{ID: idOf(9.0), Error: fmt.Errorf("tools/call: %w", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad"})},
			want: &jsonrpc.Response{ID: idOf(9.0), Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "tools/call: bad"}},
			line: `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"tools/call: bad"}}`},
	} {
		conn, client := rawConn(t, 0)
		go conn.Write(context.Background(), c.msg)
		line, err := bufio.NewReader(client).ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line != c.line+"\n" {
			t.Errorf("wrote %q\n  want %q", line, c.line+"\n")
		}
		got, err := jsonrpc.DecodeMessage([]byte(line))
		want := c.want
		if want == nil {
			want = c.msg
		}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("the SDK reads %q as %#v, %v; want %#v", line, got, err, want)
		}
	}
}

// A batch of calls (JSON-RPC 2.0, MCP 2025-03-26) is answered as one
// array, in the batch's order, once every call is answered; its
// notifications get no answer.
func TestLineTransportAnswersABatchAsOneArray(t *testing.T) {
	f := newFixture(t)
	r := f.runtime(t, f.persona(t, "work/core/lead", "Spica"), Options{})
	client, server := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- r.ServeStdio(context.Background(), &LineTransport{Reader: server, Writer: server}) }()
	in := bufio.NewReader(client)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(client, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if _, err := in.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	send(`[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"ping"},{"jsonrpc":"2.0","id":7,"method":"ping"}]`)
	line, err := in.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"jsonrpc":"2.0","id":"b","result":{}},{"jsonrpc":"2.0","id":7,"result":{}}]` + "\n"; line != want {
		t.Fatalf("the batch's answer %q\n  want %q", line, want)
	}
	client.Close()
	if err := <-served; err != nil {
		t.Fatalf("the session ended with %v", err)
	}
}
