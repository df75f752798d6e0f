package rayjob

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/multikueue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/ttlcache"
)

// queueChanged: a new job, or one whose queue, namespace or elasticity changes; only those are looked up on the
// cluster, so that a plan of unchanged jobs makes no request.
func (r *rayJobResource) queueChanged(ctx context.Context, req resource.ModifyPlanRequest, m *rayJobModel) bool {
	if req.State.Raw.IsNull() {
		return true
	}
	var queue, namespace types.String
	var elastic types.Bool
	req.State.GetAttribute(ctx, path.Root("queue"), &queue)
	req.State.GetAttribute(ctx, path.Root("namespace"), &namespace)
	req.State.GetAttribute(ctx, path.Root("elastic"), &elastic)
	return !queue.Equal(m.Queue) || !namespace.Equal(m.Namespace) || !elastic.Equal(m.Elastic)
}

// refuseElasticOnMultiKueue refuses an elastic job whose queue dispatches to MultiKueue workers, when the queue is
// already on the cluster. Kueue's docs list "No Multikueue support" among elastic workloads' limitations, and at
// v0.17.0 the RayJob MultiKueue adapter (pkg/controller/jobs/rayjob/rayjob_multikueue_adapter.go) carries no workload
// slices: a scale-up on the worker would never be reflected on the manager.
func (r *rayJobResource) refuseElasticOnMultiKueue(ctx context.Context, m *rayJobModel, resp *resource.ModifyPlanResponse) {
	var quiet diag.Diagnostics // the cluster may not exist yet: then there is nothing to look at
	c, ok := clusterscope.Kube(ctx, r.clients, m.Cluster, m.Project, m.Location, &quiet)
	if !ok {
		return
	}
	check := queueCheck(ctx, c, m.Namespace.ValueString(), m.Queue.ValueString())
	if check == "" {
		return
	}
	resp.Diagnostics.AddAttributeError(path.Root("elastic"), "Elastic jobs cannot go to MultiKueue workers",
		fmt.Sprintf("LocalQueue %s/%s leads to a ClusterQueue with the MultiKueue admission check %s. Kueue's docs list \"No Multikueue "+
			"support\" among the limitations of elastic workloads, and Kueue v0.17's RayJob MultiKueue adapter carries no workload "+
			"slices. Set elastic = false and enable_in_tree_autoscaling = false (Kueue refuses Ray's autoscaler on a job that is not elastic).",
			m.Namespace.ValueString(), m.Queue.ValueString(), check))
}

// queueChecks remembers, for a few seconds, the MultiKueue check found behind each cluster's LocalQueue: a plan of many
// new jobs on one queue asks the cluster once.
var queueChecks = ttlcache.New[queueCheckKey, string](10 * time.Second)

type queueCheckKey struct {
	c                *kube.Clients
	namespace, queue string
}

// queueCheck is multikueue.QueueCheck, "" on an error: the check only refuses what it has seen.
func queueCheck(ctx context.Context, c *kube.Clients, namespace, queue string) string {
	check, err := queueChecks.Get(queueCheckKey{c, namespace, queue}, func() (string, error) {
		return multikueue.QueueCheck(ctx, c.Kueue, namespace, queue)
	})
	if err != nil {
		return ""
	}
	return check
}
