package provider

import (
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/localstack"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/multikueue"
)

// clusterClients are admin clients of an emulated cluster's own control plane, reached as GKE reports it.
func clusterClients(t *testing.T, name string) *kube.Clients {
	t.Helper()
	cl, err := gke.FindCluster(context.Background(), gkeAPIForCheck(), clusterscope.Ref{Project: testProject, Location: testLocation, Name: name}.String())
	if err != nil {
		t.Fatalf("reading cluster %s: %v", name, err)
	}
	ca, err := base64.StdEncoding.DecodeString(cl.GetMasterAuth().GetClusterCaCertificate())
	if err != nil {
		t.Fatal(err)
	}
	c, err := kube.New(kube.Target{Host: "https://" + cl.GetEndpoint(), CAData: ca, BearerToken: testToken})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const multiKueueManagerConfig = `
resource "dwsfallback_cluster" "manager" {
  name                = "mk-manager"
  deletion_protection = false
}

resource "dwsfallback_cluster" "w1" {
  name                = "mk-w1"
  deletion_protection = false
  depends_on          = [dwsfallback_cluster.manager]
}

resource "dwsfallback_cluster" "w2" {
  name                = "mk-w2"
  deletion_protection = false
  depends_on          = [dwsfallback_cluster.manager]
}

resource "dwsfallback_multikueue_worker" "w1" {
  cluster        = dwsfallback_cluster.manager.id
  name           = "mk-w1"
  worker_cluster = dwsfallback_cluster.w1.id
}

resource "dwsfallback_multikueue_worker" "w2" {
  cluster        = dwsfallback_cluster.manager.id
  name           = "mk-w2"
  worker_cluster = dwsfallback_cluster.w2.id
}

resource "dwsfallback_multikueue_config" "mk" {
  cluster = dwsfallback_cluster.manager.id
  name    = "multikueue"
  workers = [dwsfallback_multikueue_worker.w1.name, dwsfallback_multikueue_worker.w2.name]
}

resource "dwsfallback_kueue_queue" "manager" {
  cluster          = dwsfallback_cluster.manager.id
  name             = "cluster-queue"
  flavors          = [{ name = "default-flavor", quotas = { cpu = "100", memory = "400Gi", "google.com/tpu" = "64" } }]
  local_queues     = [{ namespace = "default", name = "user-queue" }]
  admission_checks = [dwsfallback_multikueue_config.mk.admission_check]
}
`

// TestAccMultiKueue_manager: a manager and two worker clusters, each its own control plane. The workers' credentials
// are made by the provider and Kueue on the manager connects to both; the check and the queue are Active. No token or
// kubeconfig reaches state. A token rotated on a worker, and a config changed with kubectl, show in the plan and the
// next apply repairs them; the objects import with an empty plan.
//
// Not parallel: it stops a worker's API server, which must not be the shared control plane; in the serial phase
// the manager, made first, takes that one.
func TestAccMultiKueue_manager(t *testing.T) {
	s := serialStack(t)
	custom := strings.Replace(multiKueueManagerConfig, `name           = "mk-w2"`,
		`name            = "mk-w2"
  secret_name     = "mk-w2-custom"
  service_account = "mk-w2-sa"`, 1)
	moved := strings.Replace(multiKueueManagerConfig, `worker_cluster = dwsfallback_cluster.w2.id`, `worker_cluster = dwsfallback_cluster.w1.id`, 1)
	withConfig := strings.Replace(multiKueueManagerConfig, `worker_cluster = dwsfallback_cluster.w2.id`, `worker_cluster = dwsfallback_cluster.w2.id
  config         = "multikueue"`, 1)
	retired := regexp.MustCompile(`(?s)resource "dwsfallback_multikueue_worker" "w2" \{.*?\n\}\n`).ReplaceAllString(
		strings.Replace(withConfig, `workers = [dwsfallback_multikueue_worker.w1.name, dwsfallback_multikueue_worker.w2.name]`, `workers = [dwsfallback_multikueue_worker.w1.name]`, 1), "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: multiKueueManagerConfig,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("dwsfallback_multikueue_worker.w1", "active", "true"),
					resource.TestCheckResourceAttr("dwsfallback_multikueue_worker.w1", "active_reason", "Active"),
					resource.TestCheckResourceAttr("dwsfallback_multikueue_worker.w2", "active", "true"),
					resource.TestCheckResourceAttr("dwsfallback_multikueue_worker.w2", "secret_name", "mk-w2-kubeconfig"),
					resource.TestCheckResourceAttr("dwsfallback_multikueue_worker.w2", "credentials_current", "true"),
					resource.TestCheckResourceAttr("dwsfallback_multikueue_config.mk", "active_reason", "Active"),
					resource.TestCheckResourceAttr("dwsfallback_multikueue_config.mk", "admission_check", "multikueue"),
					resource.TestCheckResourceAttr("dwsfallback_kueue_queue.manager", "active", "true"),
					func(s *terraform.State) error {
						// Nothing in state may be a worker's token or a kubeconfig.
						for _, w := range []string{"mk-w1", "mk-w2"} {
							tok, err := multikueue.Token(context.Background(), clusterClients(t, w).Core, multikueue.Worker{ServiceAccount: "multikueue-sa"})
							if err != nil || len(tok) == 0 {
								return fmt.Errorf("no token on %s: %v", w, err)
							}
							for _, rs := range s.RootModule().Resources {
								for k, v := range rs.Primary.Attributes {
									if strings.Contains(v, string(tok)) || strings.Contains(v, "certificate-authority-data") {
										return fmt.Errorf("%s.%s holds %s's token or a kubeconfig", rs.Type, k, w)
									}
								}
							}
						}
						return nil
					},
				),
			},
			{
				// The token is rotated on the worker: its Secret is deleted, and the manager's kubeconfig is stale.
				PreConfig: func() {
					w := clusterClients(t, "mk-w1")
					if err := w.Core.Secrets(multikueue.KueueNamespace).Delete(context.Background(), multikueue.Worker{ServiceAccount: "multikueue-sa"}.TokenSecret(), metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config:             multiKueueManagerConfig,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: multiKueueManagerConfig,
				Check:  resource.TestCheckResourceAttr("dwsfallback_multikueue_worker.w1", "credentials_current", "true"),
			},
			{
				// A worker dropped from the config with kubectl shows as drift.
				PreConfig: func() {
					m := clusterClients(t, "mk-manager")
					patch := []byte(`{"spec":{"clusters":["mk-w2"]}}`)
					if _, err := m.Kueue.KueueV1beta2().MultiKueueConfigs().Patch(context.Background(), "multikueue", "application/merge-patch+json", patch, metav1.PatchOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config:             multiKueueManagerConfig,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{Config: multiKueueManagerConfig},
			{
				// Settings away from their defaults change the worker in place: the MultiKueueConfig still lists it.
				Config: custom,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("dwsfallback_multikueue_worker.w2", plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("dwsfallback_multikueue_worker.w2", "active", "true"),
					workerObjects(t, "mk-w2-custom", "mk-w2-sa", "mk-w2-kubeconfig", "multikueue-sa"),
				),
			},
			{
				// Removed from the configuration, both settings plan their defaults back.
				Config: multiKueueManagerConfig,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("dwsfallback_multikueue_worker.w2", plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue("dwsfallback_multikueue_worker.w2", tfjsonpath.New("secret_name"), knownvalue.StringExact("mk-w2-kubeconfig")),
					plancheck.ExpectKnownValue("dwsfallback_multikueue_worker.w2", tfjsonpath.New("service_account"), knownvalue.StringExact("multikueue-sa")),
				}},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("dwsfallback_multikueue_worker.w2", "active", "true"),
					workerObjects(t, "mk-w2-kubeconfig", "multikueue-sa", "mk-w2-custom", "mk-w2-sa"),
				),
			},
			{
				// Drift on a setting the configuration leaves to its default: the MultiKueueCluster pointed by hand at
				// another worker's Secret is planned back to the default, and that Secret, which mk-w1 still uses,
				// stays.
				PreConfig: func() {
					patch := []byte(`{"spec":{"clusterSource":{"kubeConfig":{"location":"mk-w1-kubeconfig"}}}}`)
					if _, err := clusterClients(t, "mk-manager").Kueue.KueueV1beta2().MultiKueueClusters().Patch(context.Background(), "mk-w2", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: multiKueueManagerConfig,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("dwsfallback_multikueue_worker.w2", plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue("dwsfallback_multikueue_worker.w2", tfjsonpath.New("secret_name"), knownvalue.StringExact("mk-w2-kubeconfig")),
				}},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("dwsfallback_multikueue_worker.w2", "active", "true"),
					workerObjects(t, "mk-w2-kubeconfig", "multikueue-sa", "mk-w2-custom", ""),
					func(*terraform.State) error {
						_, err := clusterClients(t, "mk-manager").Core.Secrets(multikueue.KueueNamespace).Get(context.Background(), "mk-w1-kubeconfig", metav1.GetOptions{})
						return err
					},
				),
			},
			{
				// Another worker cluster for mk-w2, in place: the credentials are made on mk-w1's cluster (whose
				// ServiceAccount now has two users) and removed from mk-w2's.
				Config: moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("dwsfallback_multikueue_worker.w2", plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("dwsfallback_multikueue_worker.w2", "active", "true"),
					resource.TestCheckResourceAttr("dwsfallback_multikueue_worker.w1", "active", "true"),
					serviceAccountOn(t, "mk-w1", true),
					serviceAccountOn(t, "mk-w2", false),
				),
			},
			{
				Config: multiKueueManagerConfig,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("dwsfallback_multikueue_worker.w2", "active", "true"),
					serviceAccountOn(t, "mk-w2", true),
				),
			},
			{
				// The old worker does not answer when mk-w2 moves: the move is applied, and the credentials left on
				// the old worker are named, with what to delete by hand...
				PreConfig:   func() { workerPlane(t, s, "mk-w2").StopAPIServer() },
				Config:      moved,
				ExpectError: regexp.MustCompile(`still\s+opens(.|\n)*each\s+apply\s+tries\s+again`),
			},
			{
				// ...and kept in private state, so each plan shows an update of w2 that tries again; a retry that
				// fails warns and does not fail the apply...
				Config: moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("dwsfallback_multikueue_worker.w2", plancheck.ResourceActionUpdate),
				}},
				ExpectNonEmptyPlan: true,
			},
			{
				// ...until the worker answers and they go.
				PreConfig: func() {
					ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
					defer cancel()
					if err := workerPlane(t, s, "mk-w2").StartAPIServer(ctx); err != nil {
						t.Fatal(err)
					}
				},
				Config: moved,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("dwsfallback_multikueue_worker.w2", "active", "true"),
					serviceAccountOn(t, "mk-w1", true),
					serviceAccountOn(t, "mk-w2", false),
				),
			},
			{Config: multiKueueManagerConfig, Check: serviceAccountOn(t, "mk-w2", true)},
			{
				// A second MultiKueueCluster that reaches worker mk-w1 as the same ServiceAccount (as a second manager
				// would)...
				Config: multiKueueManagerConfig + `
resource "dwsfallback_multikueue_worker" "w1_again" {
  cluster        = dwsfallback_cluster.manager.id
  name           = "mk-w1-again"
  worker_cluster = dwsfallback_cluster.w1.id
}
`,
				Check: resource.TestCheckResourceAttr("dwsfallback_multikueue_worker.w1_again", "active", "true"),
			},
			{
				// ...goes without taking the first one's ServiceAccount, rights and token with it: the plan after the
				// apply would otherwise show credentials_current = false for w1.
				Config: multiKueueManagerConfig,
				Check:  resource.TestCheckResourceAttr("dwsfallback_multikueue_worker.w1", "credentials_current", "true"),
			},
			{
				// DWS on the manager: Kueue would make the queue inactive, so the apply refuses before writing.
				Config: multiKueueManagerConfig + `
resource "dwsfallback_kueue_queue" "with_dws" {
  cluster = dwsfallback_cluster.manager.id
  name    = "dws-and-multikueue"
  flavors = [{ name = "mk-dws", node_labels = { "cloud.google.com/gke-nodepool" = "dws-pool" },
    quotas       = { cpu = "1", memory = "1Gi", "google.com/tpu" = "4" },
  provisioning = { admission_check = "mk-dws-prov", config = "mk-dws-config" } }]
  admission_checks = [dwsfallback_multikueue_config.mk.admission_check]
}
`,
				ExpectError: regexp.MustCompile(`MultiKueueWithProvisioningRequest(.|\n)*Nothing was written`),
			},
			{
				Config:                  multiKueueManagerConfig,
				ResourceName:            "dwsfallback_multikueue_worker.w1",
				ImportState:             true,
				ImportStateId:           clusterscope.Ref{Project: testProject, Location: testLocation, Name: "mk-manager"}.String() + "/multiKueueClusters/mk-w1",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts", "cluster"},
			},
			{
				Config:                  multiKueueManagerConfig,
				ResourceName:            "dwsfallback_multikueue_config.mk",
				ImportState:             true,
				ImportStateId:           clusterscope.Ref{Project: testProject, Location: testLocation, Name: "mk-manager"}.String() + "/multiKueueConfigs/multikueue",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts", "cluster"},
			},
			// A worker that names its config is retired in one apply, unless another config lists it too.
			{Config: withConfig},
			{
				// Made again under its name: its destroy left the config, its create joins it again.
				Config: withConfig,
				Taint:  []string{"dwsfallback_multikueue_worker.w2"},
				Check: func(*terraform.State) error {
					cfg, err := multikueue.FindConfig(context.Background(), clusterClients(t, "mk-manager").Kueue, "multikueue")
					if err != nil || cfg == nil || !slices.Equal(cfg.Spec.Clusters, []string{"mk-w1", "mk-w2"}) {
						return fmt.Errorf("MultiKueueConfig after mk-w2 was made again: %+v, %v; want clusters [mk-w1 mk-w2]", cfg, err)
					}
					return nil
				},
			},
			{
				PreConfig: func() {
					other := utiltesting.MakeMultiKueueConfig("other").Clusters("mk-w2").Obj()
					if _, err := clusterClients(t, "mk-manager").Kueue.KueueV1beta2().MultiKueueConfigs().Create(context.Background(), other, metav1.CreateOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config:      retired,
				ExpectError: regexp.MustCompile(`MultiKueueConfig\s+\[other\]\s+still\s+lists\s+worker\s+mk-w2(.|\n)*Nothing\s+was\s+deleted`),
			},
			{
				PreConfig: func() {
					m := clusterClients(t, "mk-manager").Kueue.KueueV1beta2()
					cfg, err := m.MultiKueueConfigs().Get(context.Background(), "multikueue", metav1.GetOptions{})
					if err != nil || !slices.Contains(cfg.Spec.Clusters, "mk-w2") {
						t.Fatalf("the refused destroy changed MultiKueueConfig multikueue: %v %v", cfg, err)
					}
					if _, err := m.MultiKueueClusters().Get(context.Background(), "mk-w2", metav1.GetOptions{}); err != nil {
						t.Fatalf("the refused destroy deleted MultiKueueCluster mk-w2: %v", err)
					}
					if err := m.MultiKueueConfigs().Delete(context.Background(), "other", metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: retired,
				Check:  serviceAccountOn(t, "mk-w2", false),
			},
		},
	})
}

// workerObjects checks that worker mk-w2 is reached through the manager's Secret secret and the worker's
// ServiceAccount sa, and that the Secret goneSecret and the ServiceAccount goneSA (when named) are gone.
func workerObjects(t *testing.T, secret, sa, goneSecret, goneSA string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx := context.Background()
		m := clusterClients(t, "mk-manager")
		mkc, err := m.Kueue.KueueV1beta2().MultiKueueClusters().Get(ctx, "mk-w2", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got := mkc.Spec.ClusterSource.KubeConfig.Location; got != secret {
			return fmt.Errorf("MultiKueueCluster mk-w2 names Secret %q, want %q", got, secret)
		}
		if _, err := m.Core.Secrets(multikueue.KueueNamespace).Get(ctx, secret, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("the manager's Secret %s: %w", secret, err)
		}
		if _, err := m.Core.Secrets(multikueue.KueueNamespace).Get(ctx, goneSecret, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the manager's Secret %s is still there (%v)", goneSecret, err)
		}
		w := clusterClients(t, "mk-w2")
		if _, err := w.Core.ServiceAccounts(multikueue.KueueNamespace).Get(ctx, sa, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("the worker's ServiceAccount %s: %w", sa, err)
		}
		if goneSA == "" {
			return nil
		}
		if _, err := w.Core.ServiceAccounts(multikueue.KueueNamespace).Get(ctx, goneSA, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the worker's ServiceAccount %s is still there (%v)", goneSA, err)
		}
		if _, err := w.RBAC.ClusterRoles().Get(ctx, goneSA+"-role", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the worker's ClusterRole %s-role is still there (%v)", goneSA, err)
		}
		return nil
	}
}

// serviceAccountOn checks whether the worker cluster has the ServiceAccount multikueue-sa.
func serviceAccountOn(t *testing.T, cluster string, want bool) resource.TestCheckFunc {
	return func(*terraform.State) error {
		sa, err := clusterClients(t, cluster).Core.ServiceAccounts(multikueue.KueueNamespace).Get(context.Background(), "multikueue-sa", metav1.GetOptions{})
		switch {
		case want && err != nil:
			return fmt.Errorf("%s has no ServiceAccount multikueue-sa: %w", cluster, err)
		case !want && !apierrors.IsNotFound(err):
			return fmt.Errorf("%s still has ServiceAccount multikueue-sa (%v)", cluster, err)
		}
		if want {
			t.Logf("%s: ServiceAccount multikueue-sa, users %q", cluster, sa.Annotations["dwsfallback/multikueue-users"])
		}
		return nil
	}
}

// workerPlane is the control plane of the emulated cluster name.
func workerPlane(t *testing.T, s *localstack.Stack, name string) *localstack.Stack {
	t.Helper()
	plane := s.ClusterStack(clusterscope.Ref{Project: testProject, Location: testLocation, Name: name}.String())
	if plane == nil || plane == s {
		t.Fatalf("%s has no control plane of its own", name)
	}
	return plane
}
