package kueueuse

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

// WaitReady waits until Kueue can serve: the release's controller Deployment (when Kueue runs in the cluster)
// is available, and a dry-run write passes through Kueue's webhooks.
func WaitReady(ctx context.Context, c *kube.Clients, ns, release string) error {
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
