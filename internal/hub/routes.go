package hub

// routes is the hub's API: every endpoint, who may call it, and its
// handler. docs/api.md documents each row; TestRoutesDocumented keeps them
// in step.
func routes() []route {
	return []route{
		{"GET", "/v1/health", anyone, health},
		{"GET", "/v1/whoami", either, whoami},
		{"POST", "/v1/hub/handover", operator, handOver},
		{"GET", "/v1/snapshot", operator, snapshot},
		{"GET", "/v1/stream", operator, streamChanges},

		{"POST", "/v1/presence/beat", persona, beat},
		{"POST", "/v1/presence/set", persona, setPresence},
		{"POST", "/v1/presence/stream", persona, beatStream},
		{"GET", "/v1/presence", operator, listPresence},

		{"GET", "/v1/personas", operator, listPersonas},
		{"POST", "/v1/personas", operator, registerPersona},
		{"GET", "/v1/personas/{ref...}", either, getPersona},
		{"POST", "/v1/personas/retire", operator, retirePersona},
		{"GET", "/v1/seats/{address...}", operator, seatHistory},
		{"GET", "/v1/names", operator, suggestNames},
		{"GET", "/v1/snapshots/{ref...}", operator, personaSnapshot},
		{"POST", "/v1/snapshots/restore", operator, restoreSnapshot},

		{"GET", "/v1/stamps/diff", operator, diffStamps},
		{"GET", "/v1/stamps/{ref...}", either, getStamp},
		{"POST", "/v1/authorize", either, authorizeOp},

		{"POST", "/v1/confirmations", either, requestConfirmation},
		{"GET", "/v1/confirmations", either, listConfirmations},
		{"GET", "/v1/confirmations/{id}", either, getConfirmation},
		{"POST", "/v1/confirmations/{id}/decide", either, decide},
		{"GET", "/v1/prompts", operator, listPrompts},
		{"POST", "/v1/prompts/{id}/carry-forward", operator, reviewPrompt(true)},
		{"POST", "/v1/prompts/{id}/drop", operator, reviewPrompt(false)},
		{"GET", "/v1/assignments", either, listAssignments},
		{"POST", "/v1/assignments", either, assignTask},
		{"GET", "/v1/audit", operator, listAudit},
		{"POST", "/v1/tools/{tool}", either, callTool},

		{"POST", "/v1/fence", persona, claimFence},
		{"POST", "/v1/messages", persona, sendMessage},
		{"GET", "/v1/messages", either, listMessages},
		{"GET", "/v1/messages/stream", persona, messageStream},
		{"POST", "/v1/messages/{id}/ack", persona, ackMessage},

		{"GET", "/v1/inbox", operator, listInbox},
		{"GET", "/v1/inbox/status", operator, inboxStatus},
		{"POST", "/v1/inbox/{id}/reply", operator, replyInbox},
		{"POST", "/v1/inbox/{id}/react", operator, reactInbox},
		{"POST", "/v1/inbox/{id}/ack", operator, ackInbox},
		{"POST", "/v1/inbox/{id}/tick", operator, tickInbox},
		{"POST", "/v1/inbox/{id}/answer", operator, answerInbox},
		{"GET", "/v1/inbox/{id}/file", operator, inboxFile},

		{"GET", "/v1/store/check", operator, storeCheck},
		{"GET", "/v1/store/backup", operator, storeBackup},

		{"GET", "/v1/operators", operator, listOperators},
		{"POST", "/v1/operators", operator, enrolOperator},
		{"DELETE", "/v1/operators/{name}", operator, removeOperator},
	}
}

// unfencedRoute reports whether a persona may call method pattern without
// presenting its generation's latest instance fence: who its token is, and
// the claim of a fence — what a runtime instance does before it holds one.
// Every other call of a persona is refused as fenced out (Hub.checkFence).
func unfencedRoute(method, pattern string) bool {
	return method == "GET" && pattern == "/v1/whoami" || method == "POST" && pattern == "/v1/fence"
}
