package provider

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
)

// serviceAccountKey makes a key pair, lets the emulator accept its signatures, and returns the key file's JSON (whose
// token_uri is the emulator's token endpoint) and the private key's PEM.
func serviceAccountKey(t *testing.T) (keyJSON, privatePEM string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	privatePEM = string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	email := "terraform@" + testProject + ".iam.gserviceaccount.com"
	emu.AddServiceAccount(email, &key.PublicKey)
	b, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": testProject, "private_key_id": "0123456789abcdef",
		"private_key": privatePEM, "client_email": email, "client_id": "1234567890",
		"token_uri": emuEndpoint + gkeemu.TokenPath,
	})
	return string(b), privatePEM
}

// An apply, a refresh and a destroy at TF_LOG=TRACE, with a service-account key (exchanged for access tokens at the
// emulator) and a Kubernetes bearer token: none of the private key, the access tokens and the bearer token appears
// in the log of terraform and the provider, or in the state.
func TestAccSecrets_traceLog(t *testing.T) {
	s := requireStack(t)
	ref := createTestCluster(t, "acc-trace")
	keyJSON, privatePEM := serviceAccountKey(t)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key.json")
	if err := os.WriteFile(keyFile, []byte(keyJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`
provider "dwsfallback" {
  credentials = file(%q)
  kubernetes {
    host                   = %q
    token                  = %q
    cluster_ca_certificate = %q
  }
}
`, keyFile, s.Host, s.AdminToken, string(s.CAPEM)) + pairConfig(ref.Name, "od", "dws", 4) + faultQueue("trace", "")
	logPath := filepath.Join(dir, "trace.log")
	tf := newTFRun(t, config, "TF_LOG=TRACE", "TF_LOG_PATH="+logPath,
		"GOOGLE_OAUTH_ACCESS_TOKEN=", "GOOGLE_CREDENTIALS=", "DWSFALLBACK_CONTAINER_ENDPOINT="+emuEndpoint)
	tf.mustRun("apply", "-auto-approve")
	tf.mustRun("plan", "-detailed-exitcode")
	state, err := os.ReadFile(filepath.Join(tf.dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	tf.mustRun("destroy", "-auto-approve")

	issued := emu.IssuedTokens()
	if len(issued) == 0 {
		t.Fatal("the emulator issued no access token: the service-account key was not used")
	}
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(log, []byte("dwsfallback")) || !bytes.Contains(log, []byte("[TRACE]")) {
		t.Fatalf("the TRACE log (%d bytes) has no provider lines", len(log))
	}
	secrets := map[string]string{"Kubernetes bearer token": s.AdminToken}
	for i, tok := range issued {
		secrets[fmt.Sprintf("access token %d", i)] = tok
	}
	// Any line of the key's base64 body is enough to rebuild part of it; look for each.
	for i, line := range strings.Split(privatePEM, "\n") {
		if len(line) == 64 {
			secrets[fmt.Sprintf("private key line %d", i)] = line
		}
	}
	for where, text := range map[string][]byte{"TRACE log": log, "state": state} {
		for name, secret := range secrets {
			if bytes.Contains(text, []byte(secret)) {
				t.Errorf("the %s holds the %s", where, name)
			}
			// JSON escapes slashes and plus signs differently; look for the escaped spelling too.
			if esc, _ := json.Marshal(secret); bytes.Contains(text, esc[1:len(esc)-1]) && !bytes.Equal(esc[1:len(esc)-1], []byte(secret)) {
				t.Errorf("the %s holds the %s (JSON-escaped)", where, name)
			}
		}
	}
	t.Logf("scanned %d bytes of TRACE log and %d bytes of state for %d secrets", len(log), len(state), len(secrets))
}
