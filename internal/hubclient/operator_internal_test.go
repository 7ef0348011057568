package hubclient

import (
	"testing"
)

// One rule names the default operator for every command and client:
// $VIRGO_PRINCIPAL, else human:$USER, else human:owner — never blank, and
// AsOperator("") follows it too (it once skipped $VIRGO_PRINCIPAL, so a
// persona's seat was looked up as human:$USER).
func TestDefaultOperatorIsOneRule(t *testing.T) {
	for _, c := range []struct{ principal, user, want string }{
		{"", "Ada", "human:ada"},
		{"", "", "human:owner"},
		{"", "not a login!", "human:owner"},
		{"human:henry", "ada", "human:henry"},
	} {
		t.Setenv(PrincipalEnv, c.principal)
		t.Setenv("USER", c.user)
		if got, err := DefaultOperator(); err != nil || got != c.want {
			t.Errorf("VIRGO_PRINCIPAL=%q USER=%q: DefaultOperator %q, %v; want %q", c.principal, c.user, got, err, c.want)
		}
		var cfg dialConfig
		if err := AsOperator("")(&cfg); err != nil || cfg.operator != c.want {
			t.Errorf("VIRGO_PRINCIPAL=%q USER=%q: AsOperator(\"\") acts as %q, %v; want %q", c.principal, c.user, cfg.operator, err, c.want)
		}
	}
}
