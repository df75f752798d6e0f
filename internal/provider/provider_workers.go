package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/multikueue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/ttlcache"
)

// followWorker makes manager's clients reach its MultiKueue workers: the MultiKueueCluster's Secret names the
// worker's endpoint, and the GKE cluster of the manager's project with that endpoint is reached with the provider's
// own credentials (never the Secret's token). Workers in other projects are not followed.
func (d *providerData) followWorker(manager clusterscope.Ref, c *kube.Clients) {
	// Remembered for a while: a refresh of many dispatched jobs looks each worker up once, not once per job.
	found := ttlcache.New[string, *kube.Clients](workerSeenFor)
	c.Worker = func(ctx context.Context, name string) (*kube.Clients, error) {
		return found.Get(name, func() (*kube.Clients, error) { return d.findWorker(ctx, manager, c, name) })
	}
}

// workerSeenFor is how long a worker found stays found: a MultiKueueCluster moved to another cluster is followed
// after that.
const workerSeenFor = time.Minute

// findWorker reaches the worker MultiKueueCluster name stands for, on manager (clients c).
func (d *providerData) findWorker(ctx context.Context, manager clusterscope.Ref, c *kube.Clients, name string) (*kube.Clients, error) {
	mkc, err := multikueue.FindCluster(ctx, c.Kueue, name)
	if err != nil {
		return nil, err
	}
	if mkc == nil || mkc.Spec.ClusterSource.KubeConfig == nil {
		return nil, fmt.Errorf("MultiKueueCluster %s names no kubeconfig Secret", name)
	}
	kc, found, err := multikueue.SecretKubeconfig(ctx, c.Core, mkc.Spec.ClusterSource.KubeConfig.Location)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("the kubeconfig Secret of MultiKueueCluster %s is not there", name)
	}
	ref, found, err := clusterscope.At(ctx, d, manager.Project, multikueue.Server(kc))
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("no GKE cluster of project %s serves MultiKueueCluster %s", manager.Project, name)
	}
	return d.Kube(ctx, ref)
}
