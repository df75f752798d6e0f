package drift

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// Added is what another controller put on one pod template on purpose: entries of its maps and items of its lists.
type Added struct {
	Labels, Annotations, NodeSelector map[string]string
	Tolerations                       []corev1.Toleration
	SchedulingGates                   []corev1.PodSchedulingGate
}

// KueueAdded is what Kueue added to each pod set's template (by pod set name) when it admitted wl: the node labels
// and tolerations of the ResourceFlavors assigned to it (flavors, by name, as read now), and the pod-set updates of
// its admission checks (the ProvisioningRequest check's annotations and node selector). Nil when wl is not admitted:
// Kueue puts the templates back when it suspends a job.
func KueueAdded(wl *kueue.Workload, flavors map[string]*kueue.ResourceFlavor) map[string]Added {
	if wl == nil || wl.Status.Admission == nil || !apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted) {
		return nil
	}
	out := map[string]Added{}
	for _, ps := range wl.Status.Admission.PodSetAssignments {
		a := Added{Labels: map[string]string{}, Annotations: map[string]string{}, NodeSelector: map[string]string{}}
		// Kueue's own keys, each with the value it derives from the Workload (Kueue v0.17,
		// jobframework.getPodSetsInfoFromStatus and podset.FromAssignment): some only under feature gates, which this
		// side cannot see, so a key counts as Kueue's where its value is Kueue's.
		a.Labels[wellknown.PodSetLabel] = string(ps.Name)
		a.Labels[wellknown.LocalQueueLabel] = string(wl.Spec.QueueName)
		a.Labels[wellknown.ClusterQueueLabel] = string(wl.Status.Admission.ClusterQueue)
		a.Annotations[kueue.WorkloadAnnotation] = wl.Name
		sliceName := wl.Name
		if n, ok := wl.Annotations[kueue.WorkloadSliceNameAnnotation]; ok {
			sliceName = n
		}
		a.Annotations[kueue.WorkloadSliceNameAnnotation] = sliceName
		if ps.TopologyAssignment != nil {
			a.Annotations[kueue.PodSetUnconstrainedTopologyAnnotation] = "true"
			a.SchedulingGates = append(a.SchedulingGates, corev1.PodSchedulingGate{Name: kueue.TopologySchedulingGate})
		}
		seen := map[kueue.ResourceFlavorReference]bool{}
		for _, f := range ps.Flavors {
			if seen[f] {
				continue
			}
			seen[f] = true
			rf := flavors[string(f)]
			if rf == nil {
				continue
			}
			for k, v := range rf.Spec.NodeLabels {
				a.NodeSelector[k] = v
			}
			a.Tolerations = append(a.Tolerations, rf.Spec.Tolerations...)
		}
		for _, ac := range wl.Status.AdmissionChecks {
			for _, u := range ac.PodSetUpdates {
				if u.Name != ps.Name {
					continue
				}
				for k, v := range u.Labels {
					a.Labels[k] = v
				}
				for k, v := range u.Annotations {
					a.Annotations[k] = v
				}
				for k, v := range u.NodeSelector {
					a.NodeSelector[k] = v
				}
				a.Tolerations = append(a.Tolerations, u.Tolerations...)
			}
		}
		out[string(ps.Name)] = a
	}
	return out
}

// Subtract takes out of the live pod template tmpl (unstructured, as the API returns it) what add says another
// controller put there, where the baseline template base (what the provider's write left, nil if it left none) does
// not have the same: a key the write set to the same value is the write's, not the controller's.
func Subtract(tmpl, base map[string]any, add Added) error {
	meta, baseMeta := MapAt(tmpl, "metadata"), MapAt(base, "metadata")
	spec, baseSpec := MapAt(tmpl, "spec"), MapAt(base, "spec")
	subtractMap(meta, baseMeta, "labels", add.Labels)
	subtractMap(meta, baseMeta, "annotations", add.Annotations)
	subtractMap(spec, baseSpec, "nodeSelector", add.NodeSelector)
	tols, err := asList(add.Tolerations)
	if err != nil {
		return err
	}
	subtractList(spec, baseSpec, "tolerations", tols)
	gates, err := asList(add.SchedulingGates)
	if err != nil {
		return err
	}
	subtractList(spec, baseSpec, "schedulingGates", gates)
	return nil
}

// MapAt is the object under key of an unstructured object, nil when there is none.
func MapAt(m map[string]any, key string) map[string]any {
	if m == nil {
		return nil
	}
	c, _ := m[key].(map[string]any)
	return c
}

func subtractMap(parent, baseParent map[string]any, key string, add map[string]string) {
	live := MapAt(parent, key)
	if live == nil || len(add) == 0 {
		return
	}
	base := MapAt(baseParent, key)
	for k, v := range add {
		if live[k] == v && (base == nil || base[k] != v) {
			delete(live, k)
		}
	}
	if len(live) == 0 && base == nil {
		delete(parent, key)
	}
}

func subtractList(parent, baseParent map[string]any, key string, add []any) {
	if parent == nil || len(add) == 0 {
		return
	}
	live, _ := parent[key].([]any)
	var base []any
	if baseParent != nil {
		base, _ = baseParent[key].([]any)
	}
	var out []any
	for _, item := range live {
		if contains(add, item) && !contains(base, item) {
			continue
		}
		out = append(out, item)
	}
	switch {
	case len(out) == 0 && base == nil:
		delete(parent, key)
	case len(out) != len(live):
		parent[key] = out
	}
}

// contains compares as JSON: the live object's numbers are int64, a baseline's read back from JSON float64.
func contains(list []any, item any) bool {
	want, err := json.Marshal(item)
	if err != nil {
		return false
	}
	for _, x := range list {
		if b, err := json.Marshal(x); err == nil && string(b) == string(want) {
			return true
		}
	}
	return false
}

// asList gives typed items as the API's JSON would (via JSON, so numbers compare as the live object's do).
func asList[T any](items []T) ([]any, error) {
	if len(items) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(items)
	if err != nil {
		return nil, err
	}
	var out []any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("reading what was added: %w", err)
	}
	return out, nil
}

// Object is the baseline's values as an object.
func (b Baseline) Object() (map[string]any, error) {
	var out map[string]any
	if err := json.Unmarshal(b.Values, &out); err != nil {
		return nil, err
	}
	return out, nil
}
