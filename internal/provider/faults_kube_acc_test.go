package provider

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func faultQueue(name, extra string) string {
	return fmt.Sprintf(`
resource "dwsfallback_kueue_queue" "test" {
  name         = "%[1]s-cluster-queue"
  flavors      = [{ name = "%[1]s-cpu", quotas = { cpu = "4", memory = "8Gi" } }]
  local_queues = [{ namespace = "default", name = "%[1]s-user-queue" }]
  %[2]s
}
`, name, extra)
}

// A token the API server no longer accepts: the error says so and how to renew it, for Kubernetes and for GKE.
func TestAccFaults_revokedToken(t *testing.T) {
	t.Parallel() // refused before it writes, and it starts no control plane (its cluster is never reached)
	s := requireStack(t)
	createTestCluster(t, "acc-revoked")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:      kubeBlockProvider(s, "revoked-token") + faultQueue("revoked", ""),
				ExpectError: messageRE("refused the provider's credentials (401 Unauthorized): the token expired or was revoked"),
			},
			{
				Config:      "provider \"dwsfallback\" {\n  access_token = \"expired-token\"\n}\n" + pairConfig("acc-revoked", "od", "dws", 4),
				ExpectError: messageRE("GKE refused the credentials: the access token expired or was revoked"),
			},
		},
	})
}

// A cluster without Kueue or KubeRay: the error names what is missing and how to install it.
func TestAccFaults_notInstalled(t *testing.T) {
	stackTest(t, 1)
	s := startStack(t, true)
	job := `
resource "dwsfallback_rayjob" "test" {
  name        = "noray"
  entrypoint  = "python -c 'print(1)'"
  image       = "rayproject/ray:2.53.0-py311"
  head        = { cpu = "1", memory = "1Gi" }
  tpu_workers = { accelerator = "tpu-v6e-slice", topology = "4x4", chips_per_node = 4, cpu = "1", memory = "1Gi" }
  wait_for    = "none"
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:      kubeBlockProvider(s, s.AdminToken) + faultQueue("nokueue", ""),
				ExpectError: messageRE("the cluster does not serve Kueue's kueue.x-k8s.io/v1beta2 API; install Kueue"),
			},
			{
				Config:      kubeBlockProvider(s, s.AdminToken) + job,
				ExpectError: messageRE("does not serve KubeRay's ray.io/v1 RayJob: enable GKE's RayOperator add-on"),
			},
		},
	})
}

// Kueue's webhook not answering yet (as right after Kueue starts): the apply waits for it and finishes.
func TestAccFaults_webhookNotAnswering(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-webhook"))
	s := cp.stack()
	// The webhook points at a listener of the test's that drops every connection, so the test sees the API server
	// try it (the fault met) before it takes the webhook away.
	addr, hits := droppingListener(t, "127.0.0.1:0")
	cp.kubectl(fmt.Sprintf(`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: acc-unreachable-kueue
webhooks:
- name: unreachable.kueue.x-k8s.io
  clientConfig:
    url: https://%s/validate
  rules:
  - apiGroups: ["kueue.x-k8s.io"]
    apiVersions: ["*"]
    operations: ["CREATE", "UPDATE"]
    resources: ["clusterqueues", "resourceflavors", "localqueues"]
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: ["v1"]
`, addr), "apply", "-f", "-")
	t.Cleanup(func() {
		cp.kubectl("", "delete", "validatingwebhookconfiguration", "acc-unreachable-kueue", "--ignore-not-found")
	})
	cfg := kubeBlockProvider(s, s.AdminToken) + faultQueue("webhook", "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			PreConfig: func() {
				go func() {
					if waitFor(2*time.Minute, func() bool { return hits() >= 2 }) {
						cp.kubectl("", "delete", "validatingwebhookconfiguration", "acc-unreachable-kueue")
					}
				}()
			},
			Config: cfg,
			Check: func(*terraform.State) error {
				if hits() < 2 {
					return fmt.Errorf("the webhook was called %d times: the apply never met the fault", hits())
				}
				return nil
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(queueAddr, tfjsonpath.New("active"), knownvalue.Bool(true)),
			},
		}},
	})
}

// The API server goes away just before the apply and comes back once the provider has been refused: the apply
// finishes, and the next plan is empty. While it is down, a listener of the test's holds its port and drops the
// provider's connections, so the test knows the provider met the fault.
func TestAccFaults_apiServerRestart(t *testing.T) {
	stackTest(t, 1)
	s := startStack(t, false)
	cfg := kubeBlockProvider(s, s.AdminToken) + faultQueue("restart", "")
	restarted := make(chan error, 1)
	var hits func() int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					s.StopAPIServer()
					var stop func()
					_, hits, stop = droppingListenerOn(t, strings.TrimPrefix(s.Host, "https://"))
					go func() {
						waitFor(2*time.Minute, func() bool { return hits() >= 1 })
						stop()
						ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
						defer cancel()
						restarted <- s.StartAPIServer(ctx)
					}()
				},
				Config: cfg,
				Check: func(*terraform.State) error {
					if hits() < 1 {
						return fmt.Errorf("no connection reached the stopped API server's port: the apply never met the fault")
					}
					return nil
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(queueAddr, tfjsonpath.New("active"), knownvalue.Bool(true)),
				},
			},
			{Config: cfg, PlanOnly: true},
		},
	})
	if err := <-restarted; err != nil {
		t.Fatalf("restarting the API server: %v", err)
	}
}

// droppingListener accepts TCP connections on addr and closes each at once, counting them.
func droppingListener(t *testing.T, addr string) (string, func() int) {
	t.Helper()
	bound, hits, stop := droppingListenerOn(t, addr)
	t.Cleanup(stop)
	return bound, hits
}

// droppingListenerOn is droppingListener on a given address (retried for a while: a stopped server's port may take a
// moment to free); stop closes it.
func droppingListenerOn(t *testing.T, addr string) (bound string, hits func() int, stop func()) {
	t.Helper()
	var l net.Listener
	var err error
	if !waitFor(10*time.Second, func() bool { l, err = net.Listen("tcp", addr); return err == nil }) {
		t.Fatalf("listening on %s: %v", addr, err)
	}
	var n atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			_ = c.Close()
		}
	}()
	var once sync.Once
	return l.Addr().String(), func() int { return int(n.Load()) }, func() { once.Do(func() { _ = l.Close() }) }
}

// Another field manager owns a field with another value: with force_conflicts = false the apply names the conflict
// and the way to take ownership; with force_conflicts = true it takes it.
func TestAccFaults_fieldManagerConflict(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-conflict"))
	s := cp.stack()
	keep := faultQueue("conflict", "force_conflicts = false")
	take := faultQueue("conflict", "force_conflicts = true")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: kubeBlockProvider(s, s.AdminToken) + keep},
			{
				PreConfig: func() {
					cp.kubectl(`
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: conflict-cluster-queue
spec:
  queueingStrategy: StrictFIFO
`, "apply", "--server-side", "--field-manager=ops-team", "--force-conflicts", "-f", "-")
				},
				Config:      kubeBlockProvider(s, s.AdminToken) + keep,
				ExpectError: messageRE(`set force_conflicts = true (the default) to take ownership of them`),
			},
			{
				Config: kubeBlockProvider(s, s.AdminToken) + take,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(queueAddr, tfjsonpath.New("queueing_strategy"), knownvalue.StringExact("BestEffortFIFO")),
				},
			},
		},
	})
}
