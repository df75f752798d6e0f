//go:build !nohelm

package kueueinstall

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/helm"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

func (r *kueueInstallResource) connect(ctx context.Context, m *kueueInstallModel, diags *diag.Diagnostics) (*kube.Clients, *helm.Client, bool) {
	c, ok := clusterscope.Kube(ctx, r.clients, m.Cluster, m.Project, m.Location, diags)
	if !ok {
		return nil, nil, false
	}
	h, err := helm.New(c.Config, m.Namespace.ValueString(), func(line string) { tflog.Debug(ctx, line) })
	if err != nil {
		diags.AddError("connecting Helm to the cluster", err.Error())
		return nil, nil, false
	}
	return c, h, true
}

// kueueInUse names the ClusterQueues and counts the Workloads on the cluster ("" when there are none, or when Kueue's
// API is not there at all).
func kueueInUse(ctx context.Context, c *kube.Clients) (string, error) {
	api := c.Kueue.KueueV1beta2()
	var cqs *kueue.ClusterQueueList
	err := kube.Retry(ctx, func() (err error) { cqs, err = api.ClusterQueues().List(ctx, metav1.ListOptions{}); return err })
	if kube.APIMissing(err) {
		return "", nil
	}
	if err != nil {
		return "", c.Explain("ClusterQueue", "*", err)
	}
	var wls *kueue.WorkloadList
	if err := kube.Retry(ctx, func() (err error) {
		wls, err = api.Workloads(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		return err
	}); err != nil && !kube.APIMissing(err) {
		return "", c.Explain("Workload", "*", err)
	}
	var names []string
	for i, cq := range cqs.Items {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(cqs.Items)-5))
			break
		}
		names = append(names, cq.Name)
	}
	nWorkloads := 0
	if wls != nil {
		nWorkloads = len(wls.Items)
	}
	if len(names) == 0 && nWorkloads == 0 {
		return "", nil
	}
	return fmt.Sprintf("%d ClusterQueue(s) (%s) and %d workload(s)", len(cqs.Items), strings.Join(names, ", "), nWorkloads), nil
}
