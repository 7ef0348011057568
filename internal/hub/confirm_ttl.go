package hub

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// ConfirmTTLEnv names the environment variable that sets how long a new
// confirmation waits before it expires (and counts as denied), for a hub
// started without an explicit TTL: an in-process hub (Connect) and
// `virgo-tui serve` without --confirm-ttl.
const ConfirmTTLEnv = "VIRGO_CONFIRM_TTL"

// ErrBadConfirmTTL: a confirmation TTL that is not a positive duration.
var ErrBadConfirmTTL = errors.New("a confirmation TTL is a positive duration such as 30m, 2h or 90s")

// ParseConfirmTTL reads a confirmation TTL in Go's duration syntax ("30m",
// "1h30m"). A zero, negative or malformed value is refused rather than
// quietly replaced by the default: a typo must not leave confirmations
// waiting an hour when the operator meant minutes.
func ParseConfirmTTL(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("confirmation TTL %q: %w", s, ErrBadConfirmTTL)
	}
	return d, nil
}

// ConfirmTTLFromEnv is $VIRGO_CONFIRM_TTL as a TTL, or 0 (the default,
// queue.DefaultTTL) when it is unset or empty.
func ConfirmTTLFromEnv() (time.Duration, error) {
	s, ok := os.LookupEnv(ConfirmTTLEnv)
	if !ok || strings.TrimSpace(s) == "" {
		return 0, nil
	}
	d, err := ParseConfirmTTL(s)
	if err != nil {
		return 0, fmt.Errorf("$%s: %w", ConfirmTTLEnv, err)
	}
	return d, nil
}

// EnvConfig is the configuration of a hub started without flags, as
// Connect starts one in-process: the confirmation TTL from
// $VIRGO_CONFIRM_TTL, the rest default.
func EnvConfig() (Config, error) {
	ttl, err := ConfirmTTLFromEnv()
	return Config{ConfirmTTL: ttl}, err
}
