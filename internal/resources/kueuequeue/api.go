package kueuequeue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kueueuse"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// findQueue reads the live objects of a queue: the ClusterQueue, the flavors and admission checks it names, their
// configs, and the LocalQueues in m (or, when discover is set, every LocalQueue that points at it). A nil cq means
// the ClusterQueue is gone.
func findQueue(ctx context.Context, c *kube.Clients, m *kueueQueueModel, discover bool) (*kueueObjects, error) {
	api := c.Kueue.KueueV1beta2()
	name := m.Name.ValueString()
	cq, err := api.ClusterQueues().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return &kueueObjects{}, notInstalledOr(err, c)
	}
	if err != nil {
		return nil, c.Explain("ClusterQueue", name, err)
	}
	o := &kueueObjects{cq: cq, flavors: map[string]*kueue.ResourceFlavor{}, checks: map[string]*kueue.AdmissionCheck{},
		configs: map[string]*kueue.ProvisioningRequestConfig{}, queues: map[string]*kueue.LocalQueue{}}
	for _, g := range cq.Spec.ResourceGroups {
		for _, fq := range g.Flavors {
			rf, err := api.ResourceFlavors().Get(ctx, string(fq.Name), metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
			case err != nil:
				return nil, c.Explain("ResourceFlavor", string(fq.Name), err)
			case rf.DeletionTimestamp != nil:
				// Kept by Kueue's in-use finalizer: gone as far as the configuration goes, so the plan shows it.
				o.terminating = append(o.terminating, "ResourceFlavor "+rf.Name)
			default:
				o.flavors[rf.Name] = rf
			}
		}
	}
	if s := cq.Spec.AdmissionChecksStrategy; s != nil {
		for _, rule := range s.AdmissionChecks {
			ac, err := api.AdmissionChecks().Get(ctx, string(rule.Name), metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				continue
			case err != nil:
				return nil, c.Explain("AdmissionCheck", string(rule.Name), err)
			case ac.DeletionTimestamp != nil:
				o.terminating = append(o.terminating, "AdmissionCheck "+ac.Name)
				continue
			}
			o.checks[ac.Name] = ac
			if p := ac.Spec.Parameters; p != nil && p.Kind == "ProvisioningRequestConfig" {
				prc, err := api.ProvisioningRequestConfigs().Get(ctx, p.Name, metav1.GetOptions{})
				if err == nil {
					o.configs[prc.Name] = prc
				} else if !apierrors.IsNotFound(err) {
					return nil, c.Explain("ProvisioningRequestConfig", p.Name, err)
				}
			}
		}
	}
	if discover {
		list, err := api.LocalQueues(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, c.Explain("LocalQueue", "*", err)
		}
		for i := range list.Items {
			if lq := &list.Items[i]; string(lq.Spec.ClusterQueue) == name {
				o.queues[lq.Namespace+"/"+lq.Name] = lq
			}
		}
		return o, nil
	}
	for _, lq := range m.LocalQueues {
		live, err := api.LocalQueues(lq.Namespace.ValueString()).Get(ctx, lq.Name.ValueString(), metav1.GetOptions{})
		if err == nil {
			o.queues[live.Namespace+"/"+live.Name] = live
		} else if !apierrors.IsNotFound(err) {
			return nil, c.Explain("LocalQueue", lq.Namespace.ValueString()+"/"+lq.Name.ValueString(), err)
		}
	}
	return o, nil
}

// applyQueueObjects server-side-applies every object of m, dependencies first, so Kueue never sees a reference to an
// object that does not exist yet. mine is what this queue last applied of its shared objects (nil on create). It also says whether
// any object may have been written: false when the first write was refused outright (bad credentials, Kueue not
// installed, invalid), so there is nothing to account for.
func applyQueueObjects(ctx context.Context, c *kube.Clients, m *kueueQueueModel, mine map[string]string) (bool, error) {
	wrote := false
	retry := func(call func() error) error {
		err := kube.Retry(ctx, call)
		if err == nil || kube.Transient(err) || apierrors.ReasonForError(err) == metav1.StatusReasonUnknown {
			wrote = true
		}
		return err
	}
	api := c.Kueue.KueueV1beta2()
	opts := metav1.ApplyOptions{FieldManager: kube.FieldManager, Force: m.ForceConflicts.ValueBool()}
	u, err := kueueuse.FindUsers(ctx, c, m.Name.ValueString())
	if err != nil {
		return false, err
	}
	if err := kueueuse.RefuseRedeclared(ctx, c, m.Name.ValueString(), declaredSpecs(m), mine, u); err != nil {
		return false, err
	}
	if err := requireNamespaces(ctx, c, m); err != nil {
		return false, err
	}
	if err := refuseMultiKueueWithDWS(ctx, c, m); err != nil {
		return false, err
	}
	if live, err := api.ClusterQueues().Get(ctx, m.Name.ValueString(), metav1.GetOptions{}); err == nil && live.DeletionTimestamp != nil {
		why := "Kueue keeps it while workloads use it"
		if hs, herr := kueueuse.FindHolders(ctx, c, live.Name); herr == nil && len(hs) > 0 {
			why = kueueuse.HoldersError(live.Name, c.Host, hs).Error()
		}
		return false, fmt.Errorf("ClusterQueue %s on %s is being deleted (an earlier destroy), so it cannot be applied again until it is gone: %s",
			live.Name, c.Host, why)
	}
	if err := releaseTerminating(ctx, c, m, u); err != nil {
		return true, err
	}
	for _, f := range m.Flavors {
		if err := retry(func() error {
			ac := expandResourceFlavor(f)
			live, err := api.ResourceFlavors().Apply(ctx, ac, opts)
			if err != nil {
				return err
			}
			return dropForeign(ctx, *ac.Name, api.ResourceFlavors().Patch, foreignKeys("nodeLabels", live.Spec.NodeLabels, ac.Spec.NodeLabels))
		}); err != nil {
			return wrote, c.Explain("ResourceFlavor", f.Name.ValueString(), err)
		}
	}
	for _, ch := range m.checks() {
		if err := retry(func() error {
			ac := expandProvisioningRequestConfig(ch.p)
			live, err := api.ProvisioningRequestConfigs().Apply(ctx, ac, opts)
			if err != nil {
				return err
			}
			patch := foreignKeys("parameters", live.Spec.Parameters, ac.Spec.Parameters)
			// A list-type set: server-side apply keeps another manager's items, and a merge patch replaces the list.
			if len(live.Spec.ManagedResources) != len(ac.Spec.ManagedResources) {
				if patch == nil {
					patch = map[string]any{}
				}
				patch["managedResources"] = ac.Spec.ManagedResources
			}
			return dropForeign(ctx, *ac.Name, api.ProvisioningRequestConfigs().Patch, patch)
		}); err != nil {
			return wrote, c.Explain("ProvisioningRequestConfig", ch.p.Config.ValueString(), err)
		}
		if err := retry(func() error {
			_, err := api.AdmissionChecks().Apply(ctx, expandAdmissionCheck(ch.p), opts)
			return err
		}); err != nil {
			return wrote, c.Explain("AdmissionCheck", ch.p.AdmissionCheck.ValueString(), err)
		}
	}
	cq, err := expandClusterQueue(m)
	if err != nil {
		return wrote, err
	}
	if err := retry(func() error {
		live, err := api.ClusterQueues().Apply(ctx, cq, opts)
		if err != nil || live.Spec.CohortName == "" || cq.Spec.CohortName != nil {
			return err
		}
		return dropForeign(ctx, *cq.Name, api.ClusterQueues().Patch, map[string]any{"cohortName": nil})
	}); err != nil {
		return wrote, c.Explain("ClusterQueue", m.Name.ValueString(), err)
	}
	for _, lq := range m.LocalQueues {
		if err := retry(func() error {
			_, err := api.LocalQueues(lq.Namespace.ValueString()).Apply(ctx, expandLocalQueue(lq, m.Name.ValueString()), opts)
			return err
		}); err != nil {
			return wrote, c.Explain("LocalQueue", lq.Namespace.ValueString()+"/"+lq.Name.ValueString(), err)
		}
	}
	// Two queues applied at once (one state, parallel applies) can both find a shared flavor unused and write their
	// own spec of it; the later write wins. Checked again now that both ClusterQueues exist: the queue whose spec lost
	// is refused, naming the other.
	after, err := kueueuse.FindUsers(ctx, c, m.Name.ValueString())
	if err != nil {
		return true, err
	}
	return true, kueueuse.RefuseRedeclared(ctx, c, m.Name.ValueString(), declaredSpecs(m), nil, after)
}

// foreignKeys is a spec patch that removes the keys of the live map field that the applied map leaves out: keys set
// by another field manager (kubectl patch or edit), since a forced apply of ours removes keys we once set. Nil when
// there are none.
func foreignKeys[V any](field string, live, applied map[string]V) map[string]any {
	gone := map[string]any{}
	for k := range live {
		if _, ok := applied[k]; !ok {
			gone[k] = nil // a merge patch's null removes the key
		}
	}
	if len(gone) == 0 {
		return nil
	}
	return map[string]any{field: gone}
}

// dropForeign merge-patches spec of a cluster-scoped object, to remove what another manager set and our
// configuration leaves out. Server-side apply keeps a field it does not own when the applied configuration omits it,
// so a setting added by hand, once planned away, would be planned away again after every apply.
func dropForeign[T any](ctx context.Context, name string, patch func(context.Context, string, types.PatchType, []byte, metav1.PatchOptions, ...string) (T, error), spec map[string]any) error {
	if len(spec) == 0 {
		return nil
	}
	body, err := json.Marshal(map[string]any{"spec": spec})
	if err != nil {
		return err
	}
	_, err = patch(ctx, name, types.MergePatchType, body, metav1.PatchOptions{FieldManager: kube.FieldManager})
	return err
}

// waitQueueActive waits until the ClusterQueue and every AdmissionCheck of m report Active, woken by watch events.
func waitQueueActive(ctx context.Context, c *kube.Clients, m *kueueQueueModel) error {
	api := c.Kueue.KueueV1beta2()
	name := m.Name.ValueString()
	for _, ch := range m.checks() {
		check := ch.p.AdmissionCheck.ValueString()
		var why string
		err := kube.WaitUntil(ctx, func(ctx context.Context) (bool, error) {
			ac, err := api.AdmissionChecks().Get(ctx, check, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			ok, msg := kube.ConditionTrue(ac.Status.Conditions, kueue.AdmissionCheckActive)
			why = msg
			return ok, nil
		}, func(ctx context.Context) (watch.Interface, error) {
			return api.AdmissionChecks().Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", check).String()})
		})
		if err != nil {
			return fmt.Errorf("AdmissionCheck %s is not Active%s: %w (is Kueue's provisioning-request controller running, and does the ProvisioningRequest CRD exist?)", check, kueueuse.Because(why), err)
		}
	}
	var why string
	err := kube.WaitUntil(ctx, func(ctx context.Context) (bool, error) {
		cq, err := api.ClusterQueues().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		ok, msg := kube.ConditionTrue(cq.Status.Conditions, kueue.ClusterQueueActive)
		why = msg
		return ok, nil
	}, func(ctx context.Context) (watch.Interface, error) {
		return api.ClusterQueues().Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
	})
	if err != nil {
		return fmt.Errorf("ClusterQueue %s is not Active%s: %w (is the Kueue controller running?)", name, kueueuse.Because(why), err)
	}
	return nil
}

// notInstalledOr tells a missing ClusterQueue (nil: the object is gone) from a cluster without Kueue.
func notInstalledOr(err error, c *kube.Clients) error {
	if strings.Contains(err.Error(), "the server could not find the requested resource") {
		return c.Explain("ClusterQueue", "", err)
	}
	return nil
}

// queueObjectNames are the names of a queue's objects; local queues as namespace/name.
type queueObjectNames struct {
	ClusterQueue                          string   `json:"clusterQueue,omitempty"`
	Flavors, Checks, Configs, LocalQueues []string `json:",omitempty"`
}

// union is every name in either, without repeats, in first-seen order.
func (o queueObjectNames) union(p queueObjectNames) queueObjectNames {
	merge := func(a, b []string) []string {
		seen := map[string]bool{}
		var out []string
		for _, s := range append(append([]string{}, a...), b...) {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
		return out
	}
	if o.ClusterQueue == "" {
		o.ClusterQueue = p.ClusterQueue
	}
	o.Flavors, o.Checks = merge(o.Flavors, p.Flavors), merge(o.Checks, p.Checks)
	o.Configs, o.LocalQueues = merge(o.Configs, p.Configs), merge(o.LocalQueues, p.LocalQueues)
	return o
}

func (m *kueueQueueModel) objectNames() queueObjectNames {
	o := queueObjectNames{ClusterQueue: m.Name.ValueString()}
	for _, f := range m.Flavors {
		o.Flavors = append(o.Flavors, f.Name.ValueString())
	}
	for _, ch := range m.checks() {
		o.Checks = append(o.Checks, ch.p.AdmissionCheck.ValueString())
		o.Configs = append(o.Configs, ch.p.Config.ValueString())
	}
	for _, lq := range m.LocalQueues {
		o.LocalQueues = append(o.LocalQueues, lq.Namespace.ValueString()+"/"+lq.Name.ValueString())
	}
	return o
}

// deleteQueueObjects deletes the named objects, dependents first, and waits until each is gone; an empty
// clusterQueue keeps the ClusterQueue. A ClusterQueue held by Kueue's resource-in-use finalizer because workloads
// still use it gets a clear error after a short wait instead of a hang until the timeout.
func deleteQueueObjects(ctx context.Context, c *kube.Clients, o queueObjectNames) error {
	api := c.Kueue.KueueV1beta2()
	for _, key := range o.LocalQueues {
		ns, n, _ := strings.Cut(key, "/")
		if err := kube.DeleteAndWait(ctx, func(ctx context.Context) error { return api.LocalQueues(ns).Delete(ctx, n, metav1.DeleteOptions{}) },
			func(ctx context.Context) error {
				_, err := api.LocalQueues(ns).Get(ctx, n, metav1.GetOptions{})
				return err
			}, time.Minute); err != nil {
			return c.Explain("LocalQueue", key, err)
		}
	}
	if name := o.ClusterQueue; name != "" {
		err := kube.DeleteAndWait(ctx, func(ctx context.Context) error { return api.ClusterQueues().Delete(ctx, name, metav1.DeleteOptions{}) },
			func(ctx context.Context) error {
				_, err := api.ClusterQueues().Get(ctx, name, metav1.GetOptions{})
				return err
			}, 2*time.Minute) // Kueue lets it go when its cache has no workload in it: after a lost MultiKueue worker, that took over 30 s
		if errors.Is(err, kube.ErrStillThere) {
			// A job admitted between the destroy's check and the delete holds it now.
			if hs, herr := kueueuse.FindHolders(ctx, c, name); herr == nil && len(hs) > 0 {
				return fmt.Errorf("ClusterQueue %s is being deleted, but Kueue keeps it while workloads use it: %w", name, kueueuse.HoldersError(name, c.Host, hs))
			}
		}
		if err != nil {
			return c.Explain("ClusterQueue", name, err)
		}
	}
	for _, n := range o.Checks {
		if err := kube.DeleteAndWait(ctx, func(ctx context.Context) error { return api.AdmissionChecks().Delete(ctx, n, metav1.DeleteOptions{}) },
			func(ctx context.Context) error {
				_, err := api.AdmissionChecks().Get(ctx, n, metav1.GetOptions{})
				return err
			}, time.Minute); err != nil {
			return c.Explain("AdmissionCheck", n, err)
		}
	}
	for _, n := range o.Configs {
		if err := kube.DeleteAndWait(ctx, func(ctx context.Context) error {
			return api.ProvisioningRequestConfigs().Delete(ctx, n, metav1.DeleteOptions{})
		},
			func(ctx context.Context) error {
				_, err := api.ProvisioningRequestConfigs().Get(ctx, n, metav1.GetOptions{})
				return err
			}, time.Minute); err != nil {
			return c.Explain("ProvisioningRequestConfig", n, err)
		}
	}
	for _, n := range o.Flavors {
		if err := kube.DeleteAndWait(ctx, func(ctx context.Context) error { return api.ResourceFlavors().Delete(ctx, n, metav1.DeleteOptions{}) },
			func(ctx context.Context) error {
				_, err := api.ResourceFlavors().Get(ctx, n, metav1.GetOptions{})
				return err
			}, time.Minute); err != nil {
			return c.Explain("ResourceFlavor", n, err)
		}
	}
	return nil
}

// releaseTerminating lets go of flavors and admission checks of m that are being deleted. Kueue keeps such an object
// (its resource-in-use finalizer) for as long as a ClusterQueue refers to it, so it can be neither used nor made
// again. The ClusterQueue is applied without it until it is gone, and the rest of the apply makes it again. A flavor
// whose check goes is taken out with it, so that no job is admitted there without its provisioning check.
func releaseTerminating(ctx context.Context, c *kube.Clients, m *kueueQueueModel, u kueueuse.Users) error {
	api := c.Kueue.KueueV1beta2()
	goneChecks := map[string]bool{}
	var waits []queueObjectNames
	for _, ch := range m.checks() {
		if ac, err := api.AdmissionChecks().Get(ctx, ch.p.AdmissionCheck.ValueString(), metav1.GetOptions{}); err == nil && ac.DeletionTimestamp != nil {
			goneChecks[ac.Name] = true
			waits = append(waits, queueObjectNames{Checks: []string{ac.Name}})
		}
	}
	reduced := *m
	reduced.Flavors = nil
	for _, f := range m.Flavors {
		if f.Provisioning != nil && goneChecks[f.Provisioning.AdmissionCheck.ValueString()] {
			continue
		}
		if rf, err := api.ResourceFlavors().Get(ctx, f.Name.ValueString(), metav1.GetOptions{}); err == nil && rf.DeletionTimestamp != nil {
			waits = append(waits, queueObjectNames{Flavors: []string{rf.Name}})
			continue
		}
		reduced.Flavors = append(reduced.Flavors, f)
	}
	if len(waits) == 0 {
		return nil
	}
	for _, w := range waits {
		for _, k := range append(w.Flavors, w.Checks...) {
			kind := "ResourceFlavor"
			if len(w.Checks) > 0 {
				kind = "AdmissionCheck"
			}
			if others := u.Of(kind, k); len(others) > 0 {
				return fmt.Errorf("%s %s on %s is being deleted, and Kueue keeps it while ClusterQueue %s uses it too. Take it out "+
					"of those queues (or wait for them to be destroyed), then apply again", kind, k, c.Host, strings.Join(others, ", "))
			}
		}
	}
	live, err := api.ClusterQueues().Get(ctx, m.Name.ValueString(), metav1.GetOptions{})
	if err == nil && live.DeletionTimestamp == nil {
		cq, err := expandClusterQueue(&reduced)
		if err != nil {
			return err
		}
		tflog.Info(ctx, "taking objects that are being deleted out of the ClusterQueue until they are gone", map[string]any{"clusterQueue": m.Name.ValueString()})
		if err := kube.Retry(ctx, func() error {
			_, err := api.ClusterQueues().Apply(ctx, cq, metav1.ApplyOptions{FieldManager: kube.FieldManager, Force: true})
			return err
		}); err != nil {
			return c.Explain("ClusterQueue", m.Name.ValueString(), err)
		}
	}
	for _, w := range waits {
		// Deleting what is already being deleted changes nothing; this waits for it to go.
		if err := deleteQueueObjects(ctx, c, w); err != nil {
			return fmt.Errorf("%w (it is being deleted, and Kueue keeps it while a ClusterQueue refers to it)", err)
		}
	}
	return nil
}

// remainingObjects names which of o's flavors, checks, configs and local queues still exist ("Kind name").
func remainingObjects(ctx context.Context, c *kube.Clients, o queueObjectNames) ([]string, error) {
	api := c.Kueue.KueueV1beta2()
	var left []string
	probe := func(kind, name string, get func() error) error {
		err := get()
		if err == nil {
			left = append(left, kind+" "+name)
			return nil
		}
		if apierrors.IsNotFound(err) {
			return nil
		}
		return c.Explain(kind, name, err)
	}
	for _, n := range o.Flavors {
		if err := probe("ResourceFlavor", n, func() error { _, err := api.ResourceFlavors().Get(ctx, n, metav1.GetOptions{}); return err }); err != nil {
			return nil, err
		}
	}
	for _, n := range o.Checks {
		if err := probe("AdmissionCheck", n, func() error { _, err := api.AdmissionChecks().Get(ctx, n, metav1.GetOptions{}); return err }); err != nil {
			return nil, err
		}
	}
	for _, n := range o.Configs {
		if err := probe("ProvisioningRequestConfig", n, func() error {
			_, err := api.ProvisioningRequestConfigs().Get(ctx, n, metav1.GetOptions{})
			return err
		}); err != nil {
			return nil, err
		}
	}
	for _, key := range o.LocalQueues {
		ns, n, _ := strings.Cut(key, "/")
		if err := probe("LocalQueue", key, func() error { _, err := api.LocalQueues(ns).Get(ctx, n, metav1.GetOptions{}); return err }); err != nil {
			return nil, err
		}
	}
	return left, nil
}

// requireNamespaces fails, before anything is written, when a LocalQueue's namespace does not exist: the apply would
// otherwise stop half-way, after the ClusterQueue.
func requireNamespaces(ctx context.Context, c *kube.Clients, m *kueueQueueModel) error {
	seen := map[string]bool{}
	for _, lq := range m.LocalQueues {
		ns := lq.Namespace.ValueString()
		if seen[ns] {
			continue
		}
		seen[ns] = true
		err := kube.Retry(ctx, func() error { _, err := c.Core.Namespaces().Get(ctx, ns, metav1.GetOptions{}); return err })
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("namespace %s of LocalQueue %s does not exist on %s. Create it first (kubectl create namespace %s, or a "+
				"kubernetes_namespace resource this queue depends on), then apply again; nothing was written", ns, lq.Name.ValueString(), c.Host, ns)
		}
		if err != nil && !apierrors.IsForbidden(err) { // may read LocalQueues but not namespaces: let the write speak
			return c.Explain("Namespace", ns, err)
		}
	}
	return nil
}

// settle waits for Kueue to report the queue Active and records its status.
func (r *kueueQueueResource) settle(ctx context.Context, c *kube.Clients, m *kueueQueueModel, diags *diag.Diagnostics) {
	if err := waitQueueActive(ctx, c, m); err != nil {
		diags.AddError(fmt.Sprintf("waiting for Kueue queue (%s) to be Active", m.Name.ValueString()), err.Error())
	}
	o, err := findQueue(ctx, c, m, false)
	if err != nil || o.cq == nil {
		diags.AddError(fmt.Sprintf("reading Kueue queue (%s)", m.Name.ValueString()), fmt.Sprint(err))
		return
	}
	setQueueStatus(m, o.cq)
}

// refuseMultiKueueWithDWS refuses, before anything is written, a queue that Kueue would make inactive: one with both
// a MultiKueue check and a ProvisioningRequest check, from a flavor's provisioning or listed in admission_checks.
// Kueue's reason is MultiKueueWithProvisioningRequest (ClusterQueue types, Kueue v0.17.0).
func refuseMultiKueueWithDWS(ctx context.Context, c *kube.Clients, m *kueueQueueModel) error {
	var multi, prov []string
	for _, ch := range m.checks() {
		prov = append(prov, ch.p.AdmissionCheck.ValueString())
	}
	for _, name := range tfvalue.StringList(m.AdmissionChecks) {
		ac, err := c.Kueue.KueueV1beta2().AdmissionChecks().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return c.Explain("AdmissionCheck", name, err)
		}
		switch ac.Spec.ControllerName {
		case kueue.MultiKueueControllerName:
			multi = append(multi, name)
		case wellknown.ProvisioningRequestController:
			prov = append(prov, name)
		}
	}
	if len(multi) == 0 || len(prov) == 0 {
		return nil
	}
	return fmt.Errorf("the queue would have MultiKueue check %s and ProvisioningRequest check %s: "+
		"Kueue makes such a ClusterQueue inactive (MultiKueueWithProvisioningRequest: \"Cannot use both MultiKueue and ProvisioningRequest AdmissionChecks together\"). "+
		"DWS belongs on the workers: drop provisioning from the manager's queue, and give each worker's queue its own. Nothing was written",
		multi[0], prov[0])
}
