package mcpserver

import (
	"fmt"
	"net/url"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/tools"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// call is one allowed call of a tool the runtime carries out: the tree its
// path target lies in (nil for a target that is not a path), the target
// as the hub allowed it (a path resolved on disk), its shape, its
// arguments and, when it was confirmed, its confirmation.
type call struct {
	root   *workspace.Root
	target confirm.Target
	shape  stamp.Shape
	args   tools.Args
	// confirmation is the approved confirmation's id, "" when allowed outright.
	confirmation string
}

// executor carries out one runtime tool after the hub allowed it and
// returns its structured result; doc says what it does, for docs/mcp.md.
type executor struct {
	run func(c call) (any, error)
	doc string
}

// executors are the runtime's side of the tool table: one row per tool the
// table marks Runtime (tools.Tool.Runtime). Every other tool is carried out
// by the hub (its tool call executes it). Boot refuses a stamp with a
// runtime tool missing here.
var executors = map[string]executor{
	"workspace_list":  {listFiles, "lists the directory, a page in name order (`workspace.Root.List`)"},
	"workspace_stat":  {statFile, "stats the file (`workspace.Root.Stat`)"},
	"workspace_hash":  {hashFile, "streams the file through sha256 (`workspace.Root.Hash`)"},
	"workspace_read":  {readFile, "reads the byte range with continuation: plain text as text, other bytes once, as an MCP blob (`workspace.Root.Read`)"},
	"workspace_write": {writeFile, "writes atomically or removes, mutable paths only (`workspace.Root.Write`, `Remove`)"},
	stamp.PublishTool: {publish, "answers the bound human's approval; the agent publishes with its own means"},
}

// executes reports whether this MCP server carries out a runtime tool of
// the table.
func executes(t tools.Tool) bool { return executors[t.Name].run != nil }

func listFiles(c call) (any, error) {
	p := c.target.Value
	if p == tools.WorkspaceRoot {
		p = ""
	}
	limit, _ := c.args.Int("limit")
	return c.root.List(p, c.args.Str("after"), int(limit))
}

func statFile(c call) (any, error) { return c.root.Stat(c.target.Value) }

func hashFile(c call) (any, error) { return c.root.Hash(c.target.Value) }

// readResult is a page of a file with its content, when the bytes are
// plain text (see isText).
type readResult struct {
	workspace.Page
	Encoding string `json:"encoding"`
	Content  string `json:"content"`
}

// blobPage is a page of bytes that are not plain text. JSON escapes a
// control character as six bytes (a NUL as \u0000), and the answer carries
// its JSON twice (as text and as structured content): 1 MiB of NULs became
// a 13.6 MB message that the TypeScript client dropped. So the bytes travel
// once, as an MCP blob (base64, 4/3 of the bytes), and the page's metadata
// alone is the structured answer.
type blobPage struct {
	workspace.Page
	// Encoding is "blob": the bytes are the resource block's blob.
	Encoding string `json:"encoding"`
	// Resource is the blob's URI in the answer's resource block.
	Resource string `json:"resource"`
	data     []byte
}

// toolResult is the blob page's answer: its metadata, then its bytes.
func (p blobPage) toolResult() *mcp.CallToolResult {
	res := result(p) // data is unexported: the metadata alone
	res.Content = append(res.Content, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
		URI: p.Resource, MIMEType: "application/octet-stream", Blob: p.data}})
	return res
}

// isText says whether b is plain text: UTF-8 with no control character
// but tab and line breaks, which JSON carries about byte for byte.
func isText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return utf8.Valid(b)
}

func readFile(c call) (any, error) {
	off, _ := c.args.Int("offset")
	n, _ := c.args.Int("length")
	pg, err := c.root.Read(c.target.Value, off, n)
	if err != nil {
		return nil, err
	}
	if isText(pg.Data) {
		return readResult{Page: pg, Encoding: "utf-8", Content: string(pg.Data)}, nil
	}
	uri := (&url.URL{Scheme: "workspace", Path: "/" + pg.Path}).String()
	return blobPage{Page: pg, Encoding: "blob", Resource: uri, data: pg.Data}, nil
}

func writeFile(c call) (any, error) {
	switch c.shape {
	case stamp.ShapeDelete:
		return c.root.Remove(c.target.Value)
	case stamp.ShapeWriteCreate:
		return c.root.Write(c.target.Value, []byte(c.args.Str("content")), workspace.CreateOnly)
	case stamp.ShapeWriteOverwrite:
		return c.root.Write(c.target.Value, []byte(c.args.Str("content")), workspace.CreateOrReplace)
	}
	return nil, fmt.Errorf("workspace_write: shape %s: %w", c.shape, tools.ErrInvalidArguments)
}

// published is what publish_deployment_v1 answers once the bound human
// approved: the approval, for the agent to carry the publication out with
// its own means (the runtime holds no deployment credentials).
type published struct {
	Status       string `json:"status"`
	Action       string `json:"action"`
	Destination  string `json:"destination"`
	Confirmation string `json:"confirmation,omitempty"`
	Note         string `json:"note"`
}

func publish(c call) (any, error) {
	action := "publish"
	if c.shape == stamp.ShapeDeploy {
		action = "deploy"
	}
	return published{Status: "approved", Action: action, Destination: c.target.Value, Confirmation: c.confirmation,
		Note: "approved by the bound human; carry the " + action + " out now, exactly as described"}, nil
}
