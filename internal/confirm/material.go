package confirm

import (
	"regexp"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// Material is one row of the secret and authority material table: workspace
// paths whose contents are secret credential values, or lease, fence and
// authority material, whatever the tool that touches them.
type Material struct {
	// Pattern is a workspace glob ("**" crosses directories), matched
	// case-insensitively: on a case-insensitive file system memory/.ENV is
	// the secret itself.
	Pattern string
	// What says what such a file holds, for the refusal an operator reads.
	What string
	// Authority marks lease, fence and authority material: never touched by
	// a persona's tools (reading it would export it). Otherwise the row is a
	// secret: never read, and written or removed only on the bound human's
	// confirmation.
	Authority bool
}

// SecretMaterial is the one table of secret and authority material
// (docs/authorization.md lists it). The first row a path matches decides,
// so the authority rows come first. Besides virgo's own material (stamps,
// tokens, leases, fences, and every file of an installation home a binding
// could reach), the secret rows are the credential-bearing file
// signatures of Gitrob (github.com/michenriksen/gitrob, core/signatures.go:
// the list secret scanners such as shhgit reuse), widened where a family
// is open (every *_dsa, every *.tfvars) and with the names it predates
// (FIDO *_sk keys, gcloud's application default credentials, service
// account keys, key backups). Its rows naming ordinary project files
// (*.log, settings.py, database.yml, *.sqlite) are left out: a project
// lead reads its repository's code.
var SecretMaterial = []Material{
	{Pattern: "**/" + stamp.FileName, What: "a capability stamp", Authority: true},
	{Pattern: "**/token", What: "a persona generation's runtime token", Authority: true},
	{Pattern: "**/*.token", What: "an operator token", Authority: true},
	{Pattern: "**/*.lease", What: "a lease file", Authority: true},
	{Pattern: "**/lease", What: "a lease file", Authority: true},
	{Pattern: "**/*.fence", What: "a fence file", Authority: true},
	{Pattern: "**/fence", What: "a fence file", Authority: true},
	{Pattern: "**/.virgo-authority/**", What: "virgo authority material", Authority: true},
	// An installation home's own files: a binding may not reach the home
	// (registry refuses it), and these rows hold if one ever does.
	{Pattern: "**/virgo.db", What: "an installation's database", Authority: true},
	{Pattern: "**/virgo.db.*", What: "an installation database's side file", Authority: true},
	{Pattern: "**/keys.json", What: "a console's key bindings (which key approves)", Authority: true},
	{Pattern: "**/*host*_key", What: "an SSH host key", Authority: true},

	{Pattern: "**/.env", What: "an environment file"},
	{Pattern: "**/.env.*", What: "an environment file"},
	{Pattern: "**/.ssh/**", What: "SSH material"},
	{Pattern: "**/id_rsa", What: "an SSH private key"},
	{Pattern: "**/id_ed25519", What: "an SSH private key"},
	{Pattern: "**/id_ecdsa", What: "an SSH private key"},
	{Pattern: "**/*.pem", What: "a PEM key or certificate bundle"},
	{Pattern: "**/*.key", What: "a private key"},
	{Pattern: "**/*.p12", What: "a PKCS #12 key store"},
	{Pattern: "**/.netrc", What: "a netrc credential file"},
	{Pattern: "**/.npmrc", What: "an npm credential file"},
	{Pattern: "**/.pypirc", What: "a PyPI credential file"},
	{Pattern: "**/.pgpass", What: "a PostgreSQL password file"},
	{Pattern: "**/.git-credentials", What: "a git credential store"},
	{Pattern: "**/.aws/credentials", What: "AWS credentials"},
	{Pattern: "**/.docker/config.json", What: "Docker registry credentials"},
	{Pattern: "**/kubeconfig", What: "a Kubernetes config with credentials"},
	{Pattern: "**/.kube/config", What: "a Kubernetes config with credentials"},
	{Pattern: "**/credentials*.json", What: "a credentials file"},
	{Pattern: "**/credentials/**", What: "a credentials directory"},
	{Pattern: "**/secrets/**", What: "a secrets directory"},
	{Pattern: "**/*token*", What: "a token file"},

	{Pattern: "**/.envrc", What: "a direnv environment file"},
	{Pattern: "**/*.env", What: "an environment file"},
	{Pattern: "**/*_rsa", What: "an SSH private key"},
	{Pattern: "**/*_dsa", What: "an SSH private key"},
	{Pattern: "**/*_ecdsa", What: "an SSH private key"},
	{Pattern: "**/*_ed25519", What: "an SSH private key"},
	{Pattern: "**/*_sk", What: "a FIDO SSH private key"},
	{Pattern: "**/*.ppk", What: "a PuTTY private key"},
	{Pattern: "**/*.pfx", What: "a PKCS #12 key store"},
	{Pattern: "**/*.pkcs12", What: "a PKCS #12 key store"},
	{Pattern: "**/*.jks", What: "a Java key store"},
	{Pattern: "**/*.keystore", What: "a key store"},
	{Pattern: "**/*.key.*", What: "a private key's backup"},
	{Pattern: "**/*.key~", What: "a private key's backup"},
	{Pattern: "**/*.pem.*", What: "a PEM key's backup"},
	{Pattern: "**/*.pem~", What: "a PEM key's backup"},
	{Pattern: "**/id_*.bak", What: "an SSH private key's backup"},
	{Pattern: "**/id_*~", What: "an SSH private key's backup"},
	{Pattern: "**/.gnupg/**", What: "GnuPG key material"},
	{Pattern: "**/otr.private_key", What: "an OTR private key"},
	{Pattern: "**/application_default_credentials.json", What: "Google Cloud credentials"},
	{Pattern: "**/.config/gcloud/**", What: "Google Cloud credentials"},
	{Pattern: "**/*service?account*.json", What: "a cloud service account key"},
	{Pattern: "**/.azure/**", What: "Azure CLI credentials"},
	{Pattern: "**/.config/gh/hosts.yml", What: "GitHub CLI credentials"},
	{Pattern: "**/.gem/credentials", What: "RubyGems credentials"},
	{Pattern: "**/.s3cfg", What: "S3 credentials"},
	{Pattern: "**/.dockercfg", What: "Docker registry credentials"},
	{Pattern: "**/credentials.xml", What: "a Jenkins credentials file"},
	{Pattern: "**/.htpasswd", What: "an htpasswd password file"},
	{Pattern: "**/proftpdpasswd", What: "an FTP password file"},
	{Pattern: "**/*.tfstate", What: "Terraform state (holds secrets in clear)"},
	{Pattern: "**/*.tfstate.*", What: "Terraform state (holds secrets in clear)"},
	{Pattern: "**/*.tfvars", What: "Terraform variables"},
	{Pattern: "**/.*_history", What: "a command history"},
	{Pattern: "**/.history", What: "a command history"},
	{Pattern: "**/.zhistory", What: "a command history"},
	{Pattern: "**/*.kdbx", What: "a KeePass password database"},
	{Pattern: "**/*.kdb", What: "a KeePass password database"},
	{Pattern: "**/*.psafe3", What: "a Password Safe database"},
	{Pattern: "**/*.agilekeychain", What: "a 1Password database"},
	{Pattern: "**/*.keychain", What: "a macOS keychain"},
	{Pattern: "**/*.kwallet", What: "a KDE wallet"},
	{Pattern: "**/*.ovpn", What: "an OpenVPN profile with keys"},
	{Pattern: "**/*.bek", What: "a BitLocker recovery key"},
	{Pattern: "**/secret_token.rb", What: "a Rails secret token"},
}

// materialGlobs is SecretMaterial compiled lower-cased, in the table's
// order: the authority rows come first, so they win over a secret row.
var materialGlobs = func() globSet {
	patterns := make([]string, len(SecretMaterial))
	for i, m := range SecretMaterial {
		patterns[i] = strings.ToLower(m.Pattern)
	}
	g, err := compileGlobs(patterns)
	if err != nil {
		panic(err) // the table is constant; TestSecretMaterialTable compiles every row
	}
	return g
}()

// materialAt finds the first row a lower-cased normalized path matches. It
// does not allocate.
func materialAt(folded string) (Material, bool) {
	i, ok := materialGlobs.firstIndex(folded)
	if !ok {
		return Material{}, false
	}
	return SecretMaterial[i], true
}

// MaterialAt finds the secret or authority material row a workspace path
// matches, whatever its case.
func MaterialAt(path string) (Material, bool) { return materialAt(strings.ToLower(path)) }

// refusal is the one denial of letting the material at path leave its
// workspace, naming the boundary: authority material is never exported,
// a secret value never read nor exported.
func (m Material) refusal(path string) Decision {
	if m.Authority {
		return deny(BoundaryAuthorityMaterial, "%s is %s: lease, fence or authority material", path, m.What)
	}
	return deny(BoundarySecretValues, "%s is %s, a secret credential value", path, m.What)
}

// Egress decides whether the bytes of the workspace file at path (a
// normalized workspace path, resolved on disk where the file lies, so that
// a link is judged by the file it reaches) may leave the workspace: read
// by a persona, sent to a human, named as an artifact, saved from the
// channel. Material of SecretMaterial is denied with its boundary named —
// the same refusal Authorize gives a read of it; anything else is allowed.
// Every exit of a workspace's bytes asks this one table.
func Egress(path string) Decision {
	if m, ok := MaterialAt(path); ok {
		return m.refusal(path)
	}
	return Decision{Verdict: Allow}
}

// CredentialValue is one row of the value half of the secret material
// table: text that is itself a secret credential value, whatever field or
// file holds it.
type CredentialValue struct {
	// Pattern is a regular expression found anywhere in the text.
	Pattern string
	// What says what such text is, for the refusal an operator reads
	// (which never repeats the text).
	What string
}

// CredentialValues is the value half of the one secret material table
// (docs/authorization.md lists it): where SecretMaterial names the files
// whose contents are secret, these name the values that are, wherever they
// stand. The first row that matches decides.
var CredentialValues = []CredentialValue{
	{Pattern: `-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----`, What: "a PEM private key"},
	{Pattern: `\bgh[pousr]_[A-Za-z0-9]{20,}`, What: "a GitHub token"},
	{Pattern: `\bgithub_pat_[A-Za-z0-9_]{20,}`, What: "a GitHub fine-grained token"},
	{Pattern: `\bsk-[A-Za-z0-9_-]{16,}`, What: "an API secret key"},
	{Pattern: `\bxox[abposr]-[A-Za-z0-9-]{10,}`, What: "a Slack token"},
	{Pattern: `\b(AKIA|ASIA)[A-Z0-9]{16}\b`, What: "an AWS access key id"},
	{Pattern: `\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.`, What: "a JSON Web Token"},
	// A key naming a secret, then its value: client_secret:…, api_token=…,
	// password=…. The key's last word decides (author:henry is no secret).
	{Pattern: `(?i)(secret|passw(or)?d|passphrase|pwd|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?|bearer)\s*[:=]\s*\S`,
		What: "a key:value pair naming a secret"},
}

// credentialValues is CredentialValues compiled, in the table's order.
var credentialValues = func() []*regexp.Regexp {
	rs := make([]*regexp.Regexp, len(CredentialValues))
	for i, v := range CredentialValues {
		rs[i] = regexp.MustCompile(v.Pattern) // constant; TestCredentialValueTable compiles every row
	}
	return rs
}()

// CredentialIn finds the first credential value row that text matches:
// text that must not be kept where bindings are (a stamp carries bindings,
// never credentials).
func CredentialIn(text string) (CredentialValue, bool) {
	for i, r := range credentialValues {
		if r.MatchString(text) {
			return CredentialValues[i], true
		}
	}
	return CredentialValue{}, false
}
