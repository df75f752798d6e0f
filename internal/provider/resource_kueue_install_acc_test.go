//go:build !nohelm

package provider

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"helm.sh/helm/v3/pkg/chart"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/helm"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kueueuse"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/localstack"
)

// TestAccKueueInstall_chart installs the Kueue chart that ships in the sigs.k8s.io/kueue module into a control
// plane of its own (its webhooks would shadow the running Kueue's), then upgrades, drifts, imports and uninstalls it;
// then imports the tutorial's install made by hand, with a generated configuration.
// Nothing runs the Deployment there (no nodes), so readiness is not waited for here.
func TestAccKueueInstall_chart(t *testing.T) {
	stackTest(t, 1)
	s := startStack(t, true)
	chartDir := filepath.Join(requireModuleDir(t, localstack.KueueModule), "charts/kueue")
	admin := adminClients(t, s)
	provider := kubeBlockProvider(s, s.AdminToken)
	cfg := func(gates string) string {
		return provider + fmt.Sprintf(`
resource "dwsfallback_kueue_install" "test" {
  chart         = %q
  feature_gates = %s
  wait          = false
}
`, chartDir, gates)
	}
	tutorial := `{ ElasticJobsViaWorkloadSlices = true }`
	withMore := `{ ElasticJobsViaWorkloadSlices = true, TopologyAwareScheduling = false }`
	args := func(want string) func(*terraform.State) error {
		return func(*terraform.State) error {
			apps, err := appsv1client.NewForConfig(admin.Config)
			if err != nil {
				return err
			}
			d, err := apps.Deployments("kueue-system").Get(context.Background(), "kueue-controller-manager", metav1.GetOptions{})
			if err != nil {
				return err
			}
			got := strings.Join(d.Spec.Template.Spec.Containers[0].Args, " ")
			if !strings.Contains(got, want) {
				return fmt.Errorf("manager args %q lack %q", got, want)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy: func(st *terraform.State) error {
			if err := checkKueueReleaseGone(admin)(st); err != nil {
				return err
			}
			// The install made kueue-system, so its destroy removes it.
			if _, err := admin.Core.Namespaces().Get(context.Background(), "kueue-system", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("namespace kueue-system after destroy: %w, want not found", err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{Config: cfg(tutorial), Check: args("--feature-gates=ElasticJobsViaWorkloadSlices=true")},
			{
				Config: cfg(withMore),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("dwsfallback_kueue_install.test", plancheck.ResourceActionUpdate),
				}},
				Check: args("--feature-gates=ElasticJobsViaWorkloadSlices=true,TopologyAwareScheduling=false"),
			},
			{
				// Someone upgrades the release by hand with other gates: drift, repaired by apply.
				PreConfig: func() {
					handUpgrade(t, admin, chartDir, map[string]any{"controllerManager": map[string]any{"featureGates": []any{}}})
				},
				Config: cfg(withMore),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("dwsfallback_kueue_install.test", plancheck.ResourceActionUpdate),
				}},
				Check: args("TopologyAwareScheduling=false"),
			},
			{
				// The same gates, and a value the configuration leaves out (values unset) set by hand: drift too (it
				// planned nothing before values were read back); the apply upgrades without it.
				PreConfig: func() {
					handUpgrade(t, admin, chartDir, map[string]any{"controllerManager": map[string]any{"replicas": 2, "featureGates": []any{
						map[string]any{"name": "ElasticJobsViaWorkloadSlices", "enabled": true},
						map[string]any{"name": "TopologyAwareScheduling", "enabled": false},
					}}})
				},
				Config: cfg(withMore),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("dwsfallback_kueue_install.test", plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue("dwsfallback_kueue_install.test", tfjsonpath.New("values"), knownvalue.Null()),
				}},
				Check: func(*terraform.State) error {
					h, err := helm.New(admin.Config, "kueue-system", func(string) {})
					if err != nil {
						return err
					}
					rel, err := h.Get("kueue")
					if err != nil {
						return err
					}
					if cm, _ := rel.Config["controllerManager"].(map[string]any); cm["replicas"] != nil {
						return fmt.Errorf("release values after apply %v, want no replicas", rel.Config)
					}
					return nil
				},
			},
			{
				// Kueue's manager scaled and its configuration edited with kubectl, beside Helm: the release's
				// values are unchanged, so only the objects show it; the apply's `helm upgrade` writes them back.
				PreConfig: func() { patchManagerByHand(t, admin) },
				Config:    cfg(withMore),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("dwsfallback_kueue_install.test", plancheck.ResourceActionUpdate),
					refreshedDrift{"dwsfallback_kueue_install.test", []string{
						"ConfigMap/kueue-system/kueue-manager-config .data.controller_manager_config.yaml",
						"Deployment/kueue-system/kueue-controller-manager .spec.replicas",
					}},
				}},
				Check: func(*terraform.State) error { return managerAsWritten(admin) },
			},
			{
				// The release uninstalled by hand, and its namespace deleted: planned again. The new install makes the
				// namespace, so its destroy removes it (CheckDestroy).
				PreConfig: func() {
					h, err := helm.New(admin.Config, "kueue-system", func(string) {})
					if err != nil {
						t.Fatal(err)
					}
					if err := h.Uninstall("kueue", time.Minute); err != nil {
						t.Fatal(err)
					}
					ns := admin.Core.Namespaces()
					if err := kube.DeleteAndWait(context.Background(), func(ctx context.Context) error { return ns.Delete(ctx, "kueue-system", metav1.DeleteOptions{}) },
						func(ctx context.Context) error {
							_, err := ns.Get(ctx, "kueue-system", metav1.GetOptions{})
							return err
						}, time.Minute); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg(withMore),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("dwsfallback_kueue_install.test", plancheck.ResourceActionCreate),
				}},
			},
			{
				Config:                  cfg(withMore),
				ResourceName:            "dwsfallback_kueue_install.test",
				ImportState:             true,
				ImportStateId:           "kueue-system/kueue",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"chart", "wait", "timeouts", "revision"},
			},
		},
	})

	// Import as a contract: the tutorial's `helm install` made by hand, adopted with an `import {}` block and a
	// generated configuration, which validates and plans the import alone; after the apply the plan is empty.
	h, ch := helmByHand(t, admin, chartDir)
	tutorialValues := map[string]any{"controllerManager": map[string]any{"featureGates": []any{
		map[string]any{"name": "ElasticJobsViaWorkloadSlices", "enabled": true}}}}
	if _, err := h.Install(context.Background(), "kueue", ch, tutorialValues); err != nil {
		t.Fatal(err)
	}
	listKueueInstalls(t, admin, s, ch.Metadata.Version)
	tf := newTFRunInProcess(t, provider+`
import {
  to = dwsfallback_kueue_install.kueue
  id = "kueue-system/kueue"
}
`)
	tf.generate()
	tf.mustRun("validate")
	if out, code := tf.planExit(); code != 2 || !strings.Contains(out, "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.") {
		t.Fatalf("the plan after generating the configuration should show the import only (exit %d):\n%s", code, out)
	}
	tf.mustRun("apply", "-auto-approve", "-input=false")
	tf.expectEmptyPlan()
	tf.mustRun("destroy", "-auto-approve", "-input=false")
}

// TestAccKueueInstall_readiness runs the readiness logic against the main stack, where Kueue runs (out of cluster,
// so there is no Deployment: the webhook probe decides), and against a stack without Kueue, where it must time out
// with the reason.
func TestAccKueueInstall_readiness(t *testing.T) {
	stackTest(t, 2)
	cp := on(t, createTestCluster(t, "acc-kueue-ready"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := kueueuse.WaitReady(ctx, cp.clients(), "kueue-system", "kueue"); err != nil {
		t.Errorf("Kueue runs, but readiness says: %v", err)
	}
	s := startStack(t, true)
	bare := adminClients(t, s)
	short, cancel2 := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel2()
	if err := kueueuse.WaitReady(short, bare, "kueue-system", "kueue"); err == nil || !strings.Contains(err.Error(), "Kueue is not ready") {
		t.Errorf("no Kueue at all, readiness says %v; want a timeout that says why", err)
	}
}

func requireModuleDir(t *testing.T, module string) string {
	t.Helper()
	out, err := localstack.ModuleDir(".", module)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// helmByHand is Helm as someone at a terminal uses it on kueue-system, with the chart in chartDir.
func helmByHand(t *testing.T, admin *kube.Clients, chartDir string) (*helm.Client, *chart.Chart) {
	t.Helper()
	h, err := helm.New(admin.Config, "kueue-system", func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := h.LoadChart(chartDir, "")
	if err != nil {
		t.Fatal(err)
	}
	return h, ch
}

// handUpgrade is `helm upgrade kueue CHART --namespace kueue-system` by hand, with values.
func handUpgrade(t *testing.T, admin *kube.Clients, chartDir string, values map[string]any) {
	t.Helper()
	h, ch := helmByHand(t, admin, chartDir)
	if _, err := h.Upgrade(context.Background(), "kueue", ch, values); err != nil {
		t.Fatal(err)
	}
}

var managerGVR, configGVR = k8sschema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
	k8sschema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// patchManagerByHand is `kubectl scale` of Kueue's manager and `kubectl edit` of its configuration, each written by
// a field manager of its own; the refresh must name both, as the plan's prior state shows.
func patchManagerByHand(t *testing.T, admin *kube.Clients) {
	t.Helper()
	ctx := context.Background()
	patch := func(gvr k8sschema.GroupVersionResource, name, body, manager string) {
		if _, err := admin.Dynamic.Resource(gvr).Namespace("kueue-system").Patch(ctx, name, k8stypes.MergePatchType, []byte(body),
			metav1.PatchOptions{FieldManager: manager}); err != nil {
			t.Fatal(err)
		}
	}
	patch(managerGVR, "kueue-controller-manager", `{"spec":{"replicas":3}}`, "kubectl-scale")
	patch(configGVR, "kueue-manager-config", `{"data":{"controller_manager_config.yaml":"by: hand\n"}}`, "kubectl-edit")
}

// managerAsWritten checks that the manager and its configuration are the chart's again.
func managerAsWritten(admin *kube.Clients) error {
	ctx := context.Background()
	d, err := admin.Dynamic.Resource(managerGVR).Namespace("kueue-system").Get(ctx, "kueue-controller-manager", metav1.GetOptions{})
	if err != nil {
		return err
	}
	if n, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas"); n == 3 {
		return fmt.Errorf("manager replicas after apply: %d, want the chart's", n)
	}
	c, err := admin.Dynamic.Resource(configGVR).Namespace("kueue-system").Get(ctx, "kueue-manager-config", metav1.GetOptions{})
	if err != nil {
		return err
	}
	if v, _, _ := unstructured.NestedString(c.Object, "data", "controller_manager_config.yaml"); v == "by: hand\n" || !strings.Contains(v, "apiVersion") {
		return fmt.Errorf("manager configuration after apply: %q, want the chart's", v)
	}
	return nil
}

// refreshedDrift checks the `drift` the refresh before the plan read, in the plan's prior state.
type refreshedDrift struct {
	address string
	want    []string
}

func (c refreshedDrift) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	if req.Plan.PriorState == nil || req.Plan.PriorState.Values == nil {
		resp.Error = fmt.Errorf("the plan has no prior state")
		return
	}
	for _, r := range req.Plan.PriorState.Values.RootModule.Resources {
		if r.Address != c.address {
			continue
		}
		var got []string
		list, _ := r.AttributeValues["drift"].([]any)
		for _, e := range list {
			s, _ := e.(string)
			got = append(got, s)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			resp.Error = fmt.Errorf("%s drift after refresh (-want +got):\n%s", c.address, diff)
		}
		return
	}
	resp.Error = fmt.Errorf("%s is not in the prior state", c.address)
}

// listKueueInstalls lists the tutorial's install made by hand through the protocol server, as terraform query does,
// beside a release of another chart, which is not Kueue's and is left out.
func listKueueInstalls(t *testing.T, admin *kube.Clients, s *localstack.Stack, version string) {
	t.Helper()
	other, err := helm.New(admin.Config, "default", func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Install(context.Background(), "not-kueue", &chart.Chart{
		Metadata:  &chart.Metadata{APIVersion: "v2", Name: "not-kueue", Version: "0.1.0"},
		Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: not-kueue\n")}},
	}, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Uninstall("not-kueue", time.Minute) })
	lc := newListClientWith(t, kubeBlock(s))
	kueue := listed{
		DisplayName: "kueue-system/kueue (Kueue " + version + ", deployed)",
		Identity:    map[string]string{"namespace": "kueue-system", "release_name": "kueue"},
		State:       map[string]string{"id": "kueue-system/kueue", "namespace": "kueue-system", "release_name": "kueue"},
	}
	bare := kueue
	bare.State = nil
	attrs := []string{"id", "namespace", "release_name"}
	for _, tc := range []struct {
		name    string
		config  map[string]any
		include bool
		want    []listed
	}{
		{"every namespace", map[string]any{}, false, []listed{bare}},
		{"with the resource", map[string]any{}, true, []listed{kueue}},
		{"its namespace", map[string]any{"namespace": "kueue-system"}, false, []listed{bare}},
		{"another namespace", map[string]any{"namespace": "default"}, false, nil},
	} {
		t.Run("list "+tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, lc.list(t, "dwsfallback_kueue_install", tc.config, tc.include, 0, attrs)); diff != "" {
				t.Errorf("list (-want +got):\n%s", diff)
			}
		})
	}
}
