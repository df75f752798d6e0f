//go:build !nohelm

package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	corev1 "k8s.io/api/core/v1"
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

// waitKueueReady waits until Kueue can serve: the release's controller Deployment (when Kueue runs in the cluster)
// is available, and a dry-run write passes through Kueue's webhooks.
func waitKueueReady(ctx context.Context, c *kube.Clients, ns, release string) error {
	apps, err := appsv1client.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	deployment := release + "-controller-manager"
	probe := &kueue.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "dwsfallback-readiness-probe"}}
	var why string
	for {
		why = ""
		dep, err := apps.Deployments(ns).Get(ctx, deployment, metav1.GetOptions{})
		if err == nil && !deploymentAvailable(dep) {
			why = fmt.Sprintf("Deployment %s/%s is not available yet (%d of %d replicas ready)", ns, deployment, dep.Status.ReadyReplicas, dep.Status.Replicas)
		}
		if why == "" {
			_, err := c.Kueue.KueueV1beta2().ResourceFlavors().Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err == nil {
				return nil
			}
			why = "Kueue's webhook does not answer yet: " + err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("Kueue is not ready on %s: %s", c.Host, why)
		case <-time.After(time.Second):
		}
	}
}

func deploymentAvailable(d *appsv1.Deployment) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// kueueInUse names the ClusterQueues and counts the Workloads on the cluster ("" when there are none, or when Kueue's
// API is not there at all).
func kueueInUse(ctx context.Context, c *kube.Clients) (string, error) {
	api := c.Kueue.KueueV1beta2()
	var cqs *kueue.ClusterQueueList
	err := kube.Retry(ctx, func() (err error) { cqs, err = api.ClusterQueues().List(ctx, metav1.ListOptions{}); return err })
	if kueueMissing(err) {
		return "", nil
	}
	if err != nil {
		return "", c.Explain("ClusterQueue", "*", err)
	}
	var wls *kueue.WorkloadList
	if err := kube.Retry(ctx, func() (err error) {
		wls, err = api.Workloads(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		return err
	}); err != nil && !kueueMissing(err) {
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
