package wizard

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Run drives a real Bubble Tea program: ctrl+c (byte 0x03 on the input)
// cancels the wizard and Run returns the cancelled result.
func TestRunCancels(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := Run(ctx, &fakeBackend{snap: existing()}, Options{},
		tea.WithInput(strings.NewReader("wo\x03")), tea.WithOutput(io.Discard), tea.WithWindowSize(80, 24))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Cancelled || r.Submitted != nil {
		t.Fatalf("result %+v", r)
	}
}

func TestRunStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	defer pw.Close()
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, &fakeBackend{snap: existing()}, Options{},
			tea.WithInput(pr), tea.WithOutput(io.Discard), tea.WithWindowSize(80, 24))
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, tea.ErrProgramKilled) {
			t.Fatalf("err %v; want the program killed by the context", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop when its context ended")
	}
}
