package rayjob

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/drift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/ttlcache"
)

func rayJobKey(ns, name string) string { return "RayJob/" + ns + "/" + name }

func rayJobObject(job *rayv1.RayJob) tfdrift.Object {
	return tfdrift.Object{Key: rayJobKey(job.Namespace, job.Name), GVK: rayv1.GroupVersion.WithKind("RayJob"), Obj: job}
}

func configMapKey(ns, name string) string { return "ConfigMap/" + ns + "/" + name }

// filesFields are what the provider writes of the files' ConfigMap, whole (an update replaces them): every part of
// them is what the job runs, so each is compared whole. They are plain maps of strings, which need no schema (and
// the core API's schema is the largest a plan would have to read).
var filesFields = []string{"data", "binaryData", "immutable"}

// rayJobBaseline is what the create left on the job and on its files' ConfigMap (nil when it has none), as the API
// server answered it.
func rayJobBaseline(c *kube.Clients, job *rayv1.RayJob, cm *corev1.ConfigMap) (map[string]drift.Baseline, error) {
	out := map[string]drift.Baseline{}
	if cm != nil {
		// First, and kept whatever befalls the job's: it needs no schema.
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cm)
		if err != nil {
			return nil, err
		}
		m["apiVersion"], m["kind"] = "v1", "ConfigMap"
		if out[configMapKey(cm.Namespace, cm.Name)], err = drift.RecordOnlyWhole(m, filesFields...); err != nil {
			return nil, err
		}
	}
	ty, err := c.Types(rayv1.GroupVersion.WithKind("RayJob"))
	if err != nil {
		return out, err
	}
	jobB, err := tfdrift.Take(ty, []tfdrift.Object{rayJobObject(job)}, tfdrift.ByManager)
	if err != nil {
		return out, err
	}
	for k, v := range jobB {
		out[k] = v
	}
	return out, nil
}

// rayJobDrift names what differs on the job (jobDrift) and on its files' ConfigMap.
func rayJobDrift(ctx context.Context, c *kube.Clients, baselines map[string]drift.Baseline, p jobProgress) ([]string, error) {
	var out []string
	if b, ok := baselines[rayJobKey(p.job.Namespace, p.job.Name)]; ok {
		d, err := jobDrift(ctx, c, b, p)
		if err != nil {
			return nil, err
		}
		out = append(out, d...)
	}
	for key, b := range baselines {
		ns, name, ok := strings.Cut(strings.TrimPrefix(key, "ConfigMap/"), "/")
		if !ok || !strings.HasPrefix(key, "ConfigMap/") {
			continue
		}
		cm, err := jobReads.FilesConfigMap(ctx, c, p.job, name)
		if err != nil {
			return nil, err
		}
		if cm == nil || cm.Namespace != ns {
			out = append(out, key+" (deleted)")
			continue
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cm)
		if err != nil {
			return nil, err
		}
		d, err := (*drift.Types)(nil).Diff(b, m)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		for _, path := range d {
			out = append(out, key+" "+path)
		}
	}
	sort.Strings(out)
	return out, nil
}

// flavorCache keeps a cluster's ResourceFlavors for a few seconds: a refresh of a thousand admitted jobs reads them
// once, not once per job.
var flavorCache = ttlcache.New[string, map[string]*kueue.ResourceFlavor](10 * time.Second)

// resourceFlavors returns the cluster's ResourceFlavors, read again when the remembered list lacks one the Workload
// was admitted with: a flavor made after the list was read (the same apply that made the job) would otherwise leave
// its labels and tolerations in the job, and they would plan as drift.
func resourceFlavors(ctx context.Context, c *kube.Clients, wl *kueue.Workload) (map[string]*kueue.ResourceFlavor, error) {
	list := listFlavors(ctx, c)
	got, err := flavorCache.Get(c.Host, list)
	if err != nil {
		return nil, err
	}
	for _, ps := range wl.Status.Admission.PodSetAssignments {
		for _, f := range ps.Flavors {
			if got[string(f)] == nil {
				flavorCache.Forget(c.Host)
				return flavorCache.Get(c.Host, list)
			}
		}
	}
	return got, nil
}

func listFlavors(ctx context.Context, c *kube.Clients) func() (map[string]*kueue.ResourceFlavor, error) {
	return func() (map[string]*kueue.ResourceFlavor, error) {
		list, err := c.Kueue.KueueV1beta2().ResourceFlavors().List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		out := map[string]*kueue.ResourceFlavor{}
		for i := range list.Items {
			out[list.Items[i].Name] = &list.Items[i]
		}
		return out, nil
	}
}

// warmJobDrift starts reading what every job's drift needs of the cluster, the RayJob schema and the
// ResourceFlavors, beside the namespace's LISTs: the first drift would otherwise wait for them after the LISTs, and
// every other Read of the refresh behind it (100 ms of a 100-job plan, bench/results.md). What fails is not kept:
// the drift asks again. The reads outlive the Read that starts them, which others share, so not its cancellation.
func warmJobDrift(ctx context.Context, c *kube.Clients) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = c.Types(rayv1.GroupVersion.WithKind("RayJob")) })
	wg.Go(func() { _, _ = flavorCache.Get(c.Host, listFlavors(ctx, c)) })
	go func() { wg.Wait(); cancel() }()
}

// jobDrift names what differs between the live job and what the create left, once what Kueue put there on
// purpose when it admitted the job is taken out: the node labels and tolerations of the flavors it assigned, its
// admission checks' pod-set updates, and the suspend it lifted.
func jobDrift(ctx context.Context, c *kube.Clients, b drift.Baseline, p jobProgress) ([]string, error) {
	ty, err := c.Types(rayv1.GroupVersion.WithKind("RayJob"))
	if err != nil {
		return nil, err
	}
	// A shallow copy without the record of owners and the status (KubeRay's, through the status subresource): no
	// create owns either, and converting them would only walk them.
	job := *p.job
	job.ManagedFields, job.Status = nil, rayv1.RayJobStatus{}
	o := rayJobObject(&job)
	live, err := tfdrift.Unstructured(o)
	if err != nil {
		return nil, err
	}
	var flavors map[string]*kueue.ResourceFlavor
	if p.wl != nil && p.wl.Status.Admission != nil {
		if flavors, err = resourceFlavors(ctx, c, p.wl); err != nil {
			return nil, err
		}
	}
	if added := drift.KueueAdded(p.wl, flavors); added != nil {
		base, err := b.Object()
		if err != nil {
			return nil, err
		}
		if err := subtractKueue(live, base, added); err != nil {
			return nil, err
		}
	}
	return tfdrift.KeyedDiff(ty, o.Key, b, live)
}

// subtractKueue takes Kueue's additions out of the job's pod templates, pod set by pod set ("head", then each worker
// group by its name, as Kueue's RayJob integration names them), and puts back the suspend it lifted.
func subtractKueue(live, base map[string]any, added map[string]drift.Added) error {
	spec, baseSpec := drift.MapAt(live, "spec"), drift.MapAt(base, "spec")
	if spec == nil {
		return errors.New("the RayJob has no spec")
	}
	if s, ok := spec["suspend"].(bool); ok && !s {
		if bs, ok := baseSpec["suspend"].(bool); ok && bs {
			spec["suspend"] = true
		}
	}
	rc, baseRC := drift.MapAt(spec, "rayClusterSpec"), drift.MapAt(baseSpec, "rayClusterSpec")
	if rc == nil {
		return nil
	}
	if a, ok := added["head"]; ok {
		if err := drift.Subtract(drift.MapAt(drift.MapAt(rc, "headGroupSpec"), "template"), drift.MapAt(drift.MapAt(baseRC, "headGroupSpec"), "template"), a); err != nil {
			return err
		}
	}
	groups, _ := rc["workerGroupSpecs"].([]any)
	baseGroups, _ := baseRC["workerGroupSpecs"].([]any)
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		name, _ := gm["groupName"].(string)
		a, ok := added[name]
		if !ok {
			continue
		}
		var baseTmpl map[string]any
		for _, bg := range baseGroups {
			if bm, _ := bg.(map[string]any); bm["groupName"] == name {
				baseTmpl = drift.MapAt(bm, "template")
			}
		}
		if err := drift.Subtract(drift.MapAt(gm, "template"), baseTmpl, a); err != nil {
			return fmt.Errorf("worker group %s: %w", name, err)
		}
	}
	return nil
}
