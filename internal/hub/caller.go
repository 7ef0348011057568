package hub

import (
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// callerOf is the use cases' caller of a token's identity: the server maps
// the wire's identity onto the service layer, so the wire contract links no
// use case.
func callerOf(id hubapi.Identity) (usecase.Caller, error) {
	p, err := id.ConfirmPrincipal()
	if err != nil || id.IsHuman() {
		return usecase.Caller{Principal: p}, err
	}
	return usecase.Caller{Principal: p, PersonaID: id.PersonaID}, nil
}
