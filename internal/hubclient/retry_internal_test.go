package hubclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// "Every transport error class (EPIPE, ECONNRESET, EOF,
// refused, missing socket) is handled there" — each is retried, and
// nothing else is: an answer of the hub, or the caller giving up, is final.
func TestTransportErrorsAreRetriedAndNothingElse(t *testing.T) {
	op := func(err error) error {
		return fmt.Errorf("POST /v1/x: %w", &net.OpError{Op: "read", Net: "unix", Err: err})
	}
	for _, tc := range []struct {
		err   error
		class string
	}{
		{op(os.NewSyscallError("connect", syscall.ENOENT)), "no socket"},
		{op(os.NewSyscallError("connect", syscall.ECONNREFUSED)), "connection refused"},
		{op(os.NewSyscallError("read", syscall.ECONNRESET)), "connection reset"},
		{op(os.NewSyscallError("write", syscall.EPIPE)), "broken pipe"},
		{fmt.Errorf("read answer: %w", io.EOF), "connection closed"},
		{fmt.Errorf("read answer: %w", io.ErrUnexpectedEOF), "connection closed"},
		{hubapi.FromError(fmt.Errorf("commit: %w", hubapi.ErrShuttingDown)), "hub stopping"},
		{hubapi.FromError(confirm.ErrAlreadyDecided), ""},
		{hubapi.FromError(errors.New("disk on fire")), ""},
		{context.Canceled, ""},
		{fmt.Errorf("dial: %w", context.DeadlineExceeded), ""},
		{errors.New("unreadable answer"), ""},
	} {
		if got := transportClass(tc.err); got != tc.class {
			t.Errorf("%v: class %q, want %q", tc.err, got, tc.class)
		}
	}
}

// The budget comes from $VIRGO_HUB_RETRY when set; a bad value is refused
// with a named error rather than read as "no retries".
func TestRetryBudgetFromEnvironment(t *testing.T) {
	t.Setenv(RetryBudgetEnv, "")
	if d, err := retryBudgetFromEnv(); err != nil || d != DefaultRetryBudget {
		t.Fatalf("unset: %v, %v; want %v", d, err, DefaultRetryBudget)
	}
	t.Setenv(RetryBudgetEnv, "750ms")
	if d, err := retryBudgetFromEnv(); err != nil || d.Milliseconds() != 750 {
		t.Fatalf("750ms: %v, %v", d, err)
	}
	for _, bad := range []string{"soon", "-1s"} {
		t.Setenv(RetryBudgetEnv, bad)
		if _, err := retryBudgetFromEnv(); !errors.Is(err, ErrBadRetryBudget) {
			t.Fatalf("%q: %v, want ErrBadRetryBudget", bad, err)
		}
	}
}

// A write that never reached a hub says nothing more; one whose connection
// broke after it was sent warns that the hub may have applied it.
func TestAFailedWriteSaysWhetherItMayHaveBeenApplied(t *testing.T) {
	var never attempts
	never.record("connection refused", syscall.ECONNREFUSED)
	if w := never.mayHaveApplied("POST /v1/personas"); w != "" {
		t.Fatalf("a write that never reached a hub: %q", w)
	}
	var broke attempts
	broke.record("connection reset", syscall.ECONNRESET)
	broke.record("no socket", syscall.ENOENT)
	if w := broke.mayHaveApplied("POST /v1/personas"); !strings.Contains(w, "may have applied") {
		t.Fatalf("a write cut off: %q", w)
	}
	if w := broke.mayHaveApplied("GET /v1/personas"); w != "" {
		t.Fatalf("a read: %q", w)
	}
}
