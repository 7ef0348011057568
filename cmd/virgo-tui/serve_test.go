package main

import (
	"errors"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hub"
)

// --confirm-ttl wins over $VIRGO_CONFIRM_TTL, which wins over the default.
func TestServeConfirmTTLPrecedence(t *testing.T) {
	cases := []struct {
		env  string
		set  bool
		flag time.Duration
		want time.Duration
		bad  bool
	}{
		{env: "", want: 0},
		{env: "15m", want: 15 * time.Minute},
		{env: "15m", set: true, flag: 2 * time.Hour, want: 2 * time.Hour},
		{env: "soon", set: true, flag: time.Minute, want: time.Minute}, // the flag wins; the env is not read
		{env: "soon", bad: true},
		{env: "0s", bad: true},
		{set: true, flag: 0, bad: true},
		{set: true, flag: -time.Minute, bad: true},
	}
	for _, tc := range cases {
		t.Setenv(hub.ConfirmTTLEnv, tc.env)
		got, err := confirmTTL(tc.set, tc.flag)
		if got != tc.want || tc.bad != (err != nil) || (err != nil && !errors.Is(err, hub.ErrBadConfirmTTL)) {
			t.Errorf("env %q flag %v (set %v): %v, %v; want %v (error %v)", tc.env, tc.flag, tc.set, got, err, tc.want, tc.bad)
		}
	}
}

func TestServeRefusesABadConfirmTTL(t *testing.T) {
	c := shortCLI(t)
	t.Setenv(hub.ConfirmTTLEnv, "an hour")
	wantContains(t, "bad env", c.fails("serve"), `$VIRGO_CONFIRM_TTL: confirmation TTL "an hour"`, "positive duration such as 30m")
	wantContains(t, "bad flag", c.fails("serve", "--confirm-ttl", "0s"), "--confirm-ttl 0s", "positive duration")
}
