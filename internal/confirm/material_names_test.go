package confirm

import "testing"

// Item 6's reproduction: of 41 common secret file names 23 were readable,
// and the home's own SSH host key matched nothing. Every name below must
// be material, and ordinary project files must not be.
func TestCommonSecretFileNamesAreMaterial(t *testing.T) {
	secrets := []string{
		".envrc", "deploy/.envrc", "prod.env", "config/staging.env", ".env.production",
		"id_dsa", "keys/deploy_rsa", "id_ecdsa_sk", "id_ed25519_sk", "backup/id_rsa.bak", "id_ed25519~",
		"putty/server.ppk", "release.jks", "app.keystore", "cert.pfx", "cert.p12", "cert.pkcs12",
		".gnupg/secring.gpg", ".gnupg/private-keys-v1.d/AB.key",
		".config/gcloud/application_default_credentials.json", "application_default_credentials.json",
		".config/gcloud/credentials.db", "service-account.json", "my-service_account-key.json",
		".htpasswd", "infra/terraform.tfstate", "infra/terraform.tfstate.backup", "prod.tfvars", "x.auto.tfvars",
		".bash_history", ".zsh_history", ".mysql_history", ".psql_history", ".python_history", ".history",
		"server.key.bak", "server.key~", "server.pem.old", "server.pem~",
		".s3cfg", ".azure/msal_token_cache.json", ".config/gh/hosts.yml", "vault.kdbx", "jenkins/credentials.xml",
		"client.ovpn", "config/initializers/secret_token.rb",
		// The home's own files, if a binding ever reached them.
		"virgo.db", "virgo.db.clean", "keys.json", "ssh/host_ed25519_key", "etc/ssh/ssh_host_rsa_key",
	}
	for _, p := range secrets {
		if m, ok := MaterialAt(p); !ok {
			t.Errorf("%s is not material", p)
		} else if d := Egress(p); d.Verdict != Deny {
			t.Errorf("Egress(%s) = %s (row %q); want deny", p, d, m.Pattern)
		}
	}
	plain := []string{
		"README.md", "main.go", "id_rsa.pub", "keys/deploy_rsa.pub", "ssh/host_ed25519_key.pub", "settings.py",
		"config/database.yml", "app.log", "docs/environment.md", "src/envelope.go", "history.md", "docs/keys.md",
		"terraform/main.tf", "package.json", "accounts.json", "SIGNATURE.asc", "notes/secret-santa.md",
	}
	for _, p := range plain {
		if m, ok := MaterialAt(p); ok {
			t.Errorf("%s is taken for %s (row %q)", p, m.What, m.Pattern)
		}
	}
}
