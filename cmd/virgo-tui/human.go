package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/channel"
)

func init() { subcommands = append(subcommands, newHumanCmd) }

func newHumanCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "human",
		Short: "Send the bound human a message, a card or a todo card, as a persona (through the hub's tool calls)",
		Long: `A persona's side of the human channel (virgo-channel): what it sends its bound
human, who reads and answers it in the console's inbox (or with virgo-tui inbox).
Each command is one tool call (send_human_message, send_human_card,
send_human_todo) under the acting persona's stamp (--as ADDRESS).`,
	}
	cmd.AddCommand(newHumanSendCmd(a), newHumanCardCmd(a), newHumanTodoCmd(a))
	return cmd
}

// humanItem prints the item a send made: its id and what it holds.
func humanItem(w io.Writer, result json.RawMessage) error {
	it, err := decodeResult[channel.Item](result)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s sent to %s (%s): %s\n", it.ID, it.Human, it.Kind, itemContent(it))
	return err
}

func newHumanSendCmd(a *app) *cobra.Command {
	var thread string
	cmd := &cobra.Command{
		Use:     "send TEXT [--thread ID]",
		Short:   "Send the bound human a message (send_human_message)",
		Example: `  virgo-tui human send --as root/secretary "The release is ready; shall I publish it?"`,
		Args:    cobra.ExactArgs(1),
	}
	f := addToolFlags(cmd)
	cmd.Flags().StringVar(&thread, "thread", "", "continue the thread of this item (its id, h-N)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		in := map[string]any{"text": args[0]}
		if thread != "" {
			in["thread"] = thread
		}
		return a.callTool(cmd, f, "send_human_message", in, humanItem)
	}
	return cmd
}

func newHumanCardCmd(a *app) *cobra.Command {
	var title, body string
	var actions []string
	cmd := &cobra.Command{
		Use:     "card --title LINE --body TEXT [--action LINE]...",
		Short:   "Send the bound human a card (send_human_card)",
		Example: `  virgo-tui human card --as root/secretary --title "Publish v1.2.0" --body "smoke tests passed" --action approve --action reject`,
		Args:    cobra.NoArgs,
	}
	f := addToolFlags(cmd)
	cmd.Flags().StringVar(&title, "title", "", "one line (required)")
	cmd.Flags().StringVar(&body, "body", "", "the card's text (required)")
	cmd.Flags().StringArrayVar(&actions, "action", nil, fmt.Sprintf("an action the human may take (repeat, up to %d)", channel.MaxActions))
	for _, name := range []string{"title", "body"} {
		cmd.MarkFlagRequired(name)
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		in := map[string]any{"title": title, "body": body}
		if len(actions) > 0 {
			in["actions"] = actions
		}
		return a.callTool(cmd, f, "send_human_card", in, humanItem)
	}
	return cmd
}

func newHumanTodoCmd(a *app) *cobra.Command {
	var title string
	var items []string
	cmd := &cobra.Command{
		Use:     "todo --title LINE --item LINE [--item LINE]...",
		Short:   "Send the bound human a todo card to tick (send_human_todo)",
		Example: `  virgo-tui human todo --as root/secretary --title "Release checklist" --item "tag v1.2.0" --item "publish notes"`,
		Args:    cobra.NoArgs,
	}
	f := addToolFlags(cmd)
	cmd.Flags().StringVar(&title, "title", "", "one line (required)")
	cmd.Flags().StringArrayVar(&items, "item", nil, fmt.Sprintf("a line to tick (repeat, 1 to %d; required)", channel.MaxTodo))
	for _, name := range []string{"title", "item"} {
		cmd.MarkFlagRequired(name)
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return a.callTool(cmd, f, "send_human_todo", map[string]any{"title": title, "items": items}, humanItem)
	}
	return cmd
}
