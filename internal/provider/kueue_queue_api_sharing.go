package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
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

// findUsers reads which other ClusterQueues use which flavors, checks and configs.
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
		// A ClusterQueue being deleted that nothing holds is gone in a moment: counting it would make queues
		// destroyed together each keep the shared objects for the other. One that workloads hold stays, and with it
		// Kueue's hold on its flavors and checks, so it still counts.
		if cq.Name == self {
			continue
		}
		if cq.DeletionTimestamp != nil {
			if hs, err := findQuotaHolders(ctx, c, cq.Name); err == nil && len(hs) == 0 {
				continue
			}
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
// ClusterQueue uses it: applying over it would silently change that queue too. A live spec that is still what this
// queue itself last applied (mine, from private state; nil on create) is no clash: every declarer of a shared object
// changes it in turn, and the first to apply must be let through (the others then find it as they declare it).
func refuseRedeclared(ctx context.Context, c *kube.Clients, m *kueueQueueModel, mine map[string]string, u users) error {
	api := c.Kueue.KueueV1beta2()
	self := m.Name.ValueString()
	check := func(kind, name, have, want string) error {
		if len(u.of(kind, name)) == 0 || have == want || mine[kind+"/"+name] == have {
			return nil
		}
		return fmt.Errorf("%s %s is declared twice with different specs: ClusterQueue %s uses it with %s, and this queue (ClusterQueue %s) "+
			"declares %s. Shared objects must be declared alike everywhere: give this queue's its own name, or make both declarations equal "+
			"(if the live spec was changed by hand, apply the other queue's configuration first)",
			kind, name, strings.Join(u.of(kind, name), ", "), have, self, want)
	}
	for _, f := range m.Flavors {
		name := f.Name.ValueString()
		if len(u.of("ResourceFlavor", name)) == 0 {
			continue
		}
		if live, err := api.ResourceFlavors().Get(ctx, name, metav1.GetOptions{}); err == nil { // gone or unreadable: the apply reports it
			if err := check("ResourceFlavor", name, "node labels "+labelString(live.Spec.NodeLabels), flavorWords(f)); err != nil {
				return err
			}
		}
	}
	for _, ch := range m.checks() {
		name, cfg := ch.p.AdmissionCheck.ValueString(), ch.p.Config.ValueString()
		if len(u.of("AdmissionCheck", name)) > 0 {
			if live, err := api.AdmissionChecks().Get(ctx, name, metav1.GetOptions{}); err == nil {
				if err := check("AdmissionCheck", name, describeCheck(live), wantCheck(ch.p)); err != nil {
					return err
				}
			}
		}
		if len(u.of("ProvisioningRequestConfig", cfg)) > 0 {
			if live, err := api.ProvisioningRequestConfigs().Get(ctx, cfg, metav1.GetOptions{}); err == nil {
				if err := check("ProvisioningRequestConfig", cfg, describeConfig(live), wantConfig(ch.p)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func flavorWords(f flavorModel) string { return "node labels " + labelString(stringMap(f.NodeLabels)) }

// privateSpecs records, per shared object ("Kind/name"), the spec this queue last applied, in refuseRedeclared's
// words. State cannot tell it: a refresh reads the live objects back into state, whoever wrote them.
const privateSpecs = "applied_specs"

// declaredSpecs is what m declares of its flavors, checks and configs.
func declaredSpecs(m *kueueQueueModel) map[string]string {
	out := map[string]string{}
	for _, f := range m.Flavors {
		out["ResourceFlavor/"+f.Name.ValueString()] = flavorWords(f)
	}
	for _, ch := range m.checks() {
		out["AdmissionCheck/"+ch.p.AdmissionCheck.ValueString()] = wantCheck(ch.p)
		out["ProvisioningRequestConfig/"+ch.p.Config.ValueString()] = wantConfig(ch.p)
	}
	return out
}

func recordSpecs(ctx context.Context, p privateState, m *kueueQueueModel, diags *diag.Diagnostics) {
	b, _ := json.Marshal(declaredSpecs(m))
	diags.Append(p.SetKey(ctx, privateSpecs, b)...)
}

// appliedSpecs reads what recordSpecs kept; nil when nothing was (a state from before the record existed).
func appliedSpecs(ctx context.Context, p privateState, diags *diag.Diagnostics) map[string]string {
	b, d := p.GetKey(ctx, privateSpecs)
	diags.Append(d...)
	if len(b) == 0 {
		return nil
	}
	var out map[string]string
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

// wantCheck and describeCheck put a declared and a live AdmissionCheck in the same words, to compare and to show.
func wantCheck(p *provisioningModel) string {
	return "controller " + ProvisioningRequestController + " and ProvisioningRequestConfig " + p.Config.ValueString()
}

// wantConfig and describeConfig do the same for ProvisioningRequestConfigs: class, managed resources, parameters
// and retry strategy, so that a second declaration differing in any of them is seen.
func wantConfig(p *provisioningModel) string {
	prc := expandProvisioningRequestConfig(p).Spec
	var managed []string
	for _, r := range prc.ManagedResources {
		managed = append(managed, string(r))
	}
	sort.Strings(managed) // a set to Kueue
	params := map[string]string{}
	for k, v := range prc.Parameters {
		params[k] = string(v)
	}
	retry := [3]int32{3, 60, 1800}
	if rs := prc.RetryStrategy; rs != nil {
		for i, v := range []*int32{rs.BackoffLimitCount, rs.BackoffBaseSeconds, rs.BackoffMaxSeconds} {
			if v != nil {
				retry[i] = *v
			}
		}
	}
	return configWords(ptrString(prc.ProvisioningClassName), managed, params, retry)
}

func describeConfig(prc *kueue.ProvisioningRequestConfig) string {
	var managed []string
	for _, r := range prc.Spec.ManagedResources {
		managed = append(managed, string(r))
	}
	sort.Strings(managed)
	params := map[string]string{}
	for k, v := range prc.Spec.Parameters {
		params[k] = string(v)
	}
	retry := [3]int32{3, 60, 1800}
	if rs := prc.Spec.RetryStrategy; rs != nil {
		for i, v := range []*int32{rs.BackoffLimitCount, rs.BackoffBaseSeconds, rs.BackoffMaxSeconds} {
			if v != nil {
				retry[i] = *v
			}
		}
	}
	return configWords(prc.Spec.ProvisioningClassName, managed, params, retry)
}

func configWords(class string, managed []string, params map[string]string, retry [3]int32) string {
	return fmt.Sprintf("class %s for %v, parameters %s, retries %d (%d s to %d s)", class, managed, labelString(params), retry[0], retry[1], retry[2])
}

func ptrString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
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
