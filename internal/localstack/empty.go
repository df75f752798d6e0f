package localstack

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
)

func ignoreGone(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// baseline is what a control plane holds before any cluster uses it: the UIDs of its objects. Emptying it deletes
// everything else, as GKE's deletion of a cluster takes everything in it.
type baseline struct {
	uids map[types.UID]bool
}

// notEmptied are kinds the control plane's own controllers write at any time in the namespaces it starts with, or
// that they remove themselves with what they belong to: deleting them would break a component, not empty the cluster.
var notEmptied = []schema.GroupResource{
	{Resource: "events"}, {Group: "events.k8s.io", Resource: "events"},
	{Group: "coordination.k8s.io", Resource: "leases"},
	{Resource: "endpoints"}, {Group: "discovery.k8s.io", Resource: "endpointslices"},
	{Group: "networking.k8s.io", Resource: "ipaddresses"}, {Group: "networking.k8s.io", Resource: "servicecidrs"},
}

// emptiable are the resources that can be listed and deleted, by whether they are namespaced.
func (s *Stack) emptiable() (dynamic.Interface, []schema.GroupVersionResource, []schema.GroupVersionResource, error) {
	cfg := s.RESTConfig()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	lists, err := discovery.ServerPreferredResources(dc)
	if err != nil && len(lists) == 0 {
		return nil, nil, nil, err
	}
	var namespaced, cluster []schema.GroupVersionResource
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || !slices.Contains(r.Verbs, "delete") ||
				slices.Contains(notEmptied, gv.WithResource(r.Name).GroupResource()) {
				continue
			}
			if r.Namespaced {
				namespaced = append(namespaced, gv.WithResource(r.Name))
			} else {
				cluster = append(cluster, gv.WithResource(r.Name))
			}
		}
	}
	return dyn, namespaced, cluster, nil
}

// recordBaseline notes what the control plane holds now.
func (s *Stack) recordBaseline(ctx context.Context) (*baseline, error) {
	dyn, namespaced, cluster, err := s.emptiable()
	if err != nil {
		return nil, err
	}
	b := &baseline{uids: map[types.UID]bool{}}
	for _, gvr := range append(namespaced, cluster...) {
		list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue // a kind that cannot be listed now (an aggregated API not ready) holds nothing of a cluster yet
		}
		for _, o := range list.Items {
			b.uids[o.GetUID()] = true
		}
	}
	return b, nil
}

// empty deletes every object that the baseline does not hold, and waits until they are gone: objects that a
// finalizer still holds after grace are released by removing their finalizers, as nothing of the deleted cluster
// is left to finish them on GKE either.
func (s *Stack) empty(ctx context.Context, b *baseline, grace time.Duration) error {
	dyn, namespaced, cluster, err := s.emptiable()
	if err != nil {
		return err
	}
	start := time.Now()
	for {
		if ctx.Err() != nil {
			return fmt.Errorf("emptying the control plane: %w", ctx.Err())
		}
		left, err := s.sweep(ctx, dyn, b, namespaced, cluster, time.Since(start) > grace)
		if err != nil {
			return err
		}
		if len(left) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("emptying the control plane: still there: %s", strings.Join(left, ", "))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// sweep deletes (or, with release, strips the finalizers of) every object beyond the baseline, and names those
// still there.
func (s *Stack) sweep(ctx context.Context, dyn dynamic.Interface, b *baseline, namespaced, cluster []schema.GroupVersionResource, release bool) ([]string, error) {
	var left []string
	drop := func(ri dynamic.ResourceInterface, gvr schema.GroupVersionResource, o *unstructured.Unstructured) error {
		left = append(left, gvr.Resource+"/"+o.GetNamespace()+"/"+o.GetName())
		// A CRD's finalizer deletes its custom resources, which would otherwise stay in etcd and come back with the
		// CRD; a namespace's (spec.finalizers) is the namespace controller's. Both are waited for, never released.
		if release && len(o.GetFinalizers()) > 0 && gvr.Resource != "customresourcedefinitions" {
			_, err := ri.Patch(ctx, o.GetName(), types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
			if ignoreGone(err) != nil {
				return fmt.Errorf("releasing %s %s: %w", gvr.Resource, o.GetName(), err)
			}
		}
		// At once: no kubelet of a deleted cluster's nodes confirms that a pod stopped. A pod already terminating
		// with a grace period (deleted by its owner's controller or the garbage collector) is deleted again without
		// one: its node may be gone already, and then only the pod garbage collector's 40 s quarantine removes it.
		if o.GetDeletionTimestamp() != nil && ptr.Deref(o.GetDeletionGracePeriodSeconds(), 0) == 0 {
			return nil
		}
		err := ri.Delete(ctx, o.GetName(), metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0), PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)})
		if ignoreGone(err) != nil {
			return fmt.Errorf("deleting %s %s: %w", gvr.Resource, o.GetName(), err)
		}
		return nil
	}
	// Namespaced first: a CRD goes after its objects.
	for _, gvr := range append(namespaced, cluster...) {
		list, err := dyn.Resource(gvr).Namespace(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if apierrors.IsNotFound(err) {
			continue // a kind gone with its CRD
		}
		if err != nil {
			left = append(left, gvr.Resource+" (listing: "+err.Error()+")")
			continue
		}
		for i := range list.Items {
			o := &list.Items[i]
			if b.uids[o.GetUID()] {
				continue
			}
			var ri dynamic.ResourceInterface = dyn.Resource(gvr)
			if ns := o.GetNamespace(); ns != "" {
				ri = dyn.Resource(gvr).Namespace(ns)
			}
			if err := drop(ri, gvr, o); err != nil {
				return nil, err
			}
		}
	}
	return left, nil
}
