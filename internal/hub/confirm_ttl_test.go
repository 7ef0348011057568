package hub

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
)

func TestConfirmTTLFromEnv(t *testing.T) {
	cases := []struct {
		env  string
		want time.Duration
		bad  bool
	}{
		{"", 0, false}, {"30m", 30 * time.Minute, false}, {" 2h ", 2 * time.Hour, false}, {"90s", 90 * time.Second, false},
		{"0", 0, true}, {"-5m", 0, true}, {"10", 0, true}, {"an hour", 0, true},
	}
	for _, tc := range cases {
		t.Setenv(ConfirmTTLEnv, tc.env)
		got, err := ConfirmTTLFromEnv()
		if tc.bad != (err != nil) || got != tc.want {
			t.Errorf("%s=%q: %v, %v; want %v (error %v)", ConfirmTTLEnv, tc.env, got, err, tc.want, tc.bad)
		}
		if tc.bad && !errors.Is(err, ErrBadConfirmTTL) {
			t.Errorf("%s=%q: %v, want ErrBadConfirmTTL", ConfirmTTLEnv, tc.env, err)
		}
		if _, err := EnvConfig(); tc.bad != (err != nil) {
			t.Errorf("EnvConfig with %s=%q: %v", ConfirmTTLEnv, tc.env, err)
		}
	}
}

// A hub configured from the environment gives new confirmations that TTL.
func TestEnvConfigSetsTheConfirmationExpiry(t *testing.T) {
	t.Setenv(ConfirmTTLEnv, "7m")
	cfg, err := EnvConfig()
	mustNil(t, err)
	th := startHub(t, shortHome(t), cfg, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	res, err := th.runtime(t, lead).RequestConfirmation(context.Background(), deployOp("ttl-1"))
	mustNil(t, err)
	c := res.Confirmation
	if got := c.ExpiresAt.Sub(c.CreatedAt); got != 7*time.Minute {
		t.Fatalf("confirmation expires %v after it was created, want 7m", got)
	}
}

// The hub a command or console starts in-process (InProcessOn) honours
// $VIRGO_CONFIRM_TTL as `serve` does, and refuses a bad value before it
// starts anything.
func TestConnectedHubHonoursConfirmTTL(t *testing.T) {
	home := shortHome(t)
	t.Setenv(ConfirmTTLEnv, "an hour")
	if _, err := hubclient.Dial(context.Background(), home.Dir, hubclient.AsOperator("henry"), hubclient.WithStarter(InProcessOn(home, ""))); !errors.Is(err, ErrBadConfirmTTL) {
		t.Fatalf("starting a hub with a bad TTL: %v, want ErrBadConfirmTTL", err)
	}
	t.Setenv(ConfirmTTLEnv, "7m")
	op, err := hubclient.Dial(context.Background(), home.Dir, hubclient.AsOperator("henry"), hubclient.WithStarter(InProcessOn(home, "")))
	mustNil(t, err)
	defer func() { mustNil(t, op.Close()) }()
	ctx := context.Background()
	reg, err := op.Register(ctx, hubapi.RegisterRequest{Address: "work/core/lead", Name: "Spica", Human: "human:henry"})
	mustNil(t, err)
	if got := reg.Confirmation.ExpiresAt.Sub(reg.Confirmation.CreatedAt); got != 7*time.Minute {
		t.Fatalf("the activation expires %v after it was created, want 7m", got)
	}
}
