package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/harness"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
)

func init() { subcommands = append(subcommands, newMsgCmd) }

// FenceEnv names the instance fence a command presents when it acts for a
// persona runtime that claimed one (the runtime hands it to the commands
// it runs): without it, every call of a persona is refused as fenced once
// an instance holds the generation's fence.
const FenceEnv = harness.FenceEnv

func newMsgCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "msg",
		Short: "Coordination messages between personas: send, list, ack",
		Long: `A coordination message goes to a seat (an address) and waits in its inbox,
delivered to whichever generation holds the seat, until that holder acks it.
Commands act as a persona (--as ADDRESS, with its token) through the hub, decided
under its stamp like the send_broker_message, list_coordination_messages and
ack_coordination_message tools. A runtime that claimed an instance fence hands it
to the commands it runs as $VIRGO_FENCE.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newMsgSendCmd(a), newMsgListCmd(a), newMsgAckCmd(a))
	return cmd
}

func newMsgSendCmd(a *app) *cobra.Command {
	var d coord.Draft
	cmd := &cobra.Command{
		Use:   "send --to ADDRESS [--subject LINE] [--reply-to ID] BODY|-",
		Short: "Send a message to a seat (- reads the body from standard input)",
		Example: `  virgo-tui msg send --as work/core/lead --to work/core/deputy --subject review "please review core#12"
  git log -1 | virgo-tui msg send --as work/core/deputy --to work/core/lead -`,
		Args: cobra.ExactArgs(1),
	}
	out := addOutputFlag(cmd)
	cmd.Flags().StringVar(&d.To, "to", "", "the recipient seat's address (required)")
	cmd.Flags().StringVar(&d.Subject, "subject", "", "one line")
	cmd.Flags().StringVar(&d.ReplyTo, "reply-to", "", "the id of the message this answers")
	cmd.MarkFlagRequired("to")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		d.Body = args[0]
		if d.Body == "-" {
			b, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), coord.MaxBody+1))
			if err != nil {
				return err
			}
			d.Body = string(b)
		}
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			m, err := c.SendMessage(ctx, d)
			if err != nil {
				return err
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), m)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "sent %s to %s\n", m.ID, m.To)
			return err
		})
	}
	return cmd
}

func newMsgListCmd(a *app) *cobra.Command {
	var seat, after string
	var limit int
	var all bool
	cmd := &cobra.Command{
		Use:   "list [--seat ADDRESS] [--after TOKEN] [--limit N] [--all]",
		Short: "List the messages waiting in an inbox, oldest first",
		Long: `As a persona: its own seat's inbox. As an operator: the inbox of --seat.
One page at a time (--limit, at most 500; --after the "next" of the previous page),
or every page with --all.`,
		Example: `  virgo-tui msg list --as work/core/deputy
  virgo-tui msg list --seat work/core/deputy --all -o json`,
		Args: cobra.NoArgs,
	}
	out := addOutputFlag(cmd)
	cmd.Flags().StringVar(&seat, "seat", "", "the seat whose inbox an operator reads")
	cmd.Flags().StringVar(&after, "after", "", "continue after this page token")
	cmd.Flags().IntVar(&limit, "limit", 0, "messages per page (default 50, at most 500)")
	cmd.Flags().BoolVar(&all, "all", false, "read every page")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			var page coord.Page
			for {
				p, err := c.Messages(ctx, seat, after, limit)
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
			tw := newTable(cmd.OutOrStdout())
			fmt.Fprintln(tw, "ID\tFROM\tSENT\tSUBJECT\tBODY")
			for _, m := range page.Items {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.ID, m.From.Address, m.SentAt.Local().Format(time.DateTime),
					orDash(m.Subject), firstLine(m.Body, 60))
			}
			if page.Next != "" {
				fmt.Fprintf(tw, "(more: --after %s)\n", page.Next)
			}
			return tw.Flush()
		})
	}
	return cmd
}

func newMsgAckCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "ack ID...",
		Short:   "Acknowledge messages of the persona's inbox (again is harmless)",
		Example: "  virgo-tui msg ack --as work/core/deputy m-1.work.core.deputy m-2.work.core.deputy",
		Args:    cobra.MinimumNArgs(1),
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, ids []string) error {
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			acks := make([]coord.Ack, 0, len(ids))
			for _, id := range ids {
				ack, err := c.AckMessage(ctx, id)
				if err != nil {
					return err
				}
				acks = append(acks, ack)
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), acks)
			}
			for _, ack := range acks {
				note := "acked"
				if ack.Repeat {
					note = "already acked"
				}
				if _, err := fmt.Fprintf(cmd.OutOrStdout(), "%s %s\n", ack.ID, note); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return cmd
}

// orDash shows an empty text as "-" in a table.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// firstLine is the first line of s, cut to n runes with an ellipsis.
func firstLine(s string, n int) string {
	line, _, more := strings.Cut(s, "\n")
	if r := []rune(line); len(r) > n {
		line, more = string(r[:n]), true
	}
	if more {
		line += "…"
	}
	return line
}
