package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/drift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/ttlcache"
)

func rayJobKey(ns, name string) string { return "RayJob/" + ns + "/" + name }

func rayJobObject(job *rayv1.RayJob) liveObject {
	return liveObject{rayJobKey(job.Namespace, job.Name), rayv1.GroupVersion.WithKind("RayJob"), job}
}

// rayJobBaseline is what the create left on the job, as the API server answered it.
func rayJobBaseline(c *kube.Clients, job *rayv1.RayJob) (map[string]drift.Baseline, error) {
	ty, err := c.Types(rayv1.GroupVersion)
	if err != nil {
		return nil, err
	}
	return takeBaselines(ty, []liveObject{rayJobObject(job)})
}

// flavorCache keeps a cluster's ResourceFlavors for a few seconds: a refresh of a thousand admitted jobs reads them
// once, not once per job.
var flavorCache = ttlcache.New[string, map[string]*kueue.ResourceFlavor](10 * time.Second)

func resourceFlavors(ctx context.Context, c *kube.Clients) (map[string]*kueue.ResourceFlavor, error) {
	return flavorCache.Get(c.Host, func() (map[string]*kueue.ResourceFlavor, error) {
		list, err := c.Kueue.KueueV1beta2().ResourceFlavors().List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		out := map[string]*kueue.ResourceFlavor{}
		for i := range list.Items {
			out[list.Items[i].Name] = &list.Items[i]
		}
		return out, nil
	})
}

// rayJobDrift names what differs between the live job and what the create left, once what Kueue put there on
// purpose when it admitted the job is taken out: the node labels and tolerations of the flavors it assigned, its
// admission checks' pod-set updates, and the suspend it lifted.
func rayJobDrift(ctx context.Context, c *kube.Clients, b drift.Baseline, p jobProgress) ([]string, error) {
	ty, err := c.Types(rayv1.GroupVersion)
	if err != nil {
		return nil, err
	}
	o := rayJobObject(p.job)
	live, err := unstructuredOf(o)
	if err != nil {
		return nil, err
	}
	var flavors map[string]*kueue.ResourceFlavor
	if p.wl != nil && p.wl.Status.Admission != nil {
		if flavors, err = resourceFlavors(ctx, c); err != nil {
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
	paths, err := ty.Diff(b, live)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = o.key + " " + p
	}
	return out, nil
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
