package hubapi

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/events"
	"github.com/virgo-hub/virgo-tui/internal/graph"
	"github.com/virgo-hub/virgo-tui/internal/operatorkeys"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/private"
	"github.com/virgo-hub/virgo-tui/internal/quota"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/snapshot"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
	"github.com/virgo-hub/virgo-tui/internal/tools"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
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
	// Quota and Limit name the quota and its limit on a quota_exceeded
	// answer.
	Quota string `json:"quota,omitempty"`
	Limit int64  `json:"limit,omitempty"`
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

// Refusals of the transport itself: the request never reached a use case.
var (
	// ErrMethodNotAllowed: the path exists, with other methods (see Allow).
	ErrMethodNotAllowed = errors.New("method not allowed")
	// ErrUnsupportedVersion: the path names an API version this hub does not serve.
	ErrUnsupportedVersion = errors.New("unsupported API version")
	// ErrNoEndpoint: no endpoint has this path.
	ErrNoEndpoint = errors.New("no such endpoint")
	// ErrTooLarge: a request body (or a beat stream line) over its limit.
	ErrTooLarge = errors.New("request too large")
	// ErrUnsupportedMediaType: a body that is not declared application/json.
	ErrUnsupportedMediaType = errors.New("unsupported media type")
	// ErrUncleanPath: a path with ".", ".." or "//" elements (answered, never
	// redirected).
	ErrUncleanPath = errors.New("unclean path")
	// ErrMalformedJSON: a body that is not the one JSON object expected.
	ErrMalformedJSON = errors.New("malformed JSON")
	// ErrBadQuery: a query parameter out of its form or range.
	ErrBadQuery = errors.New("bad query parameter")
	// ErrPersonaRequired: an operator's request that does not name its persona.
	ErrPersonaRequired = errors.New("the request must name a persona")
	// ErrInvalidOperation: an operation (tool, target, shape) the handler cannot read.
	ErrInvalidOperation = errors.New("invalid operation")
	// ErrNothingToSet: a presence set with no activity, summary or session.
	ErrNothingToSet = errors.New("nothing to set")
	// ErrStreamBroken: a beat stream whose body broke off.
	ErrStreamBroken = errors.New("beat stream broken")
	// ErrNotActive: the persona generation is not active (pending or refused).
	ErrNotActive = errors.New("persona generation is not active")
	// ErrInternal: anything the API does not name; the message says what.
	ErrInternal = errors.New("internal error")
	// ErrStoreUnsupported: the hub's store cannot be checked or copied
	// through the hub (GET /v1/store/check, /v1/store/backup).
	ErrStoreUnsupported = errors.New("the hub's store cannot be checked or copied through the hub")
)

// Wire errors of what the service layer and the store refuse. The server
// maps the use cases' and the store's named errors onto them (each the
// same sentence), so a client tests them with errors.Is and links neither.
var (
	// ErrNoRecord: a record the request names is not stored.
	ErrNoRecord = errors.New("not found")
	// ErrConflict: the stored value changed since it was read.
	ErrConflict = errors.New("conflict: the stored value changed since it was read")
	// ErrShuttingDown: the hub's store is closed; the hub is stopping.
	ErrShuttingDown = errors.New("store is closed")
	// ErrRecordDamaged: a stored record failed its check.
	ErrRecordDamaged = errors.New("record damaged")
	// ErrStoreUnavailable: the store cannot be reached now (a lost quorum).
	ErrStoreUnavailable = errors.New("store unavailable")
	// ErrNoStamp: the persona generation has no capability stamp.
	ErrNoStamp = errors.New("persona generation has no capability stamp")
	// ErrBadIdempotencyKey: an Idempotency-Key out of its form.
	ErrBadIdempotencyKey = errors.New("invalid Idempotency-Key: use 1 to 128 letters, digits, '.', '_', ':' or '-'")
	// ErrIdempotencyKeyReused: an Idempotency-Key already used for another request.
	ErrIdempotencyKeyReused = errors.New("Idempotency-Key already used for a different request; choose a new key per request")
	// ErrTaskFinished: a run asked for a finished task.
	ErrTaskFinished = errors.New("the task is finished: it takes no new runs")
	// ErrNoExecutor: the hub has no executor for the tool.
	ErrNoExecutor = errors.New("the hub has no executor for this tool yet")
	// ErrNotHolder: the persona generation does not hold its seat.
	ErrNotHolder = errors.New("persona generation does not hold its seat")
	// ErrCredentialValue: a stamp input carrying a credential, not a binding.
	ErrCredentialValue = errors.New("stamps carry bindings only, never credentials")
	// ErrStampNotStored: the capability stamp's bytes are not in the store.
	ErrStampNotStored = errors.New("capability stamp bytes not in the store")
	// ErrNotThisGeneration: a snapshot names a generation id this
	// installation holds, but of another seat or session lineage.
	ErrNotThisGeneration = errors.New("the snapshot's generation id belongs to another generation here")
	// ErrRestoreUnfinished: a restore committed only part of its writes; the
	// same restore again writes the rest.
	ErrRestoreUnfinished = errors.New("restore unfinished: run the same restore again to write the rest")
	// ErrOtherProject: a task reassigned outside its own scope and project.
	ErrOtherProject = errors.New("a task is reassigned to a seat of its own scope and project; assign a new task elsewhere")
	// ErrArtifactChanged: an artifact's file is not what was recorded.
	ErrArtifactChanged = errors.New("the artifact's file changed since it was recorded; record it again under a new name")
)

// errorTable maps each named error to its status and its code, one code
// per error: scripts test the code, and errors.Is across the wire matches
// an answer only to its own error. Data, so the client's Is, the server's
// answers and docs/api.md (checked by a test) agree. When an error wraps
// several named errors, the first row that matches wins.
var errorTable = []struct {
	err    error
	status int
	code   string
}{
	{ErrMethodNotAllowed, http.StatusMethodNotAllowed, "method_not_allowed"},
	{ErrUnsupportedVersion, http.StatusNotFound, "unsupported_version"},
	{ErrNoEndpoint, http.StatusNotFound, "no_endpoint"},
	{ErrTooLarge, http.StatusRequestEntityTooLarge, "too_large"},
	{ErrMalformedJSON, http.StatusBadRequest, "malformed_json"},
	{ErrBadQuery, http.StatusBadRequest, "bad_query"},
	{ErrPersonaRequired, http.StatusBadRequest, "persona_required"},
	{ErrInvalidOperation, http.StatusBadRequest, "invalid_operation"},
	{ErrNothingToSet, http.StatusBadRequest, "nothing_to_set"},
	{events.ErrUnknownSessionState, http.StatusBadRequest, "unknown_session_state"},
	{ErrStreamBroken, http.StatusBadRequest, "stream_broken"},
	{ErrNotActive, http.StatusConflict, "not_active"},
	{ErrInternal, http.StatusInternalServerError, "internal"},
	{ErrStoreUnsupported, http.StatusNotImplemented, "store_unsupported"},
	{ErrUnauthenticated, http.StatusUnauthorized, "unauthenticated"},
	{ErrForbidden, http.StatusForbidden, "forbidden"},
	{ErrConfirmationRequired, http.StatusForbidden, "confirmation_required"},
	{ErrResync, http.StatusGone, "resync"},
	{ErrUnknownPersona, http.StatusNotFound, "unknown_persona"},
	{ErrTooLong, http.StatusBadRequest, "too_long"},
	{ErrInvalidUTF8, http.StatusBadRequest, "invalid_encoding"},
	{confirm.ErrTooManyPending, http.StatusTooManyRequests, "too_many_pending"},
	{ErrTooManyStreams, http.StatusTooManyRequests, "too_many_streams"},
	{ErrTooManyConnections, http.StatusServiceUnavailable, "too_many_connections"},
	{ErrRateLimited, http.StatusTooManyRequests, "rate_limited"},
	{ErrUnsupportedMediaType, http.StatusUnsupportedMediaType, "unsupported_media_type"},
	{ErrUncleanPath, http.StatusBadRequest, "unclean_path"},
	{ErrControlText, http.StatusBadRequest, "control_text"},
	{ErrBadOperatorName, http.StatusBadRequest, "invalid_operator"},
	{ErrWrongUser, http.StatusForbidden, "wrong_user"},
	{ErrBadUID, http.StatusBadRequest, "invalid_uid"},
	{ErrNotEnrolled, http.StatusNotFound, "not_enrolled"},
	{ErrAlreadyEnrolled, http.StatusConflict, "already_enrolled"},
	{ErrLastOperator, http.StatusConflict, "last_operator"},
	{ErrNoHandOver, http.StatusConflict, "no_handover"},
	{ErrBadTokenFile, http.StatusInternalServerError, "bad_token_file"},
	{operatorkeys.ErrBadKey, http.StatusBadRequest, "invalid_ssh_key"},
	{operatorkeys.ErrNoKeys, http.StatusBadRequest, "ssh_key_required"},
	{operatorkeys.ErrKeyTaken, http.StatusConflict, "ssh_key_taken"},
	{operatorkeys.ErrUnknownKey, http.StatusNotFound, "unknown_ssh_key"},
	{private.ErrUnsafe, http.StatusInternalServerError, "unsafe_home"},
	{registry.ErrNotFound, http.StatusNotFound, "not_found"},
	{ErrNoRecord, http.StatusNotFound, "no_record"},
	{paging.ErrBadToken, http.StatusBadRequest, "bad_page_token"},
	{paging.ErrBadLimit, http.StatusBadRequest, "bad_page_size"},
	{tools.ErrUnknownTool, http.StatusNotFound, "unknown_tool"},
	{tools.ErrInvalidArguments, http.StatusBadRequest, "invalid_arguments"},
	{tools.ErrNoRecord, http.StatusNotFound, "unknown_record"},
	{registry.ErrSeatTaken, http.StatusConflict, "seat_taken"},
	{registry.ErrNameTaken, http.StatusConflict, "name_taken"},
	{registry.ErrRetired, http.StatusConflict, "retired"},
	{registry.ErrRefused, http.StatusConflict, "refused"},
	{registry.ErrNotPending, http.StatusConflict, "not_pending"},
	{registry.ErrContention, http.StatusServiceUnavailable, "contention"},
	{ErrConflict, http.StatusConflict, "conflict"},
	{registry.ErrInvalidAddress, http.StatusBadRequest, "invalid_address"},
	{registry.ErrInvalidName, http.StatusBadRequest, "invalid_name"},
	{registry.ErrInvalidHuman, http.StatusBadRequest, "invalid_human"},
	{registry.ErrNoRepository, http.StatusBadRequest, "no_repository"},
	{registry.ErrInvalidLineage, http.StatusBadRequest, "invalid_lineage"},
	{registry.ErrReasonRequired, http.StatusBadRequest, "reason_required"},
	{registry.ErrInvalidCount, http.StatusBadRequest, "invalid_count"},
	{ErrShuttingDown, http.StatusServiceUnavailable, "shutting_down"},
	{ErrRecordDamaged, http.StatusInternalServerError, "record_damaged"},
	{ErrStoreUnavailable, http.StatusServiceUnavailable, "store_unavailable"},
	{ErrNoStamp, http.StatusConflict, "no_stamp"},
	{ErrNotThisGeneration, http.StatusConflict, "not_this_generation"},
	{ErrRestoreUnfinished, http.StatusServiceUnavailable, "restore_unfinished"},
	{snapshot.ErrTooLarge, http.StatusRequestEntityTooLarge, "snapshot_too_large"},
	{snapshot.ErrTruncated, http.StatusBadRequest, "snapshot_truncated"},
	{snapshot.ErrMalformed, http.StatusBadRequest, "snapshot_malformed"},
	{snapshot.ErrNotSnapshot, http.StatusBadRequest, "not_a_snapshot"},
	{snapshot.ErrNewerFormat, http.StatusBadRequest, "snapshot_newer_format"},
	{snapshot.ErrBadSignature, http.StatusBadRequest, "snapshot_bad_signature"},
	{snapshot.ErrUntrustedSigner, http.StatusForbidden, "snapshot_untrusted_signer"},
	{snapshot.ErrDigestMismatch, http.StatusBadRequest, "snapshot_digest_mismatch"},
	{snapshot.ErrBadMember, http.StatusBadRequest, "snapshot_bad_member"},
	{snapshot.ErrBadPublicKey, http.StatusBadRequest, "invalid_public_key"},
	{snapshot.ErrBadKeyFile, http.StatusInternalServerError, "snapshot_key_unreadable"},
	{ErrOtherProject, http.StatusBadRequest, "reassign_outside_project"},
	{ErrArtifactChanged, http.StatusConflict, "artifact_changed"},
	{ErrBadIdempotencyKey, http.StatusBadRequest, "invalid_idempotency_key"},
	{ErrIdempotencyKeyReused, http.StatusUnprocessableEntity, "idempotency_key_reused"},
	{confirm.ErrSelfDecision, http.StatusForbidden, "self_decision"},
	{confirm.ErrModelDecision, http.StatusForbidden, "model_decision"},
	{confirm.ErrNotAuthority, http.StatusForbidden, "not_authority"},
	{confirm.ErrUnroutable, http.StatusConflict, "unroutable"},
	{confirm.ErrAlreadyDecided, http.StatusConflict, "already_decided"},
	{confirm.ErrExpired, http.StatusConflict, "expired"},
	{confirm.ErrWithdrawn, http.StatusConflict, "withdrawn"},
	{confirm.ErrNoConfirmation, http.StatusNotFound, "no_confirmation"},
	{confirm.ErrCorrelationReuse, http.StatusConflict, "correlation_reuse"},
	{confirm.ErrNoCorrelation, http.StatusBadRequest, "correlation_required"},
	{confirm.ErrWrongPersona, http.StatusForbidden, "wrong_persona"},
	{confirm.ErrNotRememberable, http.StatusBadRequest, "not_rememberable"},
	{confirm.ErrNoReason, http.StatusBadRequest, "denial_reason_required"},
	{confirm.ErrSecretMaterial, http.StatusForbidden, "secret_material"},
	{confirm.ErrBadPrincipal, http.StatusBadRequest, "invalid_principal"},
	{confirm.ErrNoChoice, http.StatusNotFound, "no_choice"},
	{confirm.ErrSelfAssignment, http.StatusForbidden, "self_assignment"},
	{confirm.ErrNotAssigner, http.StatusForbidden, "not_assigner"},
	{confirm.ErrNoOwningLead, http.StatusConflict, "no_owning_lead"},
	{confirm.ErrOutsideProject, http.StatusBadRequest, "outside_project"},
	{confirm.ErrNotAssigned, http.StatusNotFound, "not_assigned"},
	{runs.ErrUnknownState, http.StatusBadRequest, "unknown_run_state"},
	{runs.ErrBadDigest, http.StatusBadRequest, "invalid_digest"},
	{runs.ErrBadSize, http.StatusBadRequest, "invalid_artifact_size"},
	{runs.ErrEmptyText, http.StatusBadRequest, "empty_run_text"},
	{runs.ErrBadRef, http.StatusBadRequest, "invalid_run_id"},
	{runs.ErrReservedKind, http.StatusBadRequest, "reserved_event_kind"},
	{runs.ErrRunNotFound, http.StatusNotFound, "no_run"},
	{runs.ErrIllegalMove, http.StatusConflict, "illegal_run_move"},
	{runs.ErrRunFinished, http.StatusConflict, "run_finished"},
	{runs.ErrEventLogFull, http.StatusConflict, "run_log_full"},
	{runs.ErrTooManyArtifacts, http.StatusConflict, "too_many_artifacts"},
	{runs.ErrArtifactExists, http.StatusConflict, "artifact_exists"},
	{runs.ErrNoArtifact, http.StatusNotFound, "no_artifact"},
	{runs.ErrIDTaken, http.StatusConflict, "run_id_taken"},
	{runs.ErrTooManyRuns, http.StatusTooManyRequests, "too_many_runs"},
	{ErrTaskFinished, http.StatusConflict, "task_finished"},
	{tasks.ErrNoTask, http.StatusNotFound, "no_task"},
	{tasks.ErrNotAssignee, http.StatusForbidden, "not_assignee"},
	{tasks.ErrSelfAssignment, http.StatusForbidden, "task_to_self"},
	{tasks.ErrTaskFinished, http.StatusConflict, "task_done"},
	{tasks.ErrIllegalState, http.StatusConflict, "illegal_task_state"},
	{tasks.ErrTaskExists, http.StatusConflict, "task_id_taken"},
	{tasks.ErrReportsFull, http.StatusTooManyRequests, "task_reports_full"},
	{tasks.ErrTooManyTasks, http.StatusTooManyRequests, "too_many_tasks"},
	{tasks.ErrNoReason, http.StatusBadRequest, "task_reason_required"},
	{tasks.ErrSameAssignee, http.StatusConflict, "same_assignee"},
	{ErrNoExecutor, http.StatusNotImplemented, "no_executor"},
	{decisions.ErrNotFound, http.StatusNotFound, "no_decision"},
	{decisions.ErrAlreadyResolved, http.StatusConflict, "decision_resolved"},
	{decisions.ErrNotAnOption, http.StatusBadRequest, "not_an_option"},
	{decisions.ErrTooFewOptions, http.StatusBadRequest, "too_few_options"},
	{decisions.ErrTooManyOptions, http.StatusBadRequest, "too_many_options"},
	{decisions.ErrDuplicateOptions, http.StatusBadRequest, "duplicate_options"},
	{decisions.ErrEmptyText, http.StatusBadRequest, "empty_decision_text"},
	{decisions.ErrBadRef, http.StatusBadRequest, "invalid_decision_ref"},
	{decisions.ErrUnknownState, http.StatusBadRequest, "unknown_decision_state"},
	{decisions.ErrNoDecider, http.StatusBadRequest, "no_decider"},
	{decisions.ErrSelfOriginated, http.StatusForbidden, "self_originated_resolution"},
	{decisions.ErrIDTaken, http.StatusConflict, "decision_id_taken"},
	{decisions.ErrTooMany, http.StatusTooManyRequests, "too_many_decisions"},
	{graph.ErrUnknownKind, http.StatusBadRequest, "unknown_record_kind"},
	{graph.ErrTooManyWord, http.StatusBadRequest, "too_many_words"},
	{termtext.ErrTooLong, http.StatusBadRequest, "text_over_limit"},
	{termtext.ErrUnsafeChar, http.StatusBadRequest, "unsafe_text"},
	{termtext.ErrInvalidUTF8, http.StatusBadRequest, "invalid_text_encoding"},
	{coord.ErrFenced, http.StatusConflict, "fenced"},
	{ErrBadFence, http.StatusBadRequest, "invalid_fence"},
	{coord.ErrNoMessage, http.StatusNotFound, "no_message"},
	{coord.ErrBadMessageID, http.StatusBadRequest, "invalid_message_id"},
	{coord.ErrInboxFull, http.StatusTooManyRequests, "inbox_full"},
	{quota.ErrExceeded, http.StatusTooManyRequests, "quota_exceeded"},
	{coord.ErrBadMessage, http.StatusBadRequest, "invalid_message"},
	{registry.ErrNoActiveHolder, http.StatusConflict, "no_active_holder"},
	{channel.ErrNoItem, http.StatusNotFound, "no_item"},
	{channel.ErrBadItemID, http.StatusBadRequest, "invalid_item_id"},
	{channel.ErrBadItem, http.StatusBadRequest, "invalid_item"},
	{channel.ErrWrongSide, http.StatusConflict, "wrong_side"},
	{channel.ErrUnknownReaction, http.StatusBadRequest, "unknown_reaction"},
	{channel.ErrNoAction, http.StatusBadRequest, "not_a_card_action"},
	{channel.ErrAnswered, http.StatusConflict, "card_answered"},
	{channel.ErrHumanBusy, http.StatusTooManyRequests, "human_busy"},
	{channel.ErrFileTooLarge, http.StatusBadRequest, "file_too_large"},
	{registry.ErrRepositoryHome, http.StatusBadRequest, "repository_in_home"},
	{workspace.ErrNotFile, http.StatusBadRequest, "not_regular_file"},
	{workspace.ErrNotFound, http.StatusNotFound, "no_workspace_file"},
	{workspace.ErrNoRoot, http.StatusNotFound, "no_workspace"},
	{workspace.ErrLink, http.StatusConflict, "link_in_path"},
	{workspace.ErrHardLink, http.StatusBadRequest, "hard_link"},
	{workspace.ErrFileTooLarge, http.StatusBadRequest, "workspace_file_too_large"},
	{ErrNotHolder, http.StatusConflict, "not_holder"},
	{stamp.ErrHashMismatch, http.StatusConflict, "stamp_hash_mismatch"},
	{stamp.ErrStampMissing, http.StatusConflict, "stamp_missing"},
	{ErrCredentialValue, http.StatusBadRequest, "credential_value"},
	{stamp.ErrStampUnreadable, http.StatusConflict, "stamp_unreadable"},
	{stamp.ErrInvalidStamp, http.StatusConflict, "invalid_stamp"},
	{stamp.ErrStampTooLarge, http.StatusConflict, "stamp_too_large"},
	{ErrStampNotStored, http.StatusConflict, "stamp_not_stored"},
	{registry.ErrCompositionMismatch, http.StatusConflict, "composition_mismatch"},
}

// Named errors of identity.
var (
	// ErrUnauthenticated: the request carries no token, or one the hub does not know.
	ErrUnauthenticated = errors.New("unauthenticated: send Authorization: Bearer <token> with a persona or operator token")
	// ErrForbidden: the caller's identity may not do this.
	ErrForbidden = errors.New("forbidden")
	// ErrConfirmationRequired: a tool call through a route that answers
	// only a result (/v1/messages) waits on a confirmation; the answer
	// names it and the correlation id to retry under POST /v1/tools/{tool}.
	ErrConfirmationRequired = errors.New("this call waits on a confirmation: once it is approved, retry it through POST /v1/tools/{tool} under its correlation id")
	// ErrBadOperatorName: an operator name that cannot name a file.
	ErrBadOperatorName = errors.New("invalid operator name")
	// ErrWrongUser: an operator token bound to a Unix user, presented on a
	// connection from another.
	ErrWrongUser = errors.New("operator token used by the wrong Unix user")
	// ErrBadUID: an enrolment binding a negative Unix user id.
	ErrBadUID = errors.New("invalid Unix user id")
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

// NamesError reports whether code is the wire code of one of the API's
// named errors.
func NamesError(code string) bool {
	for _, m := range errorTable {
		if m.code == code {
			return true
		}
	}
	return false
}

// Errorf is the answer of named error (one of the table's) with its own
// sentence: the named error's status and code, the formatted message.
func Errorf(named error, format string, args ...any) *APIError {
	ae := FromError(named)
	ae.Msg = fmt.Sprintf(format, args...)
	return ae
}

// FromError classifies any error for the wire: an *APIError as it is, a
// named error by the table, anything else as ErrInternal.
func FromError(err error) *APIError {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae
	}
	for _, m := range errorTable {
		if errors.Is(err, m.err) {
			ae := &APIError{Status: m.status, Code: m.code, Msg: err.Error()}
			if q := (*quota.Exceeded)(nil); errors.As(err, &q) {
				ae.Quota, ae.Limit = q.Quota, q.Limit
			}
			return ae
		}
	}
	return &APIError{Status: http.StatusInternalServerError, Code: CodeOf(ErrInternal), Msg: err.Error()}
}
