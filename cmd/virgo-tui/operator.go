package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/operatorkeys"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

func init() { subcommands = append(subcommands, newOperatorCmd) }

func newOperatorCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "operator",
		Short: "Enrol, list and remove the humans who operate the installation",
		Long: `Humans are enrolled, never minted: a command acting as human:<name> works only
once <name> has an operator token in <home>/operators (0600). The first
operator is enrolled at first install; every later one by an enrolled
operator. See docs/security.md for what a token does and does not protect.`,
	}
	cmd.AddCommand(newOperatorAddCmd(a), newOperatorListCmd(a), newOperatorRemoveCmd(a))
	return cmd
}

// uidFlag is --uid: a Unix user id, or "self" for the running user.
type uidFlag struct{ uid int }

func (f *uidFlag) String() string {
	if f.uid == hubapi.NoUID {
		return ""
	}
	return strconv.Itoa(f.uid)
}

// Set accepts a user id or "self".
func (f *uidFlag) Set(v string) error {
	if v == "self" {
		f.uid = os.Getuid()
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("--uid %q: give a Unix user id (0 or more) or self", v)
	}
	f.uid = n
	return nil
}

// Type names the flag's value in --help.
func (f *uidFlag) Type() string { return "UID|self" }

func newOperatorAddCmd(a *app) *cobra.Command {
	uid := uidFlag{uid: hubapi.NoUID}
	out := outputTable
	var sshKeys []string
	cmd := &cobra.Command{
		Use:   "add NAME [--uid UID|self] [--ssh-key FILE|KEY]...",
		Short: "Enrol a human as an operator (by an enrolled operator, or at first install), or list SSH keys for one",
		Long: `Enrol a human as an operator: their token is written 0600 to
<home>/operators/NAME.token. With --ssh-key (a public key file such as
~/.ssh/id_ed25519.pub, or the key's text; repeatable) the human is enrolled
for the SSH console only (virgo-tui serve --ssh): the keys are listed for them
in the store, in one transaction, the key alone says who is there, and no
token is written — nothing on this host can act as them. (The first operator
of a first install always gets a token: they are the human at this machine.)
A key already listed for another human is refused. Run again with --ssh-key
for a human already enrolled to list more keys for them.`,
		Example: `  virgo-tui operator add ada --ssh-key ~/ada_id_ed25519.pub
  virgo-tui operator add ada --ssh-key "ssh-ed25519 AAAAC3Nza… ada@laptop"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := registry.CreateHome(a.homeFlag)
			if err != nil {
				return err
			}
			name, err := registry.NormalizeHuman(args[0])
			if err != nil {
				return err
			}
			keys, err := readSSHKeys(sshKeys)
			if err != nil {
				return err
			}
			ops, err := hubapi.Operators(home.Dir)
			if err != nil {
				return err
			}
			var e hubapi.Enrolled
			if len(ops) == 0 {
				// First install: nobody is enrolled yet to vouch for anyone.
				if err := a.checkFirstInstall(cmd.Context(), home, name); err != nil {
					return err
				}
				if _, err := hubapi.EnrolOperator(home.Dir, name, uid.uid); err != nil {
					return err
				}
				o, err := hubapi.ReadOperator(hubapi.OperatorTokenPath(home.Dir, strings.TrimPrefix(name, "human:")))
				if err != nil {
					return err
				}
				e = o.Enrolled(home.Dir)
				if keys != "" {
					// The keys go to the store through the hub, as the
					// human just enrolled: the only one who may.
					if e, err = enrolKeysAs(cmd.Context(), home, a.storeFlag, name, uid.uid, keys); err != nil {
						return err
					}
				}
			} else if err := a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
				e, err = c.EnrolOperatorKeys(ctx, name, uid.uid, keys)
				return err
			}); err != nil {
				return err
			}
			if out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), e)
			}
			bound := ""
			if e.UID != nil {
				bound = fmt.Sprintf(", bound to uid %d", *e.UID)
			}
			w := cmd.OutOrStdout()
			if e.TokenFile == "" {
				_, err = fmt.Fprintf(w, "enrolled %s for the SSH console only: no token file, so nothing on this host acts as them\n", e.Principal)
			} else {
				_, err = fmt.Fprintf(w, "enrolled %s%s; token in %s (0600): hand it to them, or they act with --as %s\n",
					e.Principal, bound, e.TokenFile, e.Principal)
			}
			if err != nil {
				return err
			}
			for _, k := range e.SSHKeys {
				if _, err := fmt.Fprintf(w, "ssh key %s %s: %s connects with ssh -p PORT virgo@HOST\n",
					k.Fingerprint, termtext.Clean(k.Comment), e.Principal); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().Var(&uid, "uid", "bind the operator to a Unix user: only connections from that user may use the token")
	cmd.Flags().StringArrayVar(&sshKeys, "ssh-key", nil, "a public key file (~/.ssh/id_ed25519.pub) or the key's text, identifying the human on the SSH console; repeatable")
	cmd.Flags().VarP(&out, "output", "o", "output format: table or json")
	return cmd
}

// maxKeyFile bounds an --ssh-key file: a public key file is a few hundred bytes.
const maxKeyFile = 64 << 10

// readSSHKeys reads each --ssh-key value — a file when one exists at that
// path, else the key's text — checks the keys, and returns them as
// authorized_keys lines ("" for none).
func readSSHKeys(values []string) (string, error) {
	var lines []string
	for _, v := range values {
		text := v
		if fi, err := os.Stat(v); err == nil && fi.Mode().IsRegular() {
			f, err := os.Open(v)
			if err != nil {
				return "", fmt.Errorf("--ssh-key %s: %w", termtext.Clean(v), err)
			}
			b, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
			f.Close()
			if err != nil {
				return "", fmt.Errorf("--ssh-key %s: %w", termtext.Clean(v), err)
			}
			if len(b) > maxKeyFile {
				return "", fmt.Errorf("--ssh-key %s: over %d bytes; give the public key (.pub) file", termtext.Clean(v), maxKeyFile)
			}
			text = string(b)
		}
		if _, err := operatorkeys.Parse(text); err != nil {
			return "", fmt.Errorf("--ssh-key %s: %w", termtext.Clean(v), err)
		}
		lines = append(lines, strings.TrimSpace(text))
	}
	return strings.Join(lines, "\n"), nil
}

// enrolKeysAs lists keys for human name, acting as that human (at first
// install, the one just enrolled), through home's hub: when none answers,
// one started in this process on the command's store (storeSpec: --store).
func enrolKeysAs(ctx context.Context, home registry.Home, storeSpec, name string, uid int, keys string) (hubapi.Enrolled, error) {
	c, err := hubclient.Dial(ctx, home.Dir, hubclient.AsOperator(name), hubclient.WithStarter(hub.InProcessOn(home, storeSpec)))
	if err != nil {
		return hubapi.Enrolled{}, err
	}
	e, err := c.EnrolOperatorKeys(ctx, name, uid, keys)
	return e, errors.Join(err, c.Close())
}

func newOperatorListCmd(a *app) *cobra.Command {
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the enrolled operators (names, bindings and SSH key fingerprints; never tokens)",
		Long: `List the enrolled humans through the hub (GET /v1/operators), as an
enrolled operator: each one's principal, the Unix user the token is bound to
(any when unbound) and the fingerprints of the SSH keys listed for them
(the SSH console). -o json adds the token file's path and the keys whole.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var ops []hubapi.Enrolled
			if err := a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) (err error) {
				ops, err = c.Operators(ctx)
				return err
			}); err != nil {
				return err
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), ops)
			}
			tw := newTable(cmd.OutOrStdout())
			fmt.Fprintln(tw, "OPERATOR\tUID\tSSH KEYS")
			for _, o := range ops {
				bound := "any"
				if o.UID != nil {
					bound = strconv.Itoa(*o.UID)
				}
				keys := make([]string, 0, len(o.SSHKeys))
				for _, k := range o.SSHKeys {
					keys = append(keys, termtext.Clean(k.Fingerprint))
				}
				if len(keys) == 0 {
					keys = append(keys, "-")
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", termtext.Clean(o.Principal), bound, strings.Join(keys, ", "))
			}
			return tw.Flush()
		},
	}
	out = addOutputFlag(cmd)
	return cmd
}

func newOperatorRemoveCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "Revoke an operator's token (their open consoles and streams end within a second)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := registry.NormalizeHuman(args[0])
			if err != nil {
				return err
			}
			if err := a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
				return c.RemoveOperator(ctx, name)
			}); err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "removed %s: their token no longer works\n", name)
			return err
		},
	}
}
