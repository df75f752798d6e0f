package kube

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/json"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueuescheme "sigs.k8s.io/kueue/client-go/clientset/versioned/scheme"
)

// workloadList is a LIST of Workloads decoded without their pod sets. A Workload holds a copy of its job's pod
// templates (about 16 KB of its JSON in the benchmark's); a job's refresh reads its admission, conditions and queue,
// and the job's own templates are on the job. Skipping them halves the CPU of a refresh's Workload LIST, which every
// RayJob's first Read waits for.
type workloadList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []workloadNoPodSets `json:"items"`
}

type workloadNoPodSets struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		kueue.WorkloadSpec
		PodSets unread `json:"podSets"` // shadows WorkloadSpec's, which stays nil
	} `json:"spec"`
	Status kueue.WorkloadStatus `json:"status,omitempty"`
}

// unread is a JSON value left undecoded.
type unread struct{}

func (*unread) UnmarshalJSON([]byte) error { return nil }

func listWorkloadsNoPodSets(c *Clients, ns string) func(context.Context, metav1.ListOptions) (*workloadList, error) {
	return func(ctx context.Context, opts metav1.ListOptions) (*workloadList, error) {
		raw, err := c.Kueue.KueueV1beta2().RESTClient().Get().Namespace(ns).Resource("workloads").
			VersionedParams(&opts, kueuescheme.ParameterCodec).Do(ctx).Raw()
		if err != nil {
			return nil, err
		}
		var list workloadList
		if err := json.UnmarshalCaseSensitivePreserveInts(raw, &list); err != nil {
			return nil, err
		}
		return &list, nil
	}
}

// workloads are the list's items as Workloads whose Spec.PodSets is nil.
func (l *workloadList) workloads() []kueue.Workload {
	out := make([]kueue.Workload, len(l.Items))
	for i := range l.Items {
		it := &l.Items[i]
		out[i] = kueue.Workload{TypeMeta: it.TypeMeta, ObjectMeta: it.ObjectMeta, Spec: it.Spec.WorkloadSpec, Status: it.Status}
	}
	return out
}
