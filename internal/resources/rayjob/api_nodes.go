package rayjob

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeclass"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

const (
	// autoscalerSource is the event source of GKE's cluster autoscaler.
	autoscalerSource = "cluster-autoscaler"
	// noNodeGrace lets a scale-up that the autoscaler has just started, or the scheduler's next try, arrive before a
	// wait calls a pod stuck.
	noNodeGrace = 20 * time.Second
)

// jobPods lists the pods of the job's RayCluster (head and workers); none before KubeRay has made one.
func jobPods(ctx context.Context, c *kube.Clients, job *rayv1.RayJob) ([]corev1.Pod, error) {
	if job.Status.RayClusterName == "" {
		return nil, nil
	}
	list, err := c.Core.Pods(job.Namespace).List(ctx, metav1.ListOptions{LabelSelector: wellknown.RayClusterLabel + "=" + job.Status.RayClusterName})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// poolsOfUnpinnedPods reads the pool of each node that runs a pod that selects a ComputeClass and no pool. Credentials
// that may not read nodes leave those pods counted under "(no pool selector)", as before.
func poolsOfUnpinnedPods(ctx context.Context, c *kube.Clients, pods []corev1.Pod) (map[string]string, error) {
	var out map[string]string
	for _, p := range pods {
		node, sel := p.Spec.NodeName, p.Spec.NodeSelector
		if node == "" || sel[wellknown.NodePoolLabel] != "" || sel[wellknown.ComputeClassLabel] == "" || out[node] != "" {
			continue
		}
		n, err := c.Core.Nodes().Get(ctx, node, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = map[string]string{}
		}
		out[node] = n.Labels[wellknown.NodePoolLabel]
	}
	return out, nil
}

// nodeCounts is, per node pool, how many distinct nodes run the pods. The pool is the one the pod's node selector
// names (the scheduler placed the pod on a node with that label, so no node needs reading), else its node's pool
// from nodePools.
func nodeCounts(pods []corev1.Pod, nodePools map[string]string) types.Map {
	nodes := map[string]map[string]bool{}
	for _, p := range pods {
		if p.Spec.NodeName == "" || p.DeletionTimestamp != nil {
			continue
		}
		pool := p.Spec.NodeSelector[wellknown.NodePoolLabel]
		if pool == "" {
			pool = nodePools[p.Spec.NodeName]
		}
		if pool == "" {
			pool = "(no pool selector)"
		}
		if nodes[pool] == nil {
			nodes[pool] = map[string]bool{}
		}
		nodes[pool][p.Spec.NodeName] = true
	}
	out := map[string]attr.Value{}
	for pool, ns := range nodes {
		out[pool] = types.Int64Value(int64(len(ns)))
	}
	return types.MapValueMust(types.Int64Type, out)
}

// noNodeFor returns why the job's pods cannot get nodes, in GKE's words, when the cluster autoscaler has said so: a
// failed scale-up (a zone out of capacity), or no node group that could take a pod that has pended past the grace
// (pool at its maximum, a taint the pod does not tolerate, a selector no pool matches). "" while a node may come.
func noNodeFor(ctx context.Context, c *kube.Clients, pods []corev1.Pod, now time.Time) (string, error) {
	pending := map[string]*corev1.Pod{}
	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName == "" && p.DeletionTimestamp == nil {
			pending[string(p.UID)] = p
		}
	}
	if len(pending) == 0 {
		return "", nil
	}
	events, err := c.Core.Events(pods[0].Namespace).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("source", autoscalerSource).String(),
	})
	if err != nil {
		return "", err
	}
	latest, failed := map[string]corev1.Event{}, map[string]corev1.Event{}
	for _, e := range events.Items {
		uid := string(e.InvolvedObject.UID)
		if pending[uid] == nil {
			continue
		}
		if cur, ok := latest[uid]; !ok || eventTime(e).After(eventTime(cur)) {
			latest[uid] = e
		}
		if cur, ok := failed[uid]; e.Reason == "FailedScaleUp" && (!ok || eventTime(e).After(eventTime(cur))) {
			failed[uid] = e
		}
	}
	uids := make([]string, 0, len(latest))
	for uid := range latest {
		uids = append(uids, uid)
	}
	sort.Strings(uids)
	for _, uid := range uids {
		e, p := latest[uid], pending[uid]
		// A failed scale-up of a class's priority is not the end: GKE tries the next one. The pod is stuck when the
		// autoscaler finds no priority left to try (all backed off, or none that fits).
		if class := p.Spec.NodeSelector[wellknown.ComputeClassLabel]; class != "" {
			if e.Reason == "NotTriggerScaleUp" && now.Sub(pendingSince(p)) >= noNodeGrace {
				return stuckMessage(p, e.Message, classStatusWords(ctx, c, class)), nil
			}
			continue
		}
		// A pool backed off after a failed scale-up is skipped until the backoff ends: the failure is the reason.
		if f, ok := failed[uid]; ok && e.Reason == "NotTriggerScaleUp" && strings.Contains(e.Message, "in backoff after failed scale-up") {
			e = f
		}
		switch {
		case e.Reason == "FailedScaleUp" && strings.Contains(e.Message, reservationCapacityExceeded):
			return stuckMessage(p, e.Message, "The reservation the pool takes its nodes from has no room left, and the pool takes "+
				"nodes from it only: keep this flavor's quota in dwsfallback_kueue_queue within the reservation (the pool pair's "+
				"plan says what fits), so that Kueue sends the rest to the next flavor (e.g. dws), or free reserved VMs."), nil
		case e.Reason == "FailedScaleUp":
			return stuckMessage(p, e.Message, "GKE could not add nodes there. Kueue admitted the job on quota, not on capacity: "+
				"wait and apply again, or lower this flavor's quota in dwsfallback_kueue_queue to what the pool can really get, so "+
				"that Kueue falls back to the next flavor (e.g. dws) when it is used up."), nil
		case e.Reason == "NotTriggerScaleUp" && now.Sub(pendingSince(p)) >= noNodeGrace:
			return stuckMessage(p, e.Message, notTriggerAdvice(e.Message)), nil
		}
	}
	return "", nil
}

// classStatusWords is what GKE's status of the ComputeClass the pod selects says of its priorities: which are backed
// off, and why.
func classStatusWords(ctx context.Context, c *kube.Clients, class string) string {
	u, err := gkeclass.Find(ctx, c, class)
	if err != nil {
		return fmt.Sprintf("The pod selects ComputeClass %s, whose status cannot be read: %v.", class, err)
	}
	if u == nil {
		return fmt.Sprintf("The pod selects ComputeClass %s, which does not exist: GKE scales nothing up for it.", class)
	}
	var words []string
	prios, _, _ := unstructured.NestedSlice(u.Object, "status", "priorityStatuses")
	for _, it := range prios {
		ps, _ := it.(map[string]any)
		conds, _ := ps["conditions"].([]any)
		for _, cd := range conds {
			m, _ := cd.(map[string]any)
			msg, _ := m["message"].(string)
			words = append(words, fmt.Sprintf("priority %v: %v (%v): %s", ps["identifier"], m["type"], m["reason"], strings.TrimSuffix(msg, ".")))
		}
	}
	if len(words) == 0 {
		return fmt.Sprintf("ComputeClass %s reports no backed-off priority (%s).", class, gkeclass.Health(u))
	}
	return fmt.Sprintf("ComputeClass %s: %s. GKE tries the next priority while one is backed off; when none is left, "+
		"the pod waits (whenUnsatisfiable).", class, strings.Join(words, "; "))
}

// reservationCapacityExceeded is the class GKE's cluster autoscaler gives a scale-up that a full reservation refuses
// (kubernetes/autoscaler#7319).
const reservationCapacityExceeded = "RESERVATION_CAPACITY_EXCEEDED"

func notTriggerAdvice(msg string) string {
	switch {
	case strings.Contains(msg, "untolerated taint"):
		return "The pod does not tolerate that taint. RayJobs made by this provider tolerate google.com/tpu (or nvidia.com/gpu) and " +
			"cloud.google.com/gke-queued; a job made elsewhere needs both tolerations in its worker group."
	case strings.Contains(msg, "max node group size reached"):
		return "The pool is at its max_nodes: raise it in the pool pair, or keep the flavor's quota within what the " +
			"pool can hold, so that Kueue does not admit more than fits."
	default:
		return "No node pool has nodes this pod fits: check its node selectors and resource requests against the pools."
	}
}

func stuckMessage(p *corev1.Pod, event, advice string) string {
	where := "node pool " + orNone(p.Spec.NodeSelector[wellknown.NodePoolLabel])
	if class := p.Spec.NodeSelector[wellknown.ComputeClassLabel]; class != "" && p.Spec.NodeSelector[wellknown.NodePoolLabel] == "" {
		where = "ComputeClass " + class
	}
	return fmt.Sprintf("pod %s (%s) cannot get a node; GKE's cluster autoscaler: %q. %s", p.Name, where, event, advice)
}

// pendingSince is when the scheduler first found no node for the pod.
func pendingSince(p *corev1.Pod) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return c.LastTransitionTime.Time
		}
	}
	return p.CreationTimestamp.Time
}

func eventTime(e corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}

// errorIf is an error with the text, or nil for "".
func errorIf(text string) error {
	if text == "" {
		return nil
	}
	return errors.New(text)
}
