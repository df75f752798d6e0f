//go:build !nohelm

package kueueinstall

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/drift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// managerKinds are the kinds of the chart's objects compared with what the release wrote: Kueue's manager (its
// Deployment: replicas, image, arguments, feature gates) and its configuration (the ConfigMap it reads at start).
// The chart's other objects are not compared; the resource's docs say why.
var managerKinds = map[string]k8sschema.GroupVersionResource{
	"apps/v1/Deployment": {Group: "apps", Version: "v1", Resource: "deployments"},
	"v1/ConfigMap":       {Version: "v1", Resource: "configmaps"},
}

// writtenObject is one of the release's manager objects: as the release's manifest wrote it, and as it is now (nil
// when it is gone).
type writtenObject struct {
	key     string
	written map[string]any
	live    *unstructured.Unstructured
}

// releaseManagerObjects reads the live object of each manager object of the release's manifest, in the manifest's
// order.
func releaseManagerObjects(ctx context.Context, c *kube.Clients, rel *release.Release) ([]writtenObject, error) {
	docs := releaseutil.SplitManifests(rel.Manifest)
	names := make([]string, 0, len(docs))
	for n := range docs {
		names = append(names, n)
	}
	sort.Sort(releaseutil.BySplitManifestsOrder(names))
	var out []writtenObject
	for _, n := range names {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(docs[n]), &m); err != nil || m == nil {
			continue // Helm installed it, so it parses; an empty document is none
		}
		u := &unstructured.Unstructured{Object: m}
		gvr, ok := managerKinds[u.GetAPIVersion()+"/"+u.GetKind()]
		if !ok {
			continue
		}
		ns := u.GetNamespace()
		if ns == "" {
			ns = rel.Namespace
		}
		live, err := c.Dynamic.Resource(gvr).Namespace(ns).Get(ctx, u.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			live, err = nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s %s/%s of release %s: %w", u.GetKind(), ns, u.GetName(), rel.Name, err)
		}
		out = append(out, writtenObject{key: u.GetKind() + "/" + ns + "/" + u.GetName(), written: m, live: live})
	}
	return out, nil
}

// installBaselines records what the release wrote on its manager objects: the fields its manifest sets, with their
// values as the server stored them.
func installBaselines(c *kube.Clients, objs []writtenObject) (map[string]drift.Baseline, error) {
	ty, err := c.Types(managerGVKs(objs)...)
	if err != nil {
		return nil, err
	}
	out := map[string]drift.Baseline{}
	for _, o := range objs {
		if o.live == nil {
			continue
		}
		b, err := ty.RecordWritten(o.live.Object, o.written)
		if errors.Is(err, drift.ErrNotManaged) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.key, err)
		}
		out[o.key] = b
	}
	return out, nil
}

// installDrift names what differs on the manager objects from what the release wrote; an object deleted by hand is
// drift too, which the next `helm upgrade` makes again.
func installDrift(c *kube.Clients, baselines map[string]drift.Baseline, objs []writtenObject) ([]string, error) {
	if len(baselines) == 0 {
		return nil, nil
	}
	ty, err := c.Types(managerGVKs(objs)...)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, o := range objs {
		b, ok := baselines[o.key]
		if !ok {
			continue
		}
		if o.live == nil {
			out = append(out, o.key+" (deleted)")
			continue
		}
		d, err := tfdrift.KeyedDiff(ty, o.key, b, o.live.Object)
		if err != nil {
			return nil, err
		}
		out = append(out, d...)
	}
	sort.Strings(out)
	return out, nil
}

func managerGVKs(objs []writtenObject) []k8sschema.GroupVersionKind {
	var out []k8sschema.GroupVersionKind
	seen := map[k8sschema.GroupVersionKind]bool{}
	for _, o := range objs {
		gvk := (&unstructured.Unstructured{Object: o.written}).GroupVersionKind()
		if !seen[gvk] {
			seen[gvk] = true
			out = append(out, gvk)
		}
	}
	return out
}

// recordInstall keeps what the release wrote on its manager objects, for Read to compare; a warning when it cannot,
// since the install itself did what it was asked.
func recordInstall(ctx context.Context, c *kube.Clients, rel *release.Release, p tfvalue.PrivateState, diags *diag.Diagnostics) {
	objs, err := releaseManagerObjects(ctx, c, rel)
	var b map[string]drift.Baseline
	if err == nil {
		b, err = installBaselines(c, objs)
	}
	if err != nil {
		diags.AddWarning("Drift not recorded", fmt.Sprintf("Kueue's release %s/%s was applied, but what it wrote could not be read back, so "+
			"changes made beside Helm are not compared until the next apply: %v", rel.Namespace, rel.Name, err))
	}
	tfdrift.Record(ctx, p, b, diags)
}
