package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const queueAddr = "dwsfallback_kueue_queue.test"

// queueConfig is the tutorial's queue manifest (testdata/tutorial-queue.yaml) as this resource, with every name prefixed so tests sharing one
// control plane do not meet. tpu is the on-demand TPU quota.
func queueConfig(cluster, p string, tpu int) string {
	return fmt.Sprintf(`
resource "dwsfallback_kueue_queue" "test" {
  cluster = %[1]q
  name    = "%[2]s-cluster-queue"
  flavors = [
    { name = "%[2]s-default-cpu", node_labels = { "cloud.google.com/gke-nodepool" = "default-pool" },
      quotas = { cpu = "10", memory = "20Gi", "google.com/tpu" = "0" } },
    { name = "%[2]s-on-demand", node_labels = { "cloud.google.com/gke-nodepool" = "on-demand-pool" },
      quotas = { cpu = "40", memory = "75Gi", "google.com/tpu" = "%[3]d" } },
    { name = "%[2]s-dws", node_labels = { "cloud.google.com/gke-nodepool" = "dws-pool" },
      quotas = { cpu = "1000000000", memory = "1000000000Gi", "google.com/tpu" = "1000000000" },
      provisioning = { admission_check = "%[2]s-dws-prov", config = "%[2]s-dws-config" } },
  ]
  local_queues = [{ namespace = "default", name = "%[2]s-user-queue" }]
}
`, cluster, p, tpu)
}

func checkQueueDestroyed(cp *clusterPlane, p string) func(*terraform.State) error {
	return func(*terraform.State) error {
		api := cp.clients().Kueue.KueueV1beta2()
		ctx := context.Background()
		for kind, get := range map[string]func() error{
			"ClusterQueue": func() error {
				_, err := api.ClusterQueues().Get(ctx, p+"-cluster-queue", metav1.GetOptions{})
				return err
			},
			"ResourceFlavor": func() error { _, err := api.ResourceFlavors().Get(ctx, p+"-dws", metav1.GetOptions{}); return err },
			"AdmissionCheck": func() error { _, err := api.AdmissionChecks().Get(ctx, p+"-dws-prov", metav1.GetOptions{}); return err },
			"ProvisioningRequestConfig": func() error {
				_, err := api.ProvisioningRequestConfigs().Get(ctx, p+"-dws-config", metav1.GetOptions{})
				return err
			},
			"LocalQueue": func() error {
				_, err := api.LocalQueues("default").Get(ctx, p+"-user-queue", metav1.GetOptions{})
				return err
			},
		} {
			if err := get(); !apierrors.IsNotFound(err) {
				return fmt.Errorf("%s of %s still exists after destroy (%v)", kind, p, err)
			}
		}
		return nil
	}
}

func TestAccKueueQueue_basic(t *testing.T) {
	stackTest(t, 1)
	ref := createTestCluster(t, "acc-kueue")
	cp := on(t, ref)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkQueueDestroyed(cp, "basic"),
		Steps: []resource.TestStep{
			{
				Config: queueConfig("acc-kueue", "basic", 16),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(queueAddr, tfjsonpath.New("id"), knownvalue.StringExact(ref.String()+"/clusterQueues/basic-cluster-queue")),
					statecheck.ExpectKnownValue(queueAddr, tfjsonpath.New("active"), knownvalue.Bool(true)),
					// What the user wrote stays, although the API server answers 1G.
					statecheck.ExpectKnownValue(queueAddr, tfjsonpath.New("flavors").AtSliceIndex(2).AtMapKey("quotas").AtMapKey("cpu"), knownvalue.StringExact("1000000000")),
					statecheck.ExpectKnownValue(queueAddr, tfjsonpath.New("flavors").AtSliceIndex(2).AtMapKey("provisioning").AtMapKey("class"), knownvalue.StringExact("queued-provisioning.gke.io")),
				},
			},
			{
				ResourceName:            queueAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts", "force_conflicts", "active_message", "pending_workloads", "admitted_workloads"},
			},
			{
				Config: queueConfig("acc-kueue", "basic", 32),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(queueAddr, plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					cq, err := cp.clients().Kueue.KueueV1beta2().ClusterQueues().Get(context.Background(), "basic-cluster-queue", metav1.GetOptions{})
					if err != nil {
						return err
					}
					got := cq.Spec.ResourceGroups[0].Flavors[1].Resources[2]
					if got.Name != "google.com/tpu" || got.NominalQuota.Value() != 32 {
						return fmt.Errorf("on-demand TPU quota = %s %s, want google.com/tpu 32", got.Name, got.NominalQuota.String())
					}
					return nil
				},
			},
		},
	})
}

// TestAccKueueQueue_drift changes or deletes each kind of object out of band; each shows in the plan and the apply
// repairs it (the post-apply plan is empty).
func TestAccKueueQueue_drift(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-kdrift"))
	cfg := queueConfig("acc-kdrift", "drift", 16)
	ctx := context.Background()
	api := func() kueueAPI { return cp.clients().Kueue.KueueV1beta2() }
	update := func(action plancheck.ResourceActionType, change func() error) resource.TestStep {
		return resource.TestStep{
			PreConfig: func() {
				if err := change(); err != nil {
					t.Fatal(err)
				}
			},
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(queueAddr, action),
			}},
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkQueueDestroyed(cp, "drift"),
		Steps: []resource.TestStep{
			{Config: cfg},
			update(plancheck.ResourceActionUpdate, func() error { // a quota edited
				cq, err := api().ClusterQueues().Get(ctx, "drift-cluster-queue", metav1.GetOptions{})
				if err != nil {
					return err
				}
				cq.Spec.ResourceGroups[0].Flavors[1].Resources[2].NominalQuota.Set(8)
				_, err = api().ClusterQueues().Update(ctx, cq, metav1.UpdateOptions{FieldManager: "kubectl-edit"})
				return err
			}),
			update(plancheck.ResourceActionUpdate, func() error { // a flavor's labels changed
				rf, err := api().ResourceFlavors().Get(ctx, "drift-on-demand", metav1.GetOptions{})
				if err != nil {
					return err
				}
				rf.Spec.NodeLabels = map[string]string{"cloud.google.com/gke-nodepool": "other-pool"}
				_, err = api().ResourceFlavors().Update(ctx, rf, metav1.UpdateOptions{FieldManager: "kubectl-edit"})
				return err
			}),
			update(plancheck.ResourceActionUpdate, func() error { // the check removed from the ClusterQueue
				cq, err := api().ClusterQueues().Get(ctx, "drift-cluster-queue", metav1.GetOptions{})
				if err != nil {
					return err
				}
				cq.Spec.AdmissionChecksStrategy = nil
				_, err = api().ClusterQueues().Update(ctx, cq, metav1.UpdateOptions{FieldManager: "kubectl-edit"})
				return err
			}),
			update(plancheck.ResourceActionUpdate, func() error { // the ProvisioningRequestConfig deleted
				return api().ProvisioningRequestConfigs().Delete(ctx, "drift-dws-config", metav1.DeleteOptions{})
			}),
			update(plancheck.ResourceActionUpdate, func() error { // the LocalQueue deleted
				return api().LocalQueues("default").Delete(ctx, "drift-user-queue", metav1.DeleteOptions{})
			}),
			// The ClusterQueue itself deleted: its flavors and check are still there, so the resource stays and an
			// update makes the ClusterQueue again (a destroy would remove the rest).
			update(plancheck.ResourceActionUpdate, func() error {
				return api().ClusterQueues().Delete(ctx, "drift-cluster-queue", metav1.DeleteOptions{})
			}),
			{
				// The AdmissionCheck deleted while the ClusterQueue uses it: Kueue keeps it terminating. The plan (which
				// once crashed here) shows it missing, and the apply takes it and its flavor out of the ClusterQueue until
				// it is gone, then makes both again.
				PreConfig: func() {
					if err := api().AdmissionChecks().Delete(ctx, "drift-dws-prov", metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(queueAddr, plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					ac, err := api().AdmissionChecks().Get(ctx, "drift-dws-prov", metav1.GetOptions{})
					if err != nil || ac.DeletionTimestamp != nil {
						return fmt.Errorf("AdmissionCheck after the apply: %v (deleting since %v), want a new one", err, ac.GetDeletionTimestamp())
					}
					cq, err := api().ClusterQueues().Get(ctx, "drift-cluster-queue", metav1.GetOptions{})
					if err != nil || cq.Spec.AdmissionChecksStrategy == nil || len(cq.Spec.AdmissionChecksStrategy.AdmissionChecks) != 1 ||
						len(cq.Spec.ResourceGroups[0].Flavors) != 3 {
						return fmt.Errorf("ClusterQueue after the apply: %v %+v, want its three flavors and the check back", err, cq.Spec)
					}
					return nil
				},
			},
			{
				// The same for a flavor.
				PreConfig: func() {
					if err := api().ResourceFlavors().Delete(ctx, "drift-on-demand", metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(queueAddr, plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					rf, err := api().ResourceFlavors().Get(ctx, "drift-on-demand", metav1.GetOptions{})
					if err != nil || rf.DeletionTimestamp != nil {
						return fmt.Errorf("ResourceFlavor after the apply: %v, want a new one", err)
					}
					return nil
				},
			},
			{Config: cfg, PlanOnly: true},
		},
	})
}

// TestAccKueueQueue_kubernetesBlock reaches the cluster through the provider's kubernetes block instead of GKE, and
// imports by the bare ClusterQueue name.
func TestAccKueueQueue_kubernetesBlock(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-kblock"))
	s := cp.stack()
	cfg := kubeBlockProvider(s, s.AdminToken) + `
resource "dwsfallback_kueue_queue" "test" {
  name    = "kblock-cluster-queue"
  flavors = [{ name = "kblock-cpu", quotas = { cpu = "4", memory = "8Gi" } }]
  local_queues = [{ namespace = "default", name = "kblock-user-queue" }]
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(queueAddr, tfjsonpath.New("id"), knownvalue.StringExact("kblock-cluster-queue")),
					statecheck.ExpectKnownValue(queueAddr, tfjsonpath.New("active"), knownvalue.Bool(true)),
				},
			},
			{
				Config:                  cfg,
				ResourceName:            queueAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts", "active_message", "pending_workloads", "admitted_workloads"},
			},
		},
	})
}

// TestAccKueueQueue_kubernetesBlockNotKnownYet: the provider's kubernetes block fed by another resource's output (as
// a cluster's endpoint made in the same apply is) plans and applies; it once failed the plan as an incomplete block.
func TestAccKueueQueue_kubernetesBlockNotKnownYet(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-kblock-unknown"))
	s := cp.stack()
	cfg := fmt.Sprintf(`
resource "terraform_data" "endpoint" {
  input = %q
}

provider "dwsfallback" {
  kubernetes {
    host                   = terraform_data.endpoint.output
    token                  = %q
    cluster_ca_certificate = %q
  }
}
`, s.Host, s.AdminToken, string(s.CAPEM)) + faultQueue("unknownhost", "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkQueueGone(cp, "unknownhost-cluster-queue"),
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(queueAddr, tfjsonpath.New("active"), knownvalue.Bool(true)),
			},
		}},
	})
}

// checkQueueGone requires the ClusterQueue to be gone (not found, not merely unreadable).
func checkQueueGone(cp *clusterPlane, name string) func(*terraform.State) error {
	return func(*terraform.State) error {
		_, err := cp.clients().Kueue.KueueV1beta2().ClusterQueues().Get(context.Background(), name, metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("ClusterQueue %s after destroy: %v, want not found", name, err)
		}
		return nil
	}
}

// TestAccKueueQueue_driftOnDefaults: each setting a platform module leaves to its default, changed by hand with
// kubectl, plans the default back as an update, and the apply after it leaves an empty plan. A field set by hand that
// the configuration leaves out (a cohort, a flavor's extra node label, a provisioning parameter) belongs to kubectl's
// field manager, which server-side apply leaves alone: the apply removes it with a merge patch, or the plan would never
// empty.
func TestAccKueueQueue_driftOnDefaults(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-qdrift"))
	cfg := queueConfig("acc-qdrift", "qdrift", 16)
	patch := func(kind, name, body string) func() {
		return func() { cp.kubectl("", "patch", kind, name, "--type=merge", "-p", body) }
	}
	cq := "qdrift-cluster-queue"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkQueueDestroyed(cp, "qdrift"),
		Steps: []resource.TestStep{
			{Config: cfg},
			driftStep(cfg, queueAddr, "namespace_selector", knownvalue.MapExact(map[string]knownvalue.Check{}),
				patch("clusterqueue", cq, `{"spec":{"namespaceSelector":{"matchLabels":{"team":"ml"}}}}`)),
			driftStep(cfg, queueAddr, "queueing_strategy", knownvalue.StringExact("BestEffortFIFO"),
				patch("clusterqueue", cq, `{"spec":{"queueingStrategy":"StrictFIFO"}}`)),
			driftStep(cfg, queueAddr, "preemption", knownvalue.ObjectPartial(map[string]knownvalue.Check{
				"within_cluster_queue": knownvalue.StringExact("Never"),
			}), patch("clusterqueue", cq, `{"spec":{"preemption":{"withinClusterQueue":"LowerPriority"}}}`)),
			driftStep(cfg, queueAddr, "flavor_fungibility", knownvalue.ObjectExact(map[string]knownvalue.Check{
				"when_can_borrow": knownvalue.StringExact("MayStopSearch"), "when_can_preempt": knownvalue.StringExact("TryNextFlavor"),
			}), patch("clusterqueue", cq, `{"spec":{"flavorFungibility":{"whenCanBorrow":"TryNextFlavor"}}}`)),
			driftStep(cfg, queueAddr, "cohort", knownvalue.Null(), patch("clusterqueue", cq, `{"spec":{"cohortName":"someone-elses"}}`)),
			driftStep(cfg, queueAddr, "flavors", knownvalue.ListPartial(map[int]knownvalue.Check{
				2: knownvalue.ObjectPartial(map[string]knownvalue.Check{"provisioning": knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"retry": knownvalue.ObjectPartial(map[string]knownvalue.Check{"backoff_limit_count": knownvalue.Int64Exact(3)}),
				})}),
			}), patch("provisioningrequestconfig", "qdrift-dws-config", `{"spec":{"retryStrategy":{"backoffLimitCount":7}}}`)),
			driftStep(cfg, queueAddr, "flavors", knownvalue.ListPartial(map[int]knownvalue.Check{
				1: knownvalue.ObjectPartial(map[string]knownvalue.Check{"node_labels": knownvalue.MapExact(map[string]knownvalue.Check{
					"cloud.google.com/gke-nodepool": knownvalue.StringExact("on-demand-pool"),
				})}),
			}), patch("resourceflavor", "qdrift-on-demand", `{"spec":{"nodeLabels":{"cloud.google.com/gke-nodepool":"other-pool","team":"ml"}}}`)),
			driftStep(cfg, queueAddr, "flavors", knownvalue.ListPartial(map[int]knownvalue.Check{
				2: knownvalue.ObjectPartial(map[string]knownvalue.Check{"provisioning": knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"parameters": knownvalue.Null(),
				})}),
			}), patch("provisioningrequestconfig", "qdrift-dws-config", `{"spec":{"parameters":{"ValidUntilSeconds":"600"}}}`)),
			{Config: cfg, PlanOnly: true},
		},
	})
}
