package ui

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	tea "charm.land/bubbletea/v2"

	"github.com/virgo-hub/virgo-tui/internal/ui/keymap"
)

// RunOptions configure Run.
type RunOptions struct {
	// Home is the installation's home; the log and keys.json default there.
	Home string
	// LogPath overrides <home>/console.log. The console never logs to the
	// screen: the terminal belongs to the views.
	LogPath string
	// KeysPath overrides <home>/keys.json.
	KeysPath string
	// ConfigPath overrides <home>/console.json (see ConsoleConfig).
	ConfigPath string
	// Options are passed to New (Logger and Keys are filled in by Run).
	Options Options
	// Program holds more options of the terminal program, after Run's own:
	// a remote terminal's input, output, environment (TERM, NO_COLOR),
	// colour profile and size (an SSH session's). Without them the console
	// runs on the process's own terminal.
	Program []tea.ProgramOption
	// Resize delivers a remote terminal's size changes, which no signal
	// reports (an SSH session's window-change requests); nil for the
	// process's own terminal.
	Resize <-chan tea.WindowSizeMsg
}

// Run opens the log, the key bindings and the console configuration and runs the console on the
// terminal until the operator quits or ctx ends.
func Run(ctx context.Context, c Client, o RunOptions) error {
	logPath := o.LogPath
	if logPath == "" {
		logPath = filepath.Join(o.Home, "console.log")
	}
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open console log: %w", err)
	}
	defer f.Close()
	keysPath := o.KeysPath
	if keysPath == "" {
		keysPath = filepath.Join(o.Home, keymap.FileName)
	}
	keys, err := keymap.Load(keysPath)
	if err != nil {
		return err
	}
	configPath := o.ConfigPath
	if configPath == "" {
		configPath = filepath.Join(o.Home, "console.json")
	}
	config, err := LoadConsoleConfig(configPath)
	if err != nil {
		return err
	}
	opts := o.Options
	opts.Keys = &keys
	opts.Arming, opts.Settle, opts.Notify = config.Arming, config.Settle, config.Notify
	opts.Logger = slog.New(slog.NewTextHandler(f, nil))
	opts.Context = ctx
	opts.Logger.Info("console start", "home", o.Home, "keys", keysPath, "config", configPath, "arming", opts.Arming, "settle", opts.Settle, "notify", fmt.Sprintf("%+v", opts.Notify))
	p := tea.NewProgram(New(c, opts), append([]tea.ProgramOption{tea.WithContext(ctx)}, o.Program...)...)
	if o.Resize != nil {
		done := make(chan struct{})
		defer close(done)
		go func() {
			for {
				select {
				case <-done:
					return
				case size, ok := <-o.Resize:
					if !ok {
						return
					}
					p.Send(size)
				}
			}
		}()
	}
	_, err = p.Run()
	if err != nil && ctx.Err() == nil {
		opts.Logger.Error("console ended", "err", err)
		return fmt.Errorf("console: %w", err)
	}
	opts.Logger.Info("console end")
	return nil
}
