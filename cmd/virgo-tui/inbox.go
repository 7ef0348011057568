package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

func init() { subcommands = append(subcommands, newInboxCmd) }

func newInboxCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "inbox",
		Short: "Your human channel: what personas sent you; reply, react, ack, tick, save",
		Long: `The human channel (virgo-channel) of the acting human (--as human:<name>): the
messages, cards, todo cards and files your personas sent you, and your answers,
one list oldest first. Each command goes through the hub as you.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newInboxListCmd(a), newInboxReplyCmd(a), newInboxReactCmd(a), newInboxAckCmd(a),
		newInboxTickCmd(a), newInboxAnswerCmd(a), newInboxSaveCmd(a))
	return cmd
}

func newInboxListCmd(a *app) *cobra.Command {
	var after string
	var limit int
	var all bool
	cmd := &cobra.Command{
		Use:     "list [--after TOKEN] [--limit N] [--all]",
		Short:   "List your channel, oldest first, with the unread count",
		Example: "  virgo-tui inbox list --all -o json",
		Args:    cobra.NoArgs,
	}
	out := addOutputFlag(cmd)
	cmd.Flags().StringVar(&after, "after", "", "continue after this page token")
	cmd.Flags().IntVar(&limit, "limit", 0, "items per page (default 50, at most 500)")
	cmd.Flags().BoolVar(&all, "all", false, "read every page")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			var page channel.Page
			for {
				p, err := c.Inbox(ctx, after, limit)
				if err != nil {
					return err
				}
				page.Items, page.Next = append(page.Items, p.Items...), p.Next
				if after = p.Next; !all || after == "" {
					break
				}
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), page)
			}
			st, err := c.InboxStatus(ctx)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s: %d unread\n", st.Human, st.Unread)
			for _, t := range st.Typing {
				fmt.Fprintf(w, "%s (%s) is typing\n", t.Persona.Address, t.Persona.Name)
			}
			if err := writeInboxConfirmations(ctx, w, c, st.Human); err != nil {
				return err
			}
			tw := newTable(w)
			fmt.Fprintln(tw, "ID\tKIND\tFROM\tTHREAD\tSTATE\tAT\tCONTENT")
			for _, it := range page.Items {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", it.ID, it.Kind, itemFrom(it), it.Thread, itemState(it),
					it.At.Local().Format(time.DateTime), itemContent(it))
			}
			if page.Next != "" {
				fmt.Fprintf(tw, "(more: --after %s)\n", page.Next)
			}
			return tw.Flush()
		})
	}
	return cmd
}

// writeInboxConfirmations prints the pending confirmations routed to
// human: the channel carries them as a view over the confirmation queue
// (never copies in the channel's store), decided with confirm approve or
// deny like any other.
func writeInboxConfirmations(ctx context.Context, w io.Writer, c *hubclient.Client, human string) error {
	list, err := c.Confirmations(ctx, false)
	if err != nil {
		return err
	}
	tw := newTable(w)
	n := 0
	for _, cf := range list {
		if cf.Unroutable || cf.Authority.String() != human {
			continue
		}
		if n == 0 {
			fmt.Fprintf(w, "waiting for your decision (virgo-tui confirm show|approve|deny ID):\n")
			fmt.Fprintln(tw, "ID\tREQUESTER\tOPERATION\tEXPIRES")
		}
		n++
		op := strings.Join(append([]string{cf.Operation.Tool, string(cf.Operation.Shape), cf.Operation.Target.String()},
			cf.Operation.ArgumentLines()...), " ")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", cf.ID, cf.Operation.Persona, op, cf.ExpiresAt.Local().Format(time.DateTime))
	}
	return tw.Flush()
}

// itemFrom is who wrote an item: the persona's address, or "you".
func itemFrom(it channel.Item) string {
	if it.FromHuman {
		return "you → " + it.Persona.Address
	}
	return it.Persona.Address
}

// itemState is an item's read state and reactions, in a few words.
func itemState(it channel.Item) string {
	s := "unread"
	if it.FromHuman {
		s = "sent"
	}
	if it.AckedAt != nil {
		s = "acked"
	}
	for _, r := range it.Reactions {
		s += " +" + r.Reaction
	}
	return s
}

// itemContent is the one line an item shows in a table.
func itemContent(it channel.Item) string {
	switch it.Kind {
	case channel.KindCard:
		return it.Title + ": " + firstLine(it.Text, 50)
	case channel.KindTodo:
		done := 0
		for _, t := range it.Todo {
			if t.Done {
				done++
			}
		}
		return fmt.Sprintf("%s (%d/%d done)", it.Title, done, len(it.Todo))
	case channel.KindFile:
		return fmt.Sprintf("%s (%d bytes, %s)", it.File.Name, it.File.Size, it.File.SHA256)
	}
	return firstLine(it.Text, 60)
}

func newInboxReplyCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "reply ID TEXT",
		Short:   "Reply to a persona's item (it reaches the persona's seat as a message)",
		Example: `  virgo-tui inbox reply h-3 "ship it"`,
		Args:    cobra.ExactArgs(2),
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			it, err := c.ReplyInbox(ctx, args[0], args[1])
			if err != nil {
				return err
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), it)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "replied %s to %s (%s)\n", it.ID, args[0], it.Persona.Address)
			return err
		})
	}
	return cmd
}

func newInboxReactCmd(a *app) *cobra.Command {
	var corr string
	cmd := &cobra.Command{
		Use:   "react ID REACTION [--correlation-id ID]",
		Short: "React to an item; the answer is applied, or not applied with the reason",
		Long: `The reaction is one of the catalogue (ack, approve, reject, question, done,
thumbs_up, thumbs_down). The outcome is definitive: applied, or not applied with a
reason; "unknown" only when it could not be established — run the same command
again (the same correlation id, by default react-<ID>-<REACTION>) and it applies at
most once and prints the one terminal outcome. Exit status 1, with the reason,
when not applied.`,
		Example: "  virgo-tui inbox react h-3 approve",
		Args:    cobra.ExactArgs(2),
	}
	out := addOutputFlag(cmd)
	cmd.Flags().StringVar(&corr, "correlation-id", "", "the reaction's correlation id (default react-<ID>-<REACTION>)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		id, reaction := args[0], args[1]
		if corr == "" {
			corr = "react-" + id + "-" + reaction
		}
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			o, err := c.ReactInbox(ctx, id, reaction, corr)
			switch {
			case err != nil:
				return err
			case !o.Known:
				return fmt.Errorf("reaction %s on %s: outcome unknown; run it again with --correlation-id %s", reaction, id, corr)
			case !o.Applied:
				return fmt.Errorf("reaction %s on %s not applied: %s", reaction, id, o.Reason)
			case *out == outputJSON:
				return writeJSON(cmd.OutOrStdout(), o)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s %s: applied\n", id, reaction)
			return err
		})
	}
	return cmd
}

func newInboxAckCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "ack ID...",
		Short:   "Mark personas' items read (again is harmless)",
		Example: "  virgo-tui inbox ack h-1 h-2",
		Args:    cobra.MinimumNArgs(1),
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, ids []string) error {
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			items := make([]channel.Item, 0, len(ids))
			for _, id := range ids {
				it, err := c.AckInbox(ctx, id)
				if err != nil {
					return err
				}
				items = append(items, it)
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), items)
			}
			for _, it := range items {
				if _, err := fmt.Fprintf(cmd.OutOrStdout(), "%s acked\n", it.ID); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return cmd
}

// errTodoLine is a tick's LINE that is not a line's number: todo lines are
// numbered from 1, in the console and on the command line alike.
var errTodoLine = errors.New("want the todo line's number, from 1 as the console shows it")

func newInboxTickCmd(a *app) *cobra.Command {
	var undo bool
	cmd := &cobra.Command{
		Use:     "tick ID LINE [--undo]",
		Short:   "Tick line LINE (from 1, as the console numbers them) of a todo card done, or not done with --undo",
		Example: "  virgo-tui inbox tick h-4 1",
		Args:    cobra.ExactArgs(2),
	}
	out := addOutputFlag(cmd)
	cmd.Flags().BoolVar(&undo, "undo", false, "mark the line not done")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		line, err := strconv.Atoi(args[1])
		if err != nil || line < 1 {
			return fmt.Errorf("LINE %q: %w", args[1], errTodoLine)
		}
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			it, err := c.TickInbox(ctx, args[0], line-1, !undo)
			if err != nil {
				return err
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), it)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n", it.ID, itemContent(it))
			return err
		})
	}
	return cmd
}

func newInboxAnswerCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "answer ID ACTION",
		Short: "Answer a card with one of its actions; the persona that sent it receives the answer",
		Long: `A card's actions are a question: the answer is recorded once, and the persona that
sent the card receives it as a coordination message naming the card. The same answer
again changes nothing; another is refused, naming the answer that stands.`,
		Example: "  virgo-tui inbox answer h-6 ship",
		Args:    cobra.ExactArgs(2),
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			it, err := c.AnswerInbox(ctx, args[0], args[1])
			if err != nil {
				return err
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), it)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s answered: %s\n", it.ID, termtext.Clean(it.Answer.Action))
			return err
		})
	}
	return cmd
}

func newInboxSaveCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "save ID PATH",
		Short:   "Save a file item to PATH (a new file), checked against its sha256",
		Example: "  virgo-tui inbox save h-5 ./report.txt",
		Args:    cobra.ExactArgs(2),
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			it, err := c.SaveInboxFile(ctx, args[0], args[1])
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "saved %s (%d bytes, %s) to %s\n", it.File.Name, it.File.Size, it.File.SHA256, args[1])
			return err
		})
	}
	return cmd
}
