package provider

import (
	"bytes"
	"context"
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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/multikueue"
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
	stackTest(t, 1)
	ref := createTestCluster(t, "acc-trace")
	s := on(t, ref).stack()
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

// TestAccSecrets_multiKueueTrace: the MultiKueue worker's token, made by the provider, and a kubeconfig brought in
// the write-only kubeconfig_wo reach neither the TRACE log nor the state, through an apply, a refresh and a destroy.
func TestAccSecrets_multiKueueTrace(t *testing.T) {
	stackTest(t, 2)
	manager := createTestCluster(t, "mk-trace-m")
	worker := createTestCluster(t, "mk-trace-w")
	plane := on(t, worker).stack()
	w := clusterClients(t, worker.Name)
	// A kubeconfig brought by the user: the worker plane's own admin token, which nothing else here sends.
	byo := string(multikueue.Kubeconfig(plane.Host, plane.CAPEM, []byte(plane.AdminToken)))
	dir := t.TempDir()
	logPath := filepath.Join(dir, "trace.log")
	config := fmt.Sprintf(`
variable "byo" {
  type      = string
  sensitive = true
}

resource "dwsfallback_multikueue_worker" "made" {
  cluster        = %[1]q
  name           = "made"
  worker_cluster = %[2]q
}

resource "dwsfallback_multikueue_worker" "brought" {
  cluster               = %[1]q
  name                  = "brought"
  worker_cluster        = %[2]q
  secret_name           = "brought-secret"
  kubeconfig_wo         = var.byo
  kubeconfig_wo_version = 1
}
`, manager.String(), worker.String())
	tf := newTFRun(t, config, "TF_LOG=TRACE", "TF_LOG_PATH="+logPath, "TF_VAR_byo="+byo)
	tf.mustRun("apply", "-auto-approve")
	tf.mustRun("plan", "-detailed-exitcode")
	secretByHand(t, manager.Name, "brought-secret", byo, tf)
	state, err := os.ReadFile(filepath.Join(tf.dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	token, err := multikueue.Token(context.Background(), w.Core, multikueue.Worker{ServiceAccount: "multikueue-sa"})
	if err != nil || len(token) == 0 {
		t.Fatalf("no worker token: %v", err)
	}
	tf.mustRun("destroy", "-auto-approve")
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for where, text := range map[string][]byte{"TRACE log": log, "state": state} {
		for name, secret := range map[string]string{"worker token": string(token), "brought kubeconfig's token": plane.AdminToken} {
			if bytes.Contains(text, []byte(secret)) {
				t.Errorf("the %s holds the %s", where, name)
			}
		}
	}
	if !bytes.Contains(state, []byte(`"credentials_current": true`)) {
		t.Errorf("the state does not say the credentials are current:\n%s", state)
	}
	t.Logf("scanned %d bytes of TRACE log and %d bytes of state", len(log), len(state))
}

// secretByHand edits the manager's Secret that holds a brought kubeconfig, as kubectl would, and checks that the next
// plan writes the configured one (want) back: the fingerprint in private state is all the provider has of it.
func secretByHand(t *testing.T, manager, name, want string, tf *tfRun) {
	t.Helper()
	ctx := context.Background()
	m := clusterClients(t, manager)
	secrets := m.Core.Secrets(multikueue.KueueNamespace)
	s, err := secrets.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Data[multikueue.SecretKey] = []byte(strings.Replace(want, "token:", "token: x", 1))
	if _, err := secrets.Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if out, code := tf.planExit(); code != 2 || !strings.Contains(out, "credentials_current") {
		t.Fatalf("a Secret edited by hand: plan exit %d, want 2 with credentials_current:\n%s", code, out)
	}
	tf.mustRun("apply", "-auto-approve")
	if s, err = secrets.Get(ctx, name, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if string(s.Data[multikueue.SecretKey]) != want {
		t.Error("the apply did not write the configured kubeconfig back")
	}
	tf.mustRun("plan", "-detailed-exitcode")
}
