package hub

import (
	"context"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// Persona stamps carry bindings, never credentials (spec: "persona stamps
// contain bindings, never Microsoft 365 tenant credentials or gateway
// setup"): a character composition hash or a session lineage that looks
// like a credential is refused over the socket, in the preview and in the
// registration, without repeating the value, and nothing is stored.
func TestRegistrationRefusesCredentialsInStampFields(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	henry := th.operator(t, "henry")
	for _, tc := range []struct {
		field, value string
		req          hubapi.RegisterRequest
	}{
		{"character hash", "client_secret:s3cr3t_value", hubapi.RegisterRequest{CharacterHash: "client_secret:s3cr3t_value"}},
		{"session lineage", "api_token:ghp_0123456789abcdefghijABCDEFGHIJ012345",
			hubapi.RegisterRequest{SessionLineage: "api_token:ghp_0123456789abcdefghijABCDEFGHIJ012345"}},
		{"session lineage", "AKIAIOSFODNN7EXAMPLE", hubapi.RegisterRequest{SessionLineage: "AKIAIOSFODNN7EXAMPLE"}},
	} {
		req := tc.req
		req.Address, req.Name, req.Human = "work/core/lead", "Spica", "human:henry"
		_, err := henry.PreviewRegistration(ctx, req)
		e := wantCode(t, err, "credential_value")
		_, err = henry.Register(ctx, req)
		wantCode(t, err, "credential_value")
		for _, msg := range []string{e.Msg, err.Error()} {
			if !strings.Contains(msg, tc.field) || !strings.Contains(msg, "bindings") || strings.Contains(msg, tc.value) {
				t.Errorf("%s %q refused with %q; want the field named, \"bindings\" said, the value not repeated", tc.field, tc.value, msg)
			}
		}
	}
	// Nothing was stored: the seat and the name are free.
	p := th.addPersona(t, "work/core/lead", "Spica")
	if p.State != registry.StateActive {
		t.Fatalf("the seat after the refusals: %s", p.State)
	}
}
