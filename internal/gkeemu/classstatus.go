package gkeemu

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// GKE's ComputeClass status words (GoogleCloudPlatform/cluster-autoscaler, pkg/computeclass/status): the class's
// Health, what is wrong with its pools, and per priority whether it is backed off.
const (
	condHealth                  = "Health"
	condNodepoolMisconfigured   = "NodepoolMisconfigured"
	condCrdMisconfigured        = "CrdMisconfigured"
	condProvisioningSuspended   = "ProvisioningSuspended"
	condProvisioningConstrained = "ProvisioningConstrained"
	reasonOutOfResources        = "OutOfResources"
	statusTimeFormat            = "2006-01-02 15:04:05 MST"
)

type classCondition struct{ typ, status, reason, message string }

// classConditions are the class-level conditions GKE reports: pools labelled for the class without its taint, pools
// a priority names that do not exist or do not autoscale, labelled pools that no priority matches when the class
// never scales up beyond its priorities, and Health over all of them.
func classConditions(c computeClass, targets []poolTarget) []classCondition {
	var bad []classCondition
	for _, t := range targets {
		if msg := poolMisconfigured(c.name, t); msg != "" {
			bad = append(bad, classCondition{condNodepoolMisconfigured, "True", misconfiguredReason(msg), msg})
		}
	}
	for _, pr := range c.priorities {
		for _, name := range pr.nodepools {
			ok := false
			for _, t := range targets {
				ok = ok || (t.pool == name && t.autoscaled)
			}
			if !ok {
				bad = append(bad, classCondition{condCrdMisconfigured, "True", "NodePoolNotExist",
					fmt.Sprintf("Nodepool %v specified by name has autoscaling disabled or doesn't exist in the cluster.", name)})
			}
		}
	}
	if c.whenUnsatisfiable != "ScaleUpAnyway" {
		for _, t := range targets {
			if t.cfg.GetLabels()[wellknown.ComputeClassLabel] != c.name || matchedByAny(c, t) {
				continue
			}
			bad = append(bad, classCondition{condNodepoolMisconfigured, "True", "NodepoolWillNeverScaleUp",
				fmt.Sprintf("Nodepool %v doesn't match any priority rule and Crd is configured to not scale up in that case", t.pool)})
		}
	}
	out := []classCondition{{condHealth, "True", "Health", "Crd is healthy."}}
	if len(bad) > 0 {
		out[0] = classCondition{condHealth, "False", "Health", "Crd is not healthy."}
	}
	// One condition per type, as metav1.Conditions are keyed: the first problem of each kind.
	seen := map[string]bool{}
	for _, b := range bad {
		if !seen[b.typ] {
			seen[b.typ] = true
			out = append(out, b)
		}
	}
	return out
}

func matchedByAny(c computeClass, t poolTarget) bool {
	probe := newNode(t, "probe", "")
	for _, pr := range c.priorities {
		if pr.matches(t, probe) {
			return true
		}
	}
	return false
}

// priorityConditions says whether priority i is backed off: the whole priority (ProvisioningSuspended) or pools of it
// (ProvisioningConstrained), in GKE's words.
func (a *Autoscaler) priorityConditions(c computeClass, i int, targets []poolTarget, now time.Time) []classCondition {
	if until := a.ruleBackoffs[ruleKey(c.name, i)]; now.Before(until) {
		return []classCondition{{condProvisioningSuspended, "True", reasonOutOfResources, fmt.Sprintf(
			"NodeProvisioning associated with this priority failed due to the %s error. Backing off the priority until %s.",
			reasonOutOfResources, until.UTC().Format(statusTimeFormat))}}
	}
	var until time.Time
	for _, t := range targets {
		if u := a.backedOff(t.key(), now); !u.IsZero() && c.priorities[i].matches(t, newNode(t, "probe", "")) && u.After(until) {
			until = u
		}
	}
	if until.IsZero() {
		return nil
	}
	return []classCondition{{condProvisioningConstrained, "True", reasonOutOfResources, fmt.Sprintf(
		"NodeProvisioning of the node pools associated with this priority failed due to the %s error. In backoff until %s.",
		reasonOutOfResources, until.UTC().Format(statusTimeFormat))}}
}

// writeClassStatus sets each class's status as GKE's autoscaler reports it, writing only what changed.
func (a *Autoscaler) writeClassStatus(ctx context.Context, classes map[string]computeClass, targets []poolTarget) {
	now := time.Now()
	for _, c := range classes {
		old, _, _ := unstructured.NestedMap(c.obj.Object, "status")
		prioStatuses := make([]any, len(c.priorities))
		for i := range c.priorities {
			prioStatuses[i] = map[string]any{
				"identifier": priorityID(i),
				"conditions": conditionList(a.priorityConditions(c, i, targets, now), oldPriorityConditions(old, i), c.generation, now),
			}
		}
		oldConds, _, _ := unstructured.NestedSlice(old, "conditions")
		status := map[string]any{
			"conditions":       conditionList(classConditions(c, targets), oldConds, c.generation, now),
			"priorityStatuses": prioStatuses,
		}
		if normalize(status) == normalize(old) {
			continue
		}
		u := c.obj.DeepCopy()
		u.Object["status"] = status
		_, _ = a.dyn.Resource(ComputeClassGVR).UpdateStatus(ctx, u, metav1.UpdateOptions{})
	}
}

func oldPriorityConditions(old map[string]any, i int) []any {
	list, _, _ := unstructured.NestedSlice(old, "priorityStatuses")
	for _, it := range list {
		m, _ := it.(map[string]any)
		if m["identifier"] == priorityID(i) {
			conds, _ := m["conditions"].([]any)
			return conds
		}
	}
	return nil
}

// conditionList renders conditions as metav1.Conditions, keeping a condition's lastTransitionTime while its status
// holds.
func conditionList(conds []classCondition, old []any, generation int64, now time.Time) []any {
	out := []any{}
	for _, c := range conds {
		since := now.UTC().Format(time.RFC3339)
		for _, o := range old {
			m, _ := o.(map[string]any)
			if m["type"] == c.typ && m["status"] == c.status {
				if t, ok := m["lastTransitionTime"].(string); ok {
					since = t
				}
			}
		}
		out = append(out, map[string]any{
			"type": c.typ, "status": c.status, "reason": c.reason, "message": c.message,
			"lastTransitionTime": since, "observedGeneration": generation,
		})
	}
	return out
}

// normalize prints a status, with map keys sorted, so that one read back from the API server compares with one built
// here whatever their number types.
func normalize(v any) string { return fmt.Sprintf("%v", v) }
