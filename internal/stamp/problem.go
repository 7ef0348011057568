package stamp

import (
	"errors"
	"fmt"
	"strings"
)

// Rule names one rule a stamp must keep. Every refusal carries one, so an
// operator (and a test) can tell which rule failed.
type Rule string

// The rules of schema v3 and the semantic validator.
const (
	RuleJSON             Rule = "json"                     // not parseable JSON
	RuleCanonical        Rule = "canonical-form"           // no RFC 8785 form (a duplicate key): no hash
	RuleSchema           Rule = "schema"                   // a JSON Schema keyword failed
	RuleSchemaVersion    Rule = "schema-version"           // unknown or missing version
	RuleAddress          Rule = "address"                  // empty or unparsable canonical address
	RuleAddressParts     Rule = "address-parts"            // scope/project/role disagree with the address
	RuleProfile          Rule = "profile-mismatch"         // profile is not the one the role registry gives
	RuleDuplicateName    Rule = "duplicate-tool-name"      // two tools share a name
	RuleDuplicateAction  Rule = "duplicate-handler-action" // two tools share a handler_action
	RuleAccess           Rule = "access-value"             // access is neither allow nor confirm
	RuleScope            Rule = "scope-value"              // scope outside the vocabulary
	RuleMissingTool      Rule = "missing-required-tool"    // the class needs a tool the stamp lacks
	RuleExtraTool        Rule = "tool-beyond-profile"      // a tool the class matrix does not expose
	RuleToolAction       Rule = "tool-handler-action"      // handler_action differs from the inventory
	RuleToolAccess       Rule = "tool-access"              // access differs from the class matrix
	RuleToolScope        Rule = "tool-scope"               // scope differs from the class matrix
	RulePathEmpty        Rule = "mutable-path-empty"       // an empty mutable path
	RulePathAbsolute     Rule = "mutable-path-absolute"    // an absolute mutable path
	RulePathEscape       Rule = "mutable-path-escape"      // a ".." segment leaves the workspace
	RulePathUnclean      Rule = "mutable-path-unclean"     // not in clean, slash-separated form
	RulePathDuplicate    Rule = "mutable-path-duplicate"   // the same path twice
	RuleHumanAuthority   Rule = "human-authority"          // bound human is not human:<name>
	RuleOwningLead       Rule = "owning-lead"              // deputy not bound to <scope>/<project>/lead
	RuleLaneApprover     Rule = "lane-approver"            // coordinator without (or others with) a lane approver
	RuleSurfaceBinding   Rule = "surface-binding"          // a human-surface binding the class cannot use, or repeated
	RuleSurfaceGrammar   Rule = "surface-binding-grammar"  // a binding other than virgo-channel to human:<name>
	RuleIdentity         Rule = "identity"                 // persona name or generation missing
	RuleGraphNamespace   Rule = "graph-namespace"          // empty graph namespace
	RuleHandlerMissing   Rule = "handler-missing"          // boot: no registered handler for an action
	RuleBindingMissing   Rule = "binding-missing"          // boot: a tool's scope has nothing bound
	RuleProjectionLoss   Rule = "projection-loss"          // the three consumers disagree
	RuleLegacyClass      Rule = "legacy-class"             // a v1/v2 class that maps to no role path
	RuleLegacyToolRecord Rule = "legacy-tool"              // a v1/v2 tool entry that cannot be read
)

// Problem is one broken rule at one place of a stamp.
type Problem struct {
	Rule Rule `json:"rule"`
	// Field is where: a JSON-pointer-like path ("tools[3].access").
	Field string `json:"field,omitempty"`
	// Tool is the tool concerned, when there is one.
	Tool    string `json:"tool,omitempty"`
	Message string `json:"message"`
}

// String renders "rule field [tool]: message".
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(string(p.Rule))
	if p.Field != "" {
		b.WriteString(" " + p.Field)
	}
	if p.Tool != "" {
		b.WriteString(" [" + p.Tool + "]")
	}
	b.WriteString(": " + p.Message)
	return b.String()
}

// Named errors of the stamp package.
var (
	// ErrInvalidStamp is wrapped by every *ValidationError.
	ErrInvalidStamp = errors.New("invalid capability stamp")
	// ErrUnknownVersion: the stamp's schema version has no reader.
	ErrUnknownVersion = errors.New("unknown stamp schema version")
	// ErrNoAddress: the factory was given no registered canonical address.
	ErrNoAddress = errors.New("no registered canonical address")
	// ErrStampExists: a generation's stamp is written once and never overwritten.
	ErrStampExists = errors.New("capability stamp already exists")
	// ErrHashMismatch: the stamp's bytes no longer match its recorded hash.
	ErrHashMismatch = errors.New("capability stamp hash mismatch")
	// ErrStampMissing: a generation's stamp file is not where its
	// registration wrote it (spec: "Startup fails if the stamp is
	// missing"); the persona does not stand until it is back.
	ErrStampMissing = errors.New("capability stamp file missing")
	// ErrStampUnreadable: a generation's stamp file is there but cannot
	// be read as a file; the persona does not stand until it can.
	ErrStampUnreadable = errors.New("capability stamp file unreadable")
	// ErrStampTooLarge: a stamp over MaxBytes, which the store could not
	// keep within one registration's transaction.
	ErrStampTooLarge = errors.New("capability stamp too large")
	// ErrHashRequired: Load was not told which hash the composition records.
	ErrHashRequired = errors.New("recorded stamp hash required")
	// ErrNotStanding: the boot check or projection check refused the persona.
	ErrNotStanding = errors.New("persona not standing")
	// ErrSurfaceBinding: a human-surface binding is not virgo-channel to a
	// human principal.
	ErrSurfaceBinding = errors.New("a human-surface binding is virgo-channel to a human principal (virgo-channel=human:<name>); stamps never carry surface credentials or gateway setup")
)

// ValidationError lists every problem found, not just the first.
type ValidationError struct {
	// Source names what was checked (a file path or "build root/secretary").
	Source   string
	Problems []Problem
	// base is ErrInvalidStamp, or ErrUnknownVersion / ErrNotStanding.
	base error
}

// Error renders one problem per line under a heading.
func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s: %d problem(s)", e.Source, e.base, len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  " + p.String())
	}
	return b.String()
}

// Unwrap lets errors.Is match ErrInvalidStamp (or the more specific base).
func (e *ValidationError) Unwrap() error { return e.base }

// Has reports whether any problem broke the rule.
func (e *ValidationError) Has(rule Rule) bool {
	for _, p := range e.Problems {
		if p.Rule == rule {
			return true
		}
	}
	return false
}

// problems turns a list into an error, nil when the list is empty.
func problems(source string, base error, ps []Problem) error {
	if len(ps) == 0 {
		return nil
	}
	return &ValidationError{Source: source, Problems: ps, base: base}
}

// ProblemsOf returns the problems carried by err, or nil.
func ProblemsOf(err error) []Problem {
	var ve *ValidationError
	if errors.As(err, &ve) {
		return ve.Problems
	}
	return nil
}
