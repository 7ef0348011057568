package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSSHConsoleEndToEnd is the proof with the system's OpenSSH
// client in a real terminal: ada's key is enrolled, `serve --ssh` runs the
// hub with its SSH console, and ada connects with `ssh -tt` (host key
// pinned, NO_COLOR sent), keys arrive in a burst ("2a" in one packet: the
// queue appears and a is pressed at once) and approve nothing, then a on
// the armed row approves; the audit entry names ada and the fingerprint of
// the key she signed with.
func TestSSHConsoleEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the SSH console test builds the binary and drives ssh in tmux (about 10 s)")
	}
	requireTools(t, "the SSH console test runs the system's OpenSSH client in tmux", "tmux", "ssh", "ssh-keygen")
	bin := buildBinary(t)
	dir, err := os.MkdirTemp("", "vtssh") // short: the hub's socket lives under the home
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "home")
	key := filepath.Join(dir, "ada_ed25519")
	sh(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ada@laptop", "-f", key)
	fingerprint := strings.Fields(sh(t, "ssh-keygen", "-l", "-E", "sha256", "-f", key+".pub"))[1]

	cli := &console{bin: bin, home: home, term: &term{t: t}}
	cli.cli("operator", "add", "ada", "--ssh-key", key+".pub")

	port, knownHosts := serveSSH(t, bin, dir, home, nil)

	var reg struct {
		Confirmation struct {
			ID string `json:"id"`
		} `json:"confirmation"`
	}
	cli.cliJSON(&reg, "persona", "add", "--scope", "root", "--role", "secretary", "--name", "Spica")
	id := reg.Confirmation.ID

	c := sshConsole(t, dir, bin, home, key, port, knownHosts)
	c.waitFor("as human:ada", startTimeout)
	c.waitFor("[1 Presence]", stepTimeout)
	c.waitFor("root/secretary", stepTimeout)

	// A burst: the queue view and a, in one packet. The row became
	// visible with the same read: nothing is approved.
	c.burst("2a")
	c.waitFor("look first", stepTimeout)
	if got := sshDecisions(c, id); len(got) != 0 {
		c.fatalf("the burst 2a decided %s: %+v", id, got)
	}
	c.press("a", "approved: system:persona-add root/secretary#1")
	c.press("q", exitMarker)

	got := sshDecisions(c, id)
	if len(got) != 1 || got[0].Event != "approved" || got[0].Actor != "human:ada" ||
		got[0].Via == nil || got[0].Via.Transport != "ssh" || got[0].Via.Key != fingerprint {
		t.Fatalf("audit of %s: %+v; want approved by human:ada via ssh %s", id, got, fingerprint)
	}
	if text := string(cli.cli("audit")); !strings.Contains(text, "human:ada via ssh "+fingerprint) {
		t.Fatalf("audit does not print the transport and the key:\n%s", text)
	}
}

// TestSSHWhileAConsoleIsOpen: a console opened first holds the home with a
// hub inside itself; `serve --ssh` started then takes the home over (the
// console's hub hands it over, and the console carries on with serve's
// hub), ada approves over SSH, and the console at the machine still
// approves afterwards, through the same installation.
func TestSSHWhileAConsoleIsOpen(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the handover test builds the binary and drives a console and ssh in tmux (about 15 s)")
	}
	requireTools(t, "the handover test runs a console and the system's OpenSSH client in tmux", "tmux", "ssh", "ssh-keygen")
	bin := buildBinary(t)
	dir, err := os.MkdirTemp("", "vtssh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "home")
	key := filepath.Join(dir, "ada_ed25519")
	sh(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ada@laptop", "-f", key)
	cli := &console{bin: bin, home: home, term: &term{t: t}}
	cli.cli("operator", "add", "ada", "--ssh-key", key+".pub")
	var first struct {
		Confirmation struct{ ID string }
	}
	cli.cliJSON(&first, "persona", "add", "--scope", "root", "--role", "secretary", "--name", "Spica")

	local := &console{term: startTerm(t, mkdir(t, dir, "local"), []string{"TERM=xterm-256color", "NO_COLOR=1",
		"VIRGO_PRINCIPAL=" + operator}, bin, "--home", home), bin: bin, home: home}
	local.logs = append(local.logs, filepath.Join(home, "console.log"))
	local.waitFor("hub ● connected", startTimeout)
	local.press("2", "[2 Queue")
	local.waitFor("root/secretary", stepTimeout)

	port, knownHosts := serveSSH(t, bin, dir, home, []string{"VIRGO_PRINCIPAL=" + operator})
	if b, _ := os.ReadFile(filepath.Join(dir, "serve.log")); !strings.Contains(string(b), "over to this serve; its clients carry on here") {
		t.Fatalf("serve does not say it took the console's home over:\n%s", b)
	}

	remote := sshConsole(t, mkdir(t, dir, "remote"), bin, home, key, port, knownHosts)
	remote.waitFor("as human:ada", startTimeout)
	remote.press("2", "[2 Queue")
	remote.waitFor("root/secretary", stepTimeout)
	remote.press("a", "approved: system:persona-add root/secretary#1")
	if got := sshDecisions(cli, first.Confirmation.ID); len(got) != 1 || got[0].Via == nil || got[0].Via.Transport != "ssh" {
		t.Fatalf("audit of %s: %+v; want approved over ssh", first.Confirmation.ID, got)
	}

	// The console at the machine goes on, on serve's hub.
	var second struct {
		Confirmation struct{ ID string }
	}
	cli.cliJSON(&second, "persona", "add", "--scope", "home", "--role", "secretary", "--name", "Heze")
	local.waitFor("home/secretary", stepTimeout)
	local.press("a", "approved: system:persona-add home/secretary#1")
	if got := sshDecisions(cli, second.Confirmation.ID); len(got) != 1 || got[0].Event != "approved" || got[0].Via != nil {
		t.Fatalf("audit of %s: %+v; want approved at the machine", second.Confirmation.ID, got)
	}
	remote.waitFor("home/secretary", stepTimeout) // the SSH console sees it live, on the same hub
}

// serveSSH starts `serve --ssh` on a free port of loopback for home, with
// env added, waits until it serves (failing with its log if it exits
// first), and pins its host key in a known_hosts file; it returns the port
// and that file.
func serveSSH(t *testing.T, bin, dir, home string, env []string) (port, knownHosts string) {
	t.Helper()
	port = freePort(t)
	serveLog := filepath.Join(dir, "serve.log")
	logf, err := os.Create(serveLog)
	if err != nil {
		t.Fatal(err)
	}
	serve := exec.Command(bin, "--home", home, "serve", "--ssh", ":"+port)
	serve.Env = append(os.Environ(), env...)
	serve.Stdout, serve.Stderr = logf, logf
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	t.Cleanup(func() {
		_ = serve.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(startTimeout):
			_ = serve.Process.Kill()
			<-exited
		}
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(serveLog)
			t.Logf("--- serve's log ---\n%s", tail(b, 3000))
		}
	})
	want := "ssh console on 127.0.0.1:" + port
	var started string
	for deadline := time.Now().Add(startTimeout); ; time.Sleep(100 * time.Millisecond) {
		b, _ := os.ReadFile(serveLog)
		if started = string(b); strings.Contains(started, want) {
			break
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("serve --ssh exited (%v) before serving:\n%s", err, started)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %q in %s:\n%s", startTimeout, want, serveLog, started)
		}
	}
	// The host key's fingerprint is printed at start; the human pins the key.
	hostKey := filepath.Join(home, "ssh", "host_ed25519_key")
	hostFP := strings.Fields(sh(t, "ssh-keygen", "-l", "-E", "sha256", "-f", hostKey))[1]
	if !strings.Contains(started, "host key "+hostFP) {
		t.Fatalf("serve did not print the host key's fingerprint %s:\n%s", hostFP, started)
	}
	knownHosts = filepath.Join(dir, "known_hosts")
	pub := sh(t, "ssh-keygen", "-y", "-f", hostKey)
	if err := os.WriteFile(knownHosts, []byte("[127.0.0.1]:"+port+" "+pub), 0o600); err != nil {
		t.Fatal(err)
	}
	return port, knownHosts
}

// sshConsole connects with the system's OpenSSH client as the holder of
// key, in tmux under dir: host key pinned, NO_COLOR sent.
func sshConsole(t *testing.T, dir, bin, home, key, port, knownHosts string) *console {
	t.Helper()
	tm := startTerm(t, dir, []string{"TERM=xterm-256color"}, "ssh", "-tt", "-F", "/dev/null", "-p", port, "-i", key,
		"-o", "IdentitiesOnly=yes", "-o", "UserKnownHostsFile="+knownHosts, "-o", "StrictHostKeyChecking=yes",
		"-o", "SetEnv=NO_COLOR=1", "-o", "BatchMode=yes", "virgo@127.0.0.1")
	return &console{term: tm, bin: bin, home: home}
}

// mkdir makes directory name under dir, for one terminal's files.
func mkdir(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

// sshAuditEntry is what the SSH test reads of an `audit -o json` entry.
type sshAuditEntry struct {
	Event          string `json:"event"`
	ConfirmationID string `json:"confirmation_id"`
	Actor          string `json:"actor"`
	Via            *struct {
		Transport string `json:"transport"`
		Key       string `json:"key"`
	} `json:"via"`
}

// sshDecisions is the audit log's decisions of confirmation id.
func sshDecisions(c *console, id string) []sshAuditEntry {
	var log []sshAuditEntry
	c.cliJSON(&log, "audit")
	var out []sshAuditEntry
	for _, e := range log {
		if e.ConfirmationID == id && e.Event != "requested" {
			out = append(out, e)
		}
	}
	return out
}

// sh runs a tool and returns its standard output.
func sh(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr)
	}
	return string(out)
}
