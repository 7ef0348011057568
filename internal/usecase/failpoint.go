package usecase

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
)

// FailpointEnv names the step at which a hub kills itself (SIGKILL, as
// kill -9 would), for crash tests: VIRGO_FAILPOINT=<use case>:<step>, read
// once when the hub starts. Unset in production: then the check at each
// step is one nil comparison.
const FailpointEnv = "VIRGO_FAILPOINT"

// The steps a failpoint can name. Every use case passes through
// before-commit and after-commit; registration also through after-stamp.
const (
	// StepAfterStamp: the registration's stamp file is written and
	// nothing is committed yet.
	StepAfterStamp = "after-stamp"
	// StepBeforeCommit: the transaction is planned, not committed.
	StepBeforeCommit = "before-commit"
	// StepAfterCommit: the transaction is committed (and synced) and the
	// caller has not been answered.
	StepAfterCommit = "after-commit"
)

// The use cases a failpoint can name.
const (
	UseRegister = "register"
	UseDecide   = "decide"
	UseRequest  = "request"
	UseAssign   = "assign"
	UseRetire   = "retire"
	UseReview   = "review-prompt"
	UseRestore  = "restore-snapshot"
	// UseClaimFence is coordination's (sends and acks are tool calls).
	UseClaimFence = "claim-fence"
	// UseCallTool is a persona's tool call (CallTool).
	UseCallTool = "call-tool"
	// The human's side of the channel (a persona's side is tool calls).
	UseAckHuman   = "ack-human"
	UseTickTodo   = "tick-todo"
	UseReplyHuman = "reply-human"
	UseReact      = "react"
	UseAnswerCard = "answer-card"
	// UseAgeOut is the retention job's (SweepRetention).
	UseAgeOut = "age-out"
)

// failpointSteps is which steps each use case passes through.
var failpointSteps = map[string][]string{
	UseRegister: {StepAfterStamp, StepBeforeCommit, StepAfterCommit},
	UseDecide:   {StepBeforeCommit, StepAfterCommit},
	UseRequest:  {StepBeforeCommit, StepAfterCommit},
	UseAssign:   {StepBeforeCommit, StepAfterCommit},
	UseRetire:   {StepBeforeCommit, StepAfterCommit},
	UseReview:   {StepBeforeCommit, StepAfterCommit},
	UseRestore:  {StepBeforeCommit, StepAfterCommit},

	UseClaimFence: {StepBeforeCommit, StepAfterCommit},
	UseCallTool:   {StepBeforeCommit, StepAfterCommit},
	UseAckHuman:   {StepBeforeCommit, StepAfterCommit},
	UseTickTodo:   {StepBeforeCommit, StepAfterCommit},
	UseReplyHuman: {StepBeforeCommit, StepAfterCommit},
	UseReact:      {StepBeforeCommit, StepAfterCommit},
	UseAnswerCard: {StepBeforeCommit, StepAfterCommit},
	UseAgeOut:     {StepBeforeCommit, StepAfterCommit},
}

// ErrBadFailpoint: VIRGO_FAILPOINT names no step of a use case.
var ErrBadFailpoint = errors.New("invalid " + FailpointEnv)

// Failpoint is one step of one use case at which the process kills itself.
type Failpoint struct {
	useCase, step string
}

// ParseFailpoint reads "<use case>:<step>"; "" is no failpoint (nil).
func ParseFailpoint(s string) (*Failpoint, error) {
	if s == "" {
		return nil, nil
	}
	use, step, _ := strings.Cut(s, ":")
	if !slices.Contains(failpointSteps[use], step) {
		return nil, fmt.Errorf("%w %q: want <use case>:<step>, e.g. %s:%s", ErrBadFailpoint, s, UseRegister, StepAfterCommit)
	}
	return &Failpoint{useCase: use, step: step}, nil
}

// at kills the process when f names this use case's step.
func (f *Failpoint) at(useCase, step string) {
	if f == nil || f.useCase != useCase || f.step != step {
		return
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // SIGKILL is not caught: nothing after this runs
}
