package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
)

// TestAccKueueQueue_tutorialEquivalence: the tutorial's objects applied by kubectl import with an empty plan, and the
// objects this resource makes are equal, field by field, to those kubectl made.
func TestAccKueueQueue_tutorialEquivalence(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-kequiv"))
	cp.kubectl(testdata(t, "tutorial-queue.yaml", "PREFIX", "kubectl"), "apply", "-f", "-")
	ref := clusterscope.Ref{Project: testProject, Location: testLocation, Name: "acc-kequiv"}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:             queueConfig("acc-kequiv", "kubectl", 16),
				ResourceName:       queueAddr,
				ImportState:        true,
				ImportStateId:      ref.String() + "/clusterQueues/kubectl-cluster-queue",
				ImportStatePersist: true,
			},
			{Config: queueConfig("acc-kequiv", "kubectl", 16), PlanOnly: true},
		},
	})
	cp.kubectl(testdata(t, "tutorial-queue.yaml", "PREFIX", "kubectl2"), "apply", "-f", "-")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: queueConfig("acc-kequiv", "tfmade", 16),
			Check: func(*terraform.State) error {
				if diff := cmp.Diff(queueSpecs(cp, "kubectl2"), queueSpecs(cp, "tfmade")); diff != "" {
					return fmt.Errorf("objects made by kubectl and by the provider differ (-kubectl +provider):\n%s", diff)
				}
				return nil
			},
		}},
	})
}

// queueSpecs are the specs of a tutorial queue's objects, as JSON with the prefix taken out, by kind.
func queueSpecs(cp *clusterPlane, p string) map[string]string {
	api := cp.clients().Kueue.KueueV1beta2()
	ctx := context.Background()
	out := map[string]string{}
	add := func(kind string, spec any, err error) {
		if err != nil {
			cp.t.Fatalf("%s of %s: %v", kind, p, err)
		}
		b, _ := json.Marshal(spec)
		out[kind] = strings.ReplaceAll(string(b), p+"-", "")
	}
	cq, err := api.ClusterQueues().Get(ctx, p+"-cluster-queue", metav1.GetOptions{})
	add("ClusterQueue", cq.Spec, err)
	for _, f := range []string{"default-cpu", "on-demand", "dws"} {
		rf, err := api.ResourceFlavors().Get(ctx, p+"-"+f, metav1.GetOptions{})
		add("ResourceFlavor/"+f, rf.Spec, err)
	}
	ac, err := api.AdmissionChecks().Get(ctx, p+"-dws-prov", metav1.GetOptions{})
	add("AdmissionCheck", ac.Spec, err)
	prc, err := api.ProvisioningRequestConfigs().Get(ctx, p+"-dws-config", metav1.GetOptions{})
	add("ProvisioningRequestConfig", prc.Spec, err)
	lq, err := api.LocalQueues("default").Get(ctx, p+"-user-queue", metav1.GetOptions{})
	add("LocalQueue", lq.Spec, err)
	return out
}

// TestAccKueueQueue_fallback submits the tutorial's RayJob twice with kubectl onto a queue and pool pair made by the
// provider: job 1 is admitted on on-demand capacity, job 2 falls back to DWS, waits on the admission check, and is
// admitted once the simulated DWS provisions the flex-start pool.
func TestAccKueueQueue_fallback(t *testing.T) {
	stackTest(t, 1)
	ref := createRayCluster(t, "acc-fallback")
	cp := on(t, ref)
	cfg := pairConfig("acc-fallback", "on-demand-pool", "dws-pool", 4) + queueConfig("acc-fallback", "fb", 16)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: cfg,
			Check: func(*terraform.State) error {
				defer cp.kubectl("", "delete", "rayjob", "fb-rayjob-1", "fb-rayjob-2", "--ignore-not-found", "--wait=true")
				cp.kubectl(testdata(t, "tutorial-rayjob.yaml", "PREFIX", "fb", "JOB_ID", "1"), "apply", "-f", "-")
				wl1 := waitWorkload(cp, "fb-rayjob-1", func(w *kueue.Workload) bool { return isAdmitted(w) })
				if got := tpuFlavor(wl1); got != "fb-on-demand" {
					return fmt.Errorf("job 1 admitted on %q, want fb-on-demand", got)
				}
				cp.kubectl(testdata(t, "tutorial-rayjob.yaml", "PREFIX", "fb", "JOB_ID", "2"), "apply", "-f", "-")
				wl2 := waitWorkload(cp, "fb-rayjob-2", func(w *kueue.Workload) bool { return w.Status.Admission != nil })
				if got := tpuFlavor(wl2); got != "fb-dws" {
					return fmt.Errorf("job 2 reserved quota on %q, want fb-dws (the fallback)", got)
				}
				wl2 = waitWorkload(cp, "fb-rayjob-2", func(w *kueue.Workload) bool { return isAdmitted(w) })
				if len(wl2.Status.AdmissionChecks) != 1 || wl2.Status.AdmissionChecks[0].Name != "fb-dws-prov" || wl2.Status.AdmissionChecks[0].State != kueue.CheckStateReady {
					return fmt.Errorf("job 2 admission checks = %+v, want fb-dws-prov Ready", wl2.Status.AdmissionChecks)
				}
				if n, err := emu.NodeCount(ref.String(), "dws-pool"); err != nil || n != 4 {
					return fmt.Errorf("flex-start pool has %d nodes after provisioning (%w), want the 4 of one slice", n, err)
				}
				// The tutorial's own YAML, run by KubeRay, lands where the provider's jobs do.
				return wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
					_, err1 := placedOn(cp, "fb-rayjob-1", "worker", "on-demand-pool", 4)
					_, err2 := placedOn(cp, "fb-rayjob-2", "worker", "dws-pool", 4)
					_, err3 := placedOn(cp, "fb-rayjob-1", "head", "default-pool", 1)
					return err1 == nil && err2 == nil && err3 == nil, nil
				})
			},
		}},
	})
}

func isAdmitted(w *kueue.Workload) bool {
	for _, c := range w.Status.Conditions {
		if c.Type == kueue.WorkloadAdmitted && c.Status == metav1.ConditionTrue {
			return true
		}
	}
	return false
}

// tpuFlavor is the flavor Kueue assigned to the TPU worker pod set.
func tpuFlavor(w *kueue.Workload) string {
	if w.Status.Admission == nil {
		return ""
	}
	for _, ps := range w.Status.Admission.PodSetAssignments {
		if f, ok := ps.Flavors["google.com/tpu"]; ok && ps.Name == "tpu-group" {
			return string(f)
		}
	}
	return ""
}

// waitWorkload waits for the Workload of a RayJob in default to satisfy ok.
func waitWorkload(cp *clusterPlane, rayJob string, ok func(*kueue.Workload) bool) *kueue.Workload {
	cp.t.Helper()
	uid := strings.TrimSpace(cp.kubectl("", "get", "rayjob", rayJob, "-o", "jsonpath={.metadata.uid}"))
	api := cp.clients().Kueue.KueueV1beta2()
	deadline := time.Now().Add(60 * time.Second)
	var last *kueue.Workload
	for time.Now().Before(deadline) {
		list, err := api.Workloads("default").List(context.Background(), metav1.ListOptions{LabelSelector: "kueue.x-k8s.io/job-uid=" + uid})
		if err == nil && len(list.Items) > 0 {
			last = &list.Items[0]
			if ok(last) {
				return last
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	cp.t.Fatalf("workload of %s did not get there in 60s; last seen: %+v", rayJob, last)
	return nil
}

// TestAccKueueQueue_destroyWhileInUse: destroying a queue whose ClusterQueue still holds a workload fails quickly with
// the reason and the workload counts, not at the timeout; once the job is gone, destroy succeeds.
func TestAccKueueQueue_destroyWhileInUse(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-inuse"))
	cfg := queueConfig("acc-inuse", "inuse", 16)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             checkQueueDestroyed(cp, "inuse"),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: func(*terraform.State) error {
					cp.kubectl(testdata(t, "tutorial-rayjob.yaml", "PREFIX", "inuse", "JOB_ID", "1"), "apply", "-f", "-")
					waitWorkload(cp, "inuse-rayjob-1", isAdmitted)
					return nil
				},
			},
			{
				// Refused before anything is deleted, naming the workload and its job.
				Config:      cfg,
				Destroy:     true,
				ExpectError: patternRE(`Nothing was deleted\. ClusterQueue inuse-cluster-queue on \S+ still holds quota for 1 workload\(s\): default/rayjob-inuse-rayjob-1-\w+ \(of RayJob default/inuse-rayjob-1\)`),
			},
			{
				// Still all there: the LocalQueue is not half-deleted.
				Config:   cfg,
				PlanOnly: true,
				Check: func(*terraform.State) error {
					_, err := cp.clients().Kueue.KueueV1beta2().LocalQueues("default").Get(context.Background(), "inuse-user-queue", metav1.GetOptions{})
					return err
				},
			},
			{
				// The ClusterQueue is terminating now; with the job gone Kueue lets it go, and destroy finishes.
				PreConfig: func() { cp.kubectl("", "delete", "rayjob", "inuse-rayjob-1", "--wait=true") },
				Config:    cfg,
				Destroy:   true,
			},
		},
	})
}
