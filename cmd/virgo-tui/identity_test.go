package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// A persona runtime acts with its own generation's token and nothing else
// ("A persona runtime acts with its own generation's token and nothing
// else"): these tests give it no usable operator — $USER unset or another
// login, $VIRGO_PRINCIPAL unset — and the only operator enrolled is one it
// does not name.

// personaHome is a home whose one enrolled operator is human:henry, with
// work/core/lead (Porrima) active and bound to him.
func personaHome(t *testing.T) *cli {
	t.Helper()
	c := newCLI(t)
	t.Setenv(hubclient.PrincipalEnv, "human:henry")
	c.activate("--scope", "work", "--project", "core", "--role", "lead", "--name", "Porrima", "--human", "human:henry")
	c.asEnrolled = true
	return c
}

// unsetEnv unsets name for the rest of the test (t.Setenv restores it).
func unsetEnv(t *testing.T, name string) {
	t.Setenv(name, "")
	os.Unsetenv(name)
}

// operatorFiles are the operator token files of c's home.
func operatorFiles(t *testing.T, c *cli) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(c.home, "operators"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// "`virgo-tui mcp --persona X` and every `--as X` command
// first dial as the local operator to find the seat's holder — and that
// operator is `human:$USER`, else `human:owner`, ignoring
// `$VIRGO_PRINCIPAL`." Each environment here failed with "not an enrolled
// operator" before; now the persona's commands act with its token alone and
// read or write no operator token.
func TestPersonaCommandsNeedNoOperator(t *testing.T) {
	for _, env := range []struct {
		name            string
		user, principal string // "-": unset
	}{
		{"USER and VIRGO_PRINCIPAL unset", "-", "-"},
		{"another login", "mallory", "-"},
		{"VIRGO_PRINCIPAL names the operator, USER another login", "mallory", "human:henry"},
	} {
		t.Run(env.name, func(t *testing.T) {
			c := personaHome(t)
			for name, v := range map[string]string{"USER": env.user, hubclient.PrincipalEnv: env.principal} {
				if v == "-" {
					unsetEnv(t, name)
				} else {
					t.Setenv(name, v)
				}
			}
			wantContains(t, "beat", c.ok("presence", "beat", "work/core/lead"), "work/core/lead: active")
			c.ok("msg", "list", "--as", "work/core/lead")
			c.ok("confirm", "list", "--as", "Porrima") // by name: the seat files are searched
			if got := operatorFiles(t, c); !slices.Equal(got, []string{"henry.token"}) {
				t.Errorf("operator token files %v; want henry's alone", got)
			}
		})
	}
}

// The default operator follows --as, then $VIRGO_PRINCIPAL, then $USER
// (then human:owner), for every command: with USER another login, a
// command with no --as acts as $VIRGO_PRINCIPAL.
func TestDefaultOperatorFollowsVirgoPrincipal(t *testing.T) {
	c := personaHome(t)
	t.Setenv("USER", "mallory")
	wantContains(t, "as henry", c.ok("operator", "list"), "human:henry")
	wantContains(t, "--as first", c.fails("operator", "list", "--as", "human:mallory"), "human:mallory: not an enrolled operator")
	unsetEnv(t, hubclient.PrincipalEnv)
	wantContains(t, "USER next", c.fails("operator", "list"), "human:mallory: not an enrolled operator")
	unsetEnv(t, "USER")
	wantContains(t, "then human:owner", c.fails("operator", "list"), "human:owner: not an enrolled operator")
}

// --token-file and $VIRGO_TOKEN_FILE name the runtime's token (a runtime
// run as another user, handed its token at launch): the seat file is not
// needed, and a token that is not the persona's is refused, naming whose
// it is.
func TestTokenFileNamesTheRuntimeToken(t *testing.T) {
	c := personaHome(t)
	unsetEnv(t, "USER")
	handed := filepath.Join(t.TempDir(), "lead.token")
	seat, err := hubapi.ReadSeat(c.home, "work/core/lead")
	mustNil(t, err)
	b, err := os.ReadFile(hubapi.SeatTokenFile(c.home, seat))
	mustNil(t, err)
	mustNil(t, os.WriteFile(handed, b, 0o600))
	mustNil(t, os.RemoveAll(hubapi.SeatsDir(c.home)))

	wantContains(t, "no seat file", c.fails("presence", "beat", "work/core/lead"), "no active holder on this host", "--token-file")
	wantContains(t, "--token-file", c.ok("presence", "beat", "work/core/lead", "--token-file", handed), "work/core/lead: active")
	t.Setenv(hubclient.TokenFileEnv, handed)
	wantContains(t, "$VIRGO_TOKEN_FILE", c.ok("presence", "beat", "work/core/lead"), "work/core/lead: active")
	wantContains(t, "another seat", c.fails("presence", "beat", "work/core/deputy"),
		"acting as work/core/deputy with "+handed, "the token is not this persona's: it is the token of work/core/lead")
	wantContains(t, "another name", c.fails("msg", "list", "--as", "Zaniah"), "the token is not this persona's")
	wantContains(t, "an operator's token", c.fails("presence", "beat", "work/core/lead", "--token-file", hubapi.OperatorTokenPath(c.home, "henry")),
		"the token is not this persona's: it is the token of human:henry")
	empty := filepath.Join(t.TempDir(), "empty")
	mustNil(t, os.WriteFile(empty, nil, 0o600))
	wantContains(t, "empty file", c.fails("presence", "beat", "work/core/lead", "--token-file", empty), "does not hold a virgo token")
}

// "on an empty home it enrols an operator as a side effect".
// A persona's command on a home with no persona fails naming what is
// missing, and the home is still a first install.
func TestPersonaCommandOnAnEmptyHomeEnrolsNobody(t *testing.T) {
	c := newCLI(t)
	c.asEnrolled = true
	_, err := registry.CreateHome(c.home)
	mustNil(t, err)
	unsetEnv(t, hubclient.PrincipalEnv)
	for _, args := range [][]string{
		{"mcp", "--persona", "root/secretary"},
		{"presence", "beat", "root/secretary"},
		{"msg", "list", "--as", "root/secretary"},
	} {
		wantContains(t, args[0], c.fails(args...), "acting as root/secretary: root/secretary: no active holder on this host")
	}
	if got := operatorFiles(t, c); len(got) != 0 {
		t.Fatalf("a persona's command enrolled %v", got)
	}
}

// mcpChildEnv makes the test binary, run as TestMCPChildProcess, be
// `virgo-tui --home HOME mcp --persona work/core/lead` on stdio.
const mcpChildEnv = "VIRGO_TEST_MCP_HOME"

// TestMCPChildProcess is the MCP server when the test binary runs as a
// child (see TestMCPServesWithThePersonaTokenAlone); otherwise nothing.
func TestMCPChildProcess(t *testing.T) {
	home := os.Getenv(mcpChildEnv)
	if home == "" {
		return
	}
	var out, errb bytes.Buffer
	root := newRootCmd()
	root.SetArgs([]string{"--home", home, "mcp", "--persona", "work/core/lead"})
	if code := execute(root, &out, &errb); code != 0 {
		os.Stderr.WriteString(errb.String())
		os.Exit(code)
	}
}

// The reproduction: "With USER unset (containers, services, CI) or a
// different login, `mcp` fails with `human:owner: not an enrolled
// operator`". A real MCP client (the SDK) starts `mcp --persona` with
// neither USER nor VIRGO_PRINCIPAL, beside a real hub, and is served the
// persona's tools.
func TestMCPServesWithThePersonaTokenAlone(t *testing.T) {
	c := personaHome(t)
	serveHub(t, c)
	for _, user := range []string{"", "mallory"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMCPChildProcess$")
		for _, kv := range os.Environ() {
			if k, _, _ := bytes.Cut([]byte(kv), []byte("=")); string(k) != "USER" && string(k) != hubclient.PrincipalEnv {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, mcpChildEnv+"="+c.home)
		if user != "" {
			cmd.Env = append(cmd.Env, "USER="+user)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "identity-test", Version: "1"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			cancel()
			t.Fatalf("USER=%q: connect: %v\nserver stderr: %s", user, err, stderr.String())
		}
		tools, err := cs.ListTools(ctx, nil)
		if err != nil || len(tools.Tools) == 0 {
			t.Errorf("USER=%q: tools %v, %v\nserver stderr: %s", user, tools, err, stderr.String())
		}
		mustNil(t, cs.Close())
		cancel()
	}
	if got := operatorFiles(t, c); !slices.Equal(got, []string{"henry.token"}) {
		t.Errorf("operator token files %v; want henry's alone", got)
	}
}

// "`operator add ada --ssh-key K` also writes
// `operators/ada.token`, so any process on the server can `confirm approve
// … --as human:ada`". A human enrolled with a key is enrolled for the SSH
// console only: no token file, so acting as them on the server fails — and
// a token file planted under their name is not taken for them.
func TestSSHOnlyOperatorHasNoTokenOnDisk(t *testing.T) {
	c := enrolledCLI(t)
	c.add("--scope", "work", "--project", "core", "--role", "lead", "--name", "Porrima", "--human", "human:ada", "--as", "human:owner")
	wantContains(t, "enrol", c.ok("operator", "add", "ada", "--ssh-key", testAuthorizedKey(t, "ada@laptop"), "--as", "human:owner"),
		"enrolled human:ada for the SSH console only: no token file", "ssh key SHA256:")
	if _, err := os.Stat(hubapi.OperatorTokenPath(c.home, "ada")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("an SSH-only enrolment wrote a token file: %v", err)
	}
	var pending []struct{ ID, Authority string }
	if err := json.Unmarshal([]byte(c.ok("confirm", "list", "-o", "json", "--as", "human:owner")), &pending); err != nil {
		t.Fatal(err)
	}
	id := ""
	for _, p := range pending {
		if p.Authority == "human:ada" {
			id = p.ID
		}
	}
	if id == "" {
		t.Fatalf("nothing routed to human:ada: %+v", pending)
	}
	wantContains(t, "approve as ada", c.fails("confirm", "approve", id, "--as", "human:ada"),
		"human:ada: not an enrolled operator", "no token file", "SSH console only")

	// A same-user process writes a token file under her name, as
	// enrolment would have: the hub does not take it for her.
	if _, err := hubapi.EnrolOperator(c.home, "ada", hubapi.NoUID); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "planted token", c.fails("confirm", "approve", id, "--as", "human:ada"), "unauthenticated")
	var ops []hubapi.Enrolled
	if err := json.Unmarshal([]byte(c.ok("operator", "list", "-o", "json", "--as", "human:owner")), &ops); err != nil {
		t.Fatal(err)
	}
	for _, o := range ops {
		if o.Principal == "human:ada" && (o.TokenFile != "" || len(o.SSHKeys) != 1) {
			t.Errorf("ada's enrolment became %+v; want SSH only, one key, no token file", o)
		}
	}
	wantContains(t, "still pending", c.ok("confirm", "show", id, "--as", "human:owner"), "pending")
}
