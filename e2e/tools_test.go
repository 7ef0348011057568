package e2e

import (
	"os"
	"os/exec"
	"testing"
)

// requireTools skips t when a program it drives is not installed — on a
// developer's machine — and fails it under CI=true, where .ci/run installs
// every one of them: a suite that skips its end-to-end proof silently
// proves nothing.
func requireTools(t testing.TB, why string, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed under CI=true (.ci/run installs it): %s", tool, why)
			}
			t.Skipf("%s is not installed: %s", tool, why)
		}
	}
}
