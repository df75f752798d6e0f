package computeclass

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeclass"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// putComputeClass creates the class, or replaces the spec of have, the one there: the spec is the provider's, so a
// field someone added by hand goes, as the plan said.
func putComputeClass(ctx context.Context, c *kube.Clients, have, want *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	api := c.Dynamic.Resource(gkeclass.GVR)
	opts := metav1.CreateOptions{FieldManager: kube.FieldManager}
	if have == nil {
		u, err := api.Create(ctx, want, opts)
		if apierrors.IsNotFound(err) {
			return nil, errNoComputeClasses
		}
		return u, c.Explain("ComputeClass", want.GetName(), err)
	}
	// GKE's autoscaler writes the class's status beside us, which moves the object's resourceVersion, so a write from
	// a read a moment old can conflict: the spec is then put on the class as it is now.
	var u *unstructured.Unstructured
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var err error
		have.Object["spec"] = want.Object["spec"]
		if u, err = api.Update(ctx, have, metav1.UpdateOptions{FieldManager: kube.FieldManager}); !apierrors.IsConflict(err) {
			return err
		}
		if now, gerr := api.Get(ctx, want.GetName(), metav1.GetOptions{}); gerr == nil {
			have = now
		}
		return err
	})
	return u, c.Explain("ComputeClass", want.GetName(), err)
}

// classReportWait bounds the wait for GKE's report on a class written, and classFirstReportWait the wait for any
// status at all: GKE's autoscaler answers within seconds, and a cluster without it (reached through the provider's
// kubernetes block) never does.
const (
	classReportWait      = time.Minute
	classFirstReportWait = 10 * time.Second
)

// waitClassReported waits until GKE's autoscaler has reported on u's generation (its Health condition's
// observedGeneration), so that the health an apply writes is the one the next refresh reads: written before the
// report, it was "" and every fresh apply planned a change. It returns the class as last read, and whether the
// report came.
func waitClassReported(ctx context.Context, c *kube.Clients, u *unstructured.Unstructured) (*unstructured.Unstructured, bool, error) {
	wctx, cancel := context.WithTimeout(ctx, classReportWait)
	defer cancel()
	start, last := time.Now(), u
	for {
		if classReported(last) {
			return last, true, nil
		}
		if _, hasStatus := last.Object["status"]; !hasStatus && time.Since(start) > classFirstReportWait {
			return last, false, nil
		}
		select {
		case <-wctx.Done():
			return last, false, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		got, err := gkeclass.Find(wctx, c, u.GetName())
		if err != nil && wctx.Err() == nil {
			return last, false, err
		}
		if got != nil {
			last = got
		}
	}
}

// classReported says the class's Health condition speaks of its current generation.
func classReported(u *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] != "Health" {
			continue
		}
		g, ok, _ := unstructured.NestedInt64(m, "observedGeneration")
		return ok && g >= u.GetGeneration()
	}
	return false
}

// deleteComputeClass deletes the class and waits until it is gone.
func deleteComputeClass(ctx context.Context, c *kube.Clients, name string) error {
	err := c.Dynamic.Resource(gkeclass.GVR).Delete(ctx, name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return c.Explain("ComputeClass", name, err)
	}
	for {
		u, err := gkeclass.Find(ctx, c, name)
		if err != nil || u == nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("ComputeClass %s is still being deleted: %w", name, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// classPoolProblems says, in the words of GKE's ComputeClass status, why pools the class names cannot serve it: a
// pool that does not exist or does not autoscale, one without the class's label or taint, or one that joined another
// class. GKE would accept the class and report these in its status; the provider refuses them before writing.
func classPoolProblems(ctx context.Context, m *computeClassModel, pools map[string]*containerpb.NodePool) []string {
	class := m.Name.ValueString()
	var out []string
	seen := map[string]bool{}
	for _, p := range m.Priorities {
		var names []string
		p.Nodepools.ElementsAs(ctx, &names, false)
		for _, name := range names {
			if seen[name] {
				continue
			}
			seen[name] = true
			np := pools[name]
			if np == nil || !np.GetAutoscaling().GetEnabled() {
				out = append(out, fmt.Sprintf("Nodepool %v specified by name has autoscaling disabled or doesn't exist in the cluster.", name))
				continue
			}
			if np.GetQueuedProvisioning().GetEnabled() {
				out = append(out, fmt.Sprintf("Node pool %s uses queued provisioning: the cluster autoscaler grows it only for ProvisioningRequests, "+
					"never for a class's pods. Make it flex_start.provisioning = \"flex-start-unqueued\".", name))
				continue
			}
			if label, ok := np.GetConfig().GetLabels()[wellknown.ComputeClassLabel]; !ok || label != class {
				has := "none"
				if ok {
					has = fmt.Sprintf("%q", label)
				}
				out = append(out, fmt.Sprintf("Node pool %s does not carry the label %s=%s (it has %s): set compute_class = %q on its pool pair.",
					name, wellknown.ComputeClassLabel, class, has, class))
				continue
			}
			if !gke.HasClassTaint(np, class) {
				out = append(out, fmt.Sprintf("Crd taint is missing for the nodepool %v. It needs %s=%s:NoSchedule: set compute_class = %q on its pool pair.",
					name, wellknown.ComputeClassLabel, class, class))
			}
		}
	}
	sort.Strings(out)
	return out
}

// checkClassPools refuses a class whose named pools cannot serve it. With the provider's kubernetes block there is no
// GKE cluster to ask, and nothing is checked.
func (r *computeClassResource) checkClassPools(ctx context.Context, m *computeClassModel, diags *diag.Diagnostics) bool {
	named := false
	for _, p := range m.Priorities {
		named = named || !p.Nodepools.IsNull()
	}
	if !named || m.Cluster.IsNull() {
		return true
	}
	client, ref, ok := clusterscope.GKE(ctx, r.clients, m.Cluster, m.Project, m.Location, path.Root("cluster"), diags)
	if !ok {
		return false
	}
	pools, err := gke.ListPools(ctx, client, ref.String())
	if err != nil {
		diags.AddError("listing the cluster's node pools", err.Error())
		return false
	}
	if problems := classPoolProblems(ctx, m, pools); len(problems) > 0 {
		diags.AddAttributeError(path.Root("priorities"), "Node pools cannot serve the ComputeClass",
			fmt.Sprintf("ComputeClass %s names node pools of %s that GKE would report as misconfigured:\n- %s",
				m.Name.ValueString(), ref, strings.Join(problems, "\n- ")))
		return false
	}
	return true
}

var errNoComputeClasses = errors.New("the cluster serves no ComputeClass API (cloud.google.com/v1): GKE installs it on every cluster from 1.30.3-gke.1451000")
