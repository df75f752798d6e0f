package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

// Kueue's ResourceFlavors, AdmissionChecks and ProvisioningRequestConfigs are cluster-scoped and meant to be shared:
// teams' ClusterQueues in one cohort name the same flavors and the same DWS check, from one Terraform state or from
// several. A queue resource therefore declares them, and the live ClusterQueues say who uses them: nothing that
// another ClusterQueue still names is deleted, and a second declaration with another spec is refused, naming both.

// users maps "Kind/name" of a flavor, check or config to the other ClusterQueues (than self) that use it.
type users map[string][]string

func (u users) of(kind, name string) []string { return u[kind+"/"+name] }

// findUsers reads which other ClusterQueues use which flavors, checks and configs. ClusterQueues being deleted
// still count: Kueue keeps their objects in use until they are gone.
func findUsers(ctx context.Context, c *kube.Clients, self string) (users, error) {
	api := c.Kueue.KueueV1beta2()
	var cqs *kueue.ClusterQueueList
	err := kube.Retry(ctx, func() (err error) { cqs, err = api.ClusterQueues().List(ctx, metav1.ListOptions{}); return err })
	if err != nil {
		return nil, kubeError(c, "ClusterQueue", "*", err)
	}
	u := users{}
	add := func(key, cq string) {
		if !slices.Contains(u[key], cq) {
			u[key] = append(u[key], cq)
		}
	}
	checkNames := map[string]bool{}
	for _, cq := range cqs.Items {
		if cq.Name == self {
			continue
		}
		for _, g := range cq.Spec.ResourceGroups {
			for _, f := range g.Flavors {
				add("ResourceFlavor/"+string(f.Name), cq.Name)
			}
		}
		if s := cq.Spec.AdmissionChecksStrategy; s != nil {
			for _, r := range s.AdmissionChecks {
				add("AdmissionCheck/"+string(r.Name), cq.Name)
				checkNames[string(r.Name)] = true
			}
		}
	}
	if len(checkNames) == 0 {
		return u, nil
	}
	var acs *kueue.AdmissionCheckList
	err = kube.Retry(ctx, func() (err error) { acs, err = api.AdmissionChecks().List(ctx, metav1.ListOptions{}); return err })
	if err != nil {
		return nil, kubeError(c, "AdmissionCheck", "*", err)
	}
	for _, ac := range acs.Items {
		if p := ac.Spec.Parameters; checkNames[ac.Name] && p != nil && p.Kind == "ProvisioningRequestConfig" {
			for _, cq := range u.of("AdmissionCheck", ac.Name) {
				add("ProvisioningRequestConfig/"+p.Name, cq)
			}
		}
	}
	return u, nil
}

// withoutShared drops from o the objects that other ClusterQueues use, and says which were kept and why.
func withoutShared(o queueObjectNames, u users) (queueObjectNames, []string) {
	var kept []string
	keep := func(kind string, names []string) []string {
		var out []string
		for _, n := range names {
			if others := u.of(kind, n); len(others) > 0 {
				kept = append(kept, fmt.Sprintf("%s %s (used by ClusterQueue %s)", kind, n, strings.Join(others, ", ")))
				continue
			}
			out = append(out, n)
		}
		return out
	}
	o.Flavors = keep("ResourceFlavor", o.Flavors)
	o.Checks = keep("AdmissionCheck", o.Checks)
	o.Configs = keep("ProvisioningRequestConfig", o.Configs)
	return o, kept
}

// refuseRedeclared fails when a flavor, check or config of m already exists with another spec and another
// ClusterQueue uses it: applying over it would silently change that queue too.
func refuseRedeclared(ctx context.Context, c *kube.Clients, m *kueueQueueModel, u users) error {
	api := c.Kueue.KueueV1beta2()
	self := m.Name.ValueString()
	clash := func(kind, name, theirs, ours string) error {
		return fmt.Errorf("%s %s is declared twice with different specs: ClusterQueue %s uses it with %s, and this queue (ClusterQueue %s) "+
			"declares %s. Shared objects must be declared alike everywhere: give this queue's its own name, or make both declarations equal "+
			"(if the live spec was changed by hand, apply the other queue's configuration first)",
			kind, name, strings.Join(u.of(kind, name), ", "), theirs, self, ours)
	}
	for _, f := range m.Flavors {
		name := f.Name.ValueString()
		if len(u.of("ResourceFlavor", name)) == 0 {
			continue
		}
		live, err := api.ResourceFlavors().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			continue // gone or unreadable: the apply itself reports it
		}
		if want := stringMap(f.NodeLabels); !maps.Equal(live.Spec.NodeLabels, want) && (len(want) != 0 || len(live.Spec.NodeLabels) != 0) {
			return clash("ResourceFlavor", name, "node labels "+labelString(live.Spec.NodeLabels), "node labels "+labelString(want))
		}
	}
	for _, ch := range m.checks() {
		name := ch.p.AdmissionCheck.ValueString()
		if len(u.of("AdmissionCheck", name)) > 0 {
			if live, err := api.AdmissionChecks().Get(ctx, name, metav1.GetOptions{}); err == nil {
				if p := live.Spec.Parameters; live.Spec.ControllerName != ProvisioningRequestController || p == nil || p.Name != ch.p.Config.ValueString() {
					return clash("AdmissionCheck", name, describeCheck(live), "ProvisioningRequestConfig "+ch.p.Config.ValueString())
				}
			}
		}
		cfg := ch.p.Config.ValueString()
		if len(u.of("ProvisioningRequestConfig", cfg)) > 0 {
			if live, err := api.ProvisioningRequestConfigs().Get(ctx, cfg, metav1.GetOptions{}); err == nil {
				want := stringList(ch.p.ManagedResources)
				var have []string
				for _, r := range live.Spec.ManagedResources {
					have = append(have, string(r))
				}
				if live.Spec.ProvisioningClassName != ch.p.Class.ValueString() || strings.Join(have, ",") != strings.Join(want, ",") {
					return clash("ProvisioningRequestConfig", cfg, fmt.Sprintf("class %s for %v", live.Spec.ProvisioningClassName, have),
						fmt.Sprintf("class %s for %v", ch.p.Class.ValueString(), want))
				}
			}
		}
	}
	return nil
}

func describeCheck(ac *kueue.AdmissionCheck) string {
	if p := ac.Spec.Parameters; p != nil {
		return fmt.Sprintf("controller %s and %s %s", ac.Spec.ControllerName, p.Kind, p.Name)
	}
	return "controller " + ac.Spec.ControllerName
}

func labelString(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// quotaHolder is a Workload that holds quota in a ClusterQueue. leaving is set when it is on its way out (being
// deleted, or its job is): the garbage collector removes it within moments.
type quotaHolder struct {
	workload, owner string
	leaving         bool
}

// findQuotaHolders lists the Workloads that hold quota in the ClusterQueue, read from the Workloads themselves: the
// ClusterQueue's counters lag behind (a freshly admitted job shows as 0 for a moment).
func findQuotaHolders(ctx context.Context, c *kube.Clients, cq string) ([]quotaHolder, error) {
	var list *kueue.WorkloadList
	err := kube.Retry(ctx, func() (err error) {
		list, err = c.Kueue.KueueV1beta2().Workloads(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		return err
	})
	if err != nil {
		return nil, kubeError(c, "Workload", "*", err)
	}
	var out []quotaHolder
	for _, wl := range list.Items {
		if wl.Status.Admission == nil || string(wl.Status.Admission.ClusterQueue) != cq {
			continue
		}
		if ok, _ := kube.ConditionTrue(wl.Status.Conditions, kueue.WorkloadQuotaReserved); !ok {
			continue
		}
		if ok, _ := kube.ConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished); ok {
			continue
		}
		h := quotaHolder{workload: wl.Namespace + "/" + wl.Name, leaving: wl.DeletionTimestamp != nil}
		for _, ref := range wl.OwnerReferences {
			h.owner = fmt.Sprintf("%s %s/%s", ref.Kind, wl.Namespace, ref.Name)
			if ref.Kind == "RayJob" && !h.leaving {
				job, err := c.Ray.RayV1().RayJobs(wl.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
				h.leaving = apierrors.IsNotFound(err) || err == nil && (job.UID != ref.UID || job.DeletionTimestamp != nil)
			}
		}
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].workload < out[j].workload })
	return out, nil
}

// holdersError says which workloads hold a ClusterQueue, a handful by name and the rest as a count.
func holdersError(cq, host string, hs []quotaHolder) error {
	const shown = 5
	var names []string
	for i, h := range hs {
		if i == shown {
			names = append(names, fmt.Sprintf("and %d more", len(hs)-shown))
			break
		}
		if h.owner != "" {
			names = append(names, fmt.Sprintf("%s (of %s)", h.workload, h.owner))
		} else {
			names = append(names, h.workload)
		}
	}
	return fmt.Errorf("ClusterQueue %s on %s still holds quota for %d workload(s): %s. Delete those jobs "+
		"(or let them finish; kubectl get workloads -A shows them), then destroy again", cq, host, len(hs), strings.Join(names, ", "))
}

// waitQuotaReleased waits while the only holders are leaving, and returns those that are not (none: the ClusterQueue
// is free to go).
func waitQuotaReleased(ctx context.Context, c *kube.Clients, cq string) ([]quotaHolder, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		hs, err := findQuotaHolders(ctx, c, cq)
		if err != nil {
			return nil, err
		}
		var staying []quotaHolder
		for _, h := range hs {
			if !h.leaving {
				staying = append(staying, h)
			}
		}
		if len(staying) > 0 || len(hs) == 0 || time.Now().After(deadline) {
			if len(staying) == 0 {
				staying = hs
			}
			return staying, nil
		}
		select {
		case <-ctx.Done():
			return hs, nil
		case <-time.After(250 * time.Millisecond):
		}
	}
}
