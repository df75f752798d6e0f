package provider

import (
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// contexts runs the real kubectl in the contexts `gcloud container clusters get-credentials` writes, one per
// emulated cluster, as a user of several clusters does.
type contexts struct {
	t          *testing.T
	g          *testutil.Gcloud
	kubeconfig string
}

func newContexts(t *testing.T) *contexts {
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	g.Setenv("KUBECONFIG=" + kc)
	return &contexts{t: t, g: g, kubeconfig: kc}
}

// of gets the cluster's credentials and returns its context's name.
func (c *contexts) of(cluster string) string {
	c.g.Run("container", "clusters", "get-credentials", cluster, "--location="+testLocation)
	return fmt.Sprintf("gke_%s_%s_%s", testProject, testLocation, cluster)
}

func (c *contexts) try(context, stdin string, args ...string) (string, error) {
	cmd := exec.Command("kubectl", append([]string{"--kubeconfig", c.kubeconfig, "--context", context, "--request-timeout=5m"}, args...)...)
	cmd.Env, cmd.Stdin = c.g.Environ(), strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (c *contexts) run(context, stdin string, args ...string) string {
	c.t.Helper()
	out, err := c.try(context, stdin, args...)
	if err != nil {
		c.t.Fatalf("kubectl --context %s %s: %v\n%s", context, strings.Join(args, " "), err, out)
	}
	return out
}

// scriptWorker is what Kueue's create-multikueue-kubeconfig.sh (v0.17.0) applies on a worker: its names, and its
// ClusterRole's rules as the script writes them.
const scriptWorker = `
apiVersion: v1
kind: ServiceAccount
metadata: {name: multikueue-sa, namespace: kueue-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: multikueue-sa-role}
rules:
- {apiGroups: [batch], resources: [jobs], verbs: [create, delete, get, list, watch]}
- {apiGroups: [batch], resources: [jobs/status], verbs: [get]}
- {apiGroups: [jobset.x-k8s.io], resources: [jobsets], verbs: [create, delete, get, list, watch]}
- {apiGroups: [jobset.x-k8s.io], resources: [jobsets/status], verbs: [get]}
- {apiGroups: [kueue.x-k8s.io], resources: [workloads], verbs: [create, delete, get, list, watch]}
- {apiGroups: [kueue.x-k8s.io], resources: [workloads/status], verbs: [get, patch, update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: multikueue-sa-crb}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: multikueue-sa-role}
subjects:
- {kind: ServiceAccount, name: multikueue-sa, namespace: kueue-system}
---
apiVersion: v1
kind: Secret
type: kubernetes.io/service-account-token
metadata:
  name: multikueue-sa
  namespace: kueue-system
  annotations: {kubernetes.io/service-account.name: multikueue-sa}
`

// docsManager is the manager's side as Kueue's MultiKueue setup page writes it: the check and the config named apart.
const docsManager = `
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: mki-w}
spec:
  clusterSource:
    kubeConfig: {locationType: Secret, location: mki-w-secret}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueConfig
metadata: {name: mki-config}
spec:
  clusters: [mki-w]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: sample-multikueue}
spec:
  controllerName: kueue.x-k8s.io/multikueue
  parameters: {apiGroup: kueue.x-k8s.io, kind: MultiKueueConfig, name: mki-config}
`

// TestAccMultiKueue_importScript adopts a MultiKueue setup made as Kueue documents it: the worker's ServiceAccount,
// role and token by the script's steps (kubectl), the kubeconfig Secret by `kubectl create secret`, and the
// manager's objects by the docs' YAML. `import {}` blocks with -generate-config-out give a configuration that
// validates; the plan imports both objects and changes one thing, named: the worker's role lacks rights Kueue's
// manager uses (credentials_current), and Kueue, which cannot watch the worker's RayClusters with it, reports the
// worker not Active. After the apply the role grants them, Kueue reaches the worker, and the plan is empty. Then drift by
// kubectl: the config's worker list edited, and the check deleted, each planned back, the check under its own name.
func TestAccMultiKueue_importScript(t *testing.T) {
	stackTest(t, 2)
	manager := createTestCluster(t, "mki-m")
	worker := createTestCluster(t, "mki-w")
	kc := newContexts(t)
	m, w := kc.of(manager.Name), kc.of(worker.Name)

	kc.run(w, scriptWorker, "apply", "-f", "-")
	var token []byte
	if !waitFor(time.Minute, func() bool {
		out, err := kc.try(w, "", "get", "secret", "multikueue-sa", "-n", "kueue-system", "-o", "jsonpath={.data.token}")
		token, _ = base64.StdEncoding.DecodeString(out)
		return err == nil && len(token) > 0
	}) {
		t.Fatal("the token controller did not fill the script's token Secret")
	}
	ca := kc.run(w, "", "get", "secret", "multikueue-sa", "-n", "kueue-system", "-o", "jsonpath={.data.ca\\.crt}")
	server := kc.run(w, "", "config", "view", "-o", fmt.Sprintf(`jsonpath={.clusters[?(@.name == "%s")].cluster.server}`, w))
	// The script's kubeconfig: its entry names, the worker's server, the token Secret's ca.crt, the token inline.
	workerKubeconfig := filepath.Join(t.TempDir(), "worker.kubeconfig")
	if err := os.WriteFile(workerKubeconfig, fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
- name: %[1]s
  cluster: {certificate-authority-data: %[2]s, server: %[3]s}
contexts:
- name: %[1]s
  context: {cluster: %[1]s, user: %[1]s-multikueue-sa}
current-context: %[1]s
users:
- name: %[1]s-multikueue-sa
  user: {token: %[4]s}
`, w, ca, server, token), 0o600); err != nil {
		t.Fatal(err)
	}
	kc.run(m, "", "create", "secret", "generic", "mki-w-secret", "-n", "kueue-system", "--from-file=kubeconfig="+workerKubeconfig)
	kc.run(m, docsManager, "apply", "-f", "-")
	// The script's role alone does not let the manager's Kueue, which enables the Ray integrations, watch RayClusters
	// on the worker: Kueue reports the worker not Active.
	active := `jsonpath={.status.conditions[?(@.type=="Active")].status}/{.status.conditions[?(@.type=="Active")].reason}: {.status.conditions[?(@.type=="Active")].message}`
	var cond string
	if !waitFor(2*time.Minute, func() bool {
		cond, _ = kc.try(m, "", "get", "multikueuecluster", "mki-w", "-o", active)
		return strings.HasPrefix(cond, "False/ClientConnectionFailed") && strings.Contains(cond, "forbidden")
	}) {
		t.Fatalf("with the script's role alone, Kueue should fail to watch the worker's Ray kinds; the worker reads %q", cond)
	}
	t.Logf("the script's setup, before the import: %s", cond)

	tf := newTFRunInProcess(t, fmt.Sprintf(`
provider "dwsfallback" {}

import {
  to = dwsfallback_multikueue_worker.w
  id = "%[1]s/multiKueueClusters/mki-w"
}
import {
  to = dwsfallback_multikueue_config.mk
  id = "%[1]s/multiKueueConfigs/mki-config"
}
`, manager.String()))
	tf.generate()
	tf.mustRun("validate")
	out, code := tf.planExit()
	if code != 2 || !strings.Contains(out, "Plan: 2 to import, 0 to add, 1 to change, 0 to destroy.") ||
		!strings.Contains(out, "~ credentials_current = false -> true") {
		t.Fatalf("the plan should import both and repair the script's role, nothing else (exit %d):\n%s", code, out)
	}
	canUpdate := []string{"auth", "can-i", "update", "workloads.kueue.x-k8s.io", "--as=system:serviceaccount:kueue-system:multikueue-sa", "-n", "default"}
	if out, _ := kc.try(w, "", canUpdate...); strings.TrimSpace(out) != "no" {
		t.Fatalf("the script's role should not grant update on workloads yet: %q", out)
	}
	tf.mustRun("apply", "-auto-approve", "-input=false")
	tf.expectEmptyPlan()
	if out := kc.run(w, "", canUpdate...); strings.TrimSpace(out) != "yes" {
		t.Fatalf("after the apply the worker's role should grant update on workloads: %q", out)
	}
	if cond, _ = kc.try(m, "", "get", "multikueuecluster", "mki-w", "-o", active); !strings.HasPrefix(cond, "True/") {
		t.Fatalf("after the apply Kueue should reach the worker: %q", cond)
	}
	if out := kc.run(m, "", "get", "admissioncheck", "sample-multikueue", "-o", "jsonpath={.spec.parameters.name}"); out != "mki-config" {
		t.Fatalf("the docs' check should still name the config: %q", out)
	}
	if _, err := kc.try(m, "", "get", "admissioncheck", "mki-config"); err == nil {
		t.Fatal("the import made a second check named after the config")
	}

	// Drift by kubectl.
	kc.run(m, "", "patch", "multikueueconfig", "mki-config", "--type=merge", "-p", `{"spec":{"clusters":["mki-w","elsewhere"]}}`)
	kc.run(m, "", "delete", "admissioncheck", "sample-multikueue")
	out, code = tf.planExit()
	if code != 2 || !strings.Contains(out, `- "elsewhere"`) || !strings.Contains(out, `~ admission_check = "" -> "sample-multikueue"`) {
		t.Fatalf("the plan should put back the worker list and the check (exit %d):\n%s", code, out)
	}
	tf.mustRun("apply", "-auto-approve", "-input=false")
	tf.expectEmptyPlan()
	kc.run(m, "", "get", "admissioncheck", "sample-multikueue")
	// The generated configuration names the worker by a literal, so nothing orders the two: the config goes first,
	// as the worker refuses to go while a config lists it.
	tf.mustRun("apply", "-destroy", "-auto-approve", "-input=false", "-target=dwsfallback_multikueue_config.mk")
	tf.mustRun("apply", "-destroy", "-auto-approve", "-input=false")
}
