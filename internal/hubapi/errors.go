package hubapi

import (
	"errors"
	"net/http"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// APIError is an error as the API returns it: a JSON body {error, code}
// with an HTTP status. The client turns every non-2xx answer back into one.
type APIError struct {
	Status int    `json:"-"`
	Code   string `json:"code"`
	Msg    string `json:"error"`
	// Versions lists the supported API versions on an unknown-version answer.
	Versions []string `json:"versions,omitempty"`
	// Head is the stream's head on a resync answer.
	Head uint64 `json:"head,omitempty"`
	// Epoch is the stream's epoch on a resync answer.
	Epoch string `json:"epoch,omitempty"`
}

// Error is the sentence an operator reads.
func (e *APIError) Error() string { return e.Msg }

// Is lets errors.Is(err, ErrResync) and friends hold for an error that
// came back over the wire, by its code.
func (e *APIError) Is(target error) bool {
	for _, m := range errorTable {
		if m.err == target {
			return m.code == e.Code
		}
	}
	return false
}

// errorTable maps named errors to a status and a stable code for scripts;
// the first match wins. Data, so the client's Is and the server agree.
var errorTable = []struct {
	err    error
	status int
	code   string
}{
	{ErrUnauthenticated, http.StatusUnauthorized, "unauthenticated"},
	{ErrRevoked, http.StatusUnauthorized, "revoked"},
	{ErrForbidden, http.StatusForbidden, "forbidden"},
	{ErrResync, http.StatusGone, "resync"},
	{ErrUnknownPersona, http.StatusNotFound, "unknown_persona"},
	{ErrRetired, http.StatusConflict, "retired"},
	{ErrTextTooLong, http.StatusBadRequest, "text_too_long"},
	{ErrControlText, http.StatusBadRequest, "control_text"},
	{ErrBadOperatorName, http.StatusBadRequest, "invalid_operator"},
	{registry.ErrNotFound, http.StatusNotFound, "not_found"},
	{store.ErrNotFound, http.StatusNotFound, "not_found"},
	{registry.ErrSeatTaken, http.StatusConflict, "seat_taken"},
	{registry.ErrNameTaken, http.StatusConflict, "name_taken"},
	{registry.ErrRetired, http.StatusConflict, "retired"},
	{registry.ErrRefused, http.StatusConflict, "refused"},
	{registry.ErrNotPending, http.StatusConflict, "not_pending"},
	{registry.ErrContention, http.StatusServiceUnavailable, "contention"},
	{store.ErrConflict, http.StatusConflict, "conflict"},
	{registry.ErrInvalidAddress, http.StatusBadRequest, "invalid_address"},
	{registry.ErrInvalidName, http.StatusBadRequest, "invalid_name"},
	{registry.ErrInvalidHuman, http.StatusBadRequest, "invalid_human"},
	{registry.ErrNoRepository, http.StatusBadRequest, "no_repository"},
	{registry.ErrInvalidLineage, http.StatusBadRequest, "invalid_lineage"},
	{registry.ErrReasonRequired, http.StatusBadRequest, "reason_required"},
	{registry.ErrInvalidCount, http.StatusBadRequest, "invalid_count"},
	{store.ErrClosed, http.StatusServiceUnavailable, "shutting_down"},
	{usecase.ErrNoStamp, http.StatusConflict, "no_stamp"},
	{usecase.ErrBadIdempotencyKey, http.StatusBadRequest, "invalid_idempotency_key"},
	{usecase.ErrIdempotencyKeyReused, http.StatusUnprocessableEntity, "idempotency_key_reused"},
	{confirm.ErrSelfDecision, http.StatusForbidden, "self_decision"},
	{confirm.ErrModelDecision, http.StatusForbidden, "model_decision"},
	{confirm.ErrNotAuthority, http.StatusForbidden, "not_authority"},
	{confirm.ErrUnroutable, http.StatusConflict, "unroutable"},
	{confirm.ErrAlreadyDecided, http.StatusConflict, "already_decided"},
	{confirm.ErrExpired, http.StatusConflict, "expired"},
	{confirm.ErrNoConfirmation, http.StatusNotFound, "not_found"},
	{confirm.ErrCorrelationReuse, http.StatusConflict, "correlation_reuse"},
	{confirm.ErrNoCorrelation, http.StatusBadRequest, "correlation_required"},
	{confirm.ErrWrongPersona, http.StatusForbidden, "wrong_persona"},
	{confirm.ErrNotRememberable, http.StatusBadRequest, "not_rememberable"},
	{confirm.ErrNoReason, http.StatusBadRequest, "reason_required"},
	{confirm.ErrBadPrincipal, http.StatusBadRequest, "invalid_principal"},
	{confirm.ErrNoChoice, http.StatusNotFound, "no_choice"},
	{confirm.ErrSelfAssignment, http.StatusForbidden, "self_assignment"},
	{confirm.ErrNotAssigner, http.StatusForbidden, "not_assigner"},
	{confirm.ErrNoOwningLead, http.StatusConflict, "no_owning_lead"},
	{confirm.ErrOutsideProject, http.StatusBadRequest, "outside_project"},
	{confirm.ErrNotAssigned, http.StatusNotFound, "not_assigned"},
	{stamp.ErrHashMismatch, http.StatusConflict, "stamp_hash_mismatch"},
	{stamp.ErrInvalidStamp, http.StatusConflict, "invalid_stamp"},
}

// Named errors of identity.
var (
	// ErrUnauthenticated: the request carries no token, or one the hub does not know.
	ErrUnauthenticated = errors.New("unauthenticated: send Authorization: Bearer <token> with a persona or operator token")
	// ErrRevoked: the token belonged to a generation that is retired.
	ErrRevoked = errors.New("token revoked: its persona generation is retired")
	// ErrForbidden: the caller's identity may not do this.
	ErrForbidden = errors.New("forbidden")
	// ErrBadOperatorName: an operator name that cannot name a file.
	ErrBadOperatorName = errors.New("invalid operator name")
)

// CodeOf is the wire code of a named error ("" for one the API does not name).
func CodeOf(err error) string {
	for _, m := range errorTable {
		if m.err == err {
			return m.code
		}
	}
	return ""
}

// FromError classifies any error for the wire: an *APIError as it is, a
// named error by the table, anything else as an internal error.
func FromError(err error) *APIError {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae
	}
	for _, m := range errorTable {
		if errors.Is(err, m.err) {
			return &APIError{Status: m.status, Code: m.code, Msg: err.Error()}
		}
	}
	return &APIError{Status: http.StatusInternalServerError, Code: "internal", Msg: err.Error()}
}
