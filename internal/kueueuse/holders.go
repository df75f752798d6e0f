package kueueuse

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

// Holder is a Workload that holds quota in a ClusterQueue. leaving is set when it is on its way out (being
// deleted, or its job is): the garbage collector removes it within moments.
type Holder struct {
	Workload, Owner string
	Leaving         bool
	// Origin is set on a copy a MultiKueue manager placed here: the manager's origin name.
	Origin string
}

// FindHolders lists the Workloads that hold quota in the ClusterQueue, read from the Workloads themselves: the
// ClusterQueue's counters lag behind (a freshly admitted job shows as 0 for a moment).
func FindHolders(ctx context.Context, c *kube.Clients, cq string) ([]Holder, error) {
	var list *kueue.WorkloadList
	err := kube.Retry(ctx, func() (err error) {
		list, err = c.Kueue.KueueV1beta2().Workloads(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		return err
	})
	if err != nil {
		return nil, c.Explain("Workload", "*", err)
	}
	var out []Holder
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
		h := Holder{Workload: wl.Namespace + "/" + wl.Name, Leaving: wl.DeletionTimestamp != nil, Origin: wl.Labels[kueue.MultiKueueOriginLabel]}
		for _, ref := range wl.OwnerReferences {
			h.Owner = fmt.Sprintf("%s %s/%s", ref.Kind, wl.Namespace, ref.Name)
			if ref.Kind == "RayJob" && !h.Leaving {
				job, err := c.Ray.RayV1().RayJobs(wl.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
				h.Leaving = apierrors.IsNotFound(err) || err == nil && (job.UID != ref.UID || job.DeletionTimestamp != nil)
			}
		}
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Workload < out[j].Workload })
	return out, nil
}

// HoldersError says which workloads hold a ClusterQueue, a handful by name and the rest as a count.
func HoldersError(cq, host string, hs []Holder) error {
	const shown = 5
	var names []string
	for i, h := range hs {
		if i == shown {
			names = append(names, fmt.Sprintf("and %d more", len(hs)-shown))
			break
		}
		if h.Owner != "" {
			names = append(names, fmt.Sprintf("%s (of %s)", h.Workload, h.Owner))
		} else {
			names = append(names, h.Workload)
		}
	}
	copies := ""
	for _, h := range hs {
		if h.Origin != "" {
			// Kueue's manager deletes a worker's copy once its own job is gone, but only while it reaches the worker:
			// its garbage collection (once a minute) skips a worker it has lost or no longer lists.
			copies = fmt.Sprintf(" At least one is a copy a MultiKueue manager (origin %q) placed here: it deletes such copies within "+
				"a minute of its own job going while it still reaches this cluster; a copy left after the manager stopped "+
				"listing this cluster stays until deleted by hand.", h.Origin)
			break
		}
	}
	return fmt.Errorf("ClusterQueue %s on %s still holds quota for %d workload(s): %s.%s Delete those jobs "+
		"(or let them finish; kubectl get workloads -A shows them), then destroy again", cq, host, len(hs), strings.Join(names, ", "), copies)
}

// WaitReleased waits while the only holders are leaving, and returns those that are not (none: the ClusterQueue
// is free to go).
func WaitReleased(ctx context.Context, c *kube.Clients, cq string) ([]Holder, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		hs, err := FindHolders(ctx, c, cq)
		if err != nil {
			return nil, err
		}
		var staying []Holder
		for _, h := range hs {
			if !h.Leaving {
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
