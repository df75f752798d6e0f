package main

import (
	"os"
	"strings"
	"testing"
)

// TestVersionMatchesChangelog: the version in main.go is the newest entry of CHANGELOG.md, so a release tag
// v<version> ships the changes that entry lists.
func TestVersionMatchesChangelog(t *testing.T) {
	b, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "## "); ok {
			if got := strings.Fields(rest)[0]; got != version {
				t.Errorf("CHANGELOG.md's newest entry is %s, main.version is %s", got, version)
			}
			return
		}
	}
	t.Error("CHANGELOG.md has no version entry")
}
