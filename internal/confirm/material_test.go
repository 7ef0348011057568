package confirm

import (
	"regexp"
	"testing"
)

// Every credential value row is exercised by an example that only it
// could match first, and text that a stamp's bindings hold (hashes,
// lineages, addresses, namespaces) matches none.
func TestCredentialValueTable(t *testing.T) {
	examples := map[string]string{
		"a key:value pair naming a secret": "client_secret:s3cr3t_value",
		"a GitHub token":                   "ghp_" + "0123456789abcdefghijABCDEFGHIJ012345",
		"a GitHub fine-grained token":      "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnop",
		"an API secret key":                "sk-" + "proj-0123456789abcdefghij",
		"a Slack token":                    "xoxb-" + "123456789012-abcdefghij",
		"an AWS access key id":             "AKIA" + "IOSFODNN7EXAMPLE",
		"a PEM private key":                "-----BEGIN OPENSSH PRIVATE KEY-----",
		"a JSON Web Token":                 "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig",
	}
	for _, row := range CredentialValues {
		if _, err := regexp.Compile(row.Pattern); err != nil {
			t.Fatalf("%s: %v", row.What, err)
		}
		ex, ok := examples[row.What]
		if !ok {
			t.Errorf("row %q has no example here: add one", row.What)
			continue
		}
		got, found := CredentialIn(ex)
		if !found || got.What != row.What {
			t.Errorf("%q: found %v as %q, want %q", ex, found, got.What, row.What)
		}
	}
	for _, spelled := range []string{"api_token:ghp_0123456789abcdefghijABCDEFGHIJ012345", "password=hunter2", "API-KEY:abc",
		"x_auth_token=abc", "aws_access_key:AKIAIOSFODNN7EXAMPLE"} {
		if _, found := CredentialIn(spelled); !found {
			t.Errorf("%q is not found a credential", spelled)
		}
	}
	for _, clean := range []string{
		"sha256:687efa80c5bbd2f1e0b4bd2ad0c0a5b9f1d1f9e6a3c2b1a0f9e8d7c6b5a4f3e2",
		"ses-0123456789abcdef0123456789abcdef", "ses:claude:2026-08-04", "author:henry", "task-1", "work/core/lead",
		"virgo/work/core/lead", "human:henry", "virgo-channel", "worktree/**", "memory/tokens.md", "ask-for-review",
	} {
		if row, found := CredentialIn(clean); found {
			t.Errorf("%q is taken for %s", clean, row.What)
		}
	}
}
