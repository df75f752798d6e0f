package provider

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/multikueue"
)

// workerEndpoint is how the manager reaches the worker: the API server URL and CA that GKE reports for it; nil when
// GKE has no such cluster.
type workerEndpoint struct {
	ref    clusterRef
	server string
	ca     []byte
	// stopping: GKE is deleting the cluster, whose objects go with it.
	stopping bool
}

func (r *multiKueueWorkerResource) findWorker(ctx context.Context, m *multiKueueWorkerModel) (*workerEndpoint, error) {
	ref, err := resolveCluster(m.WorkerCluster.ValueString(), "", "", r.clients)
	if err != nil {
		return nil, fmt.Errorf("worker_cluster: %w", err)
	}
	client, err := r.clients.GKE(ctx)
	if err != nil {
		return nil, fmt.Errorf("connecting to GKE: %w", err)
	}
	cl, err := findCluster(ctx, client, ref)
	if gke.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading worker cluster %s: %w", ref, err)
	}
	return endpointOf(ref, cl)
}

func endpointOf(ref clusterRef, cl *containerpb.Cluster) (*workerEndpoint, error) {
	ca, err := base64.StdEncoding.DecodeString(cl.GetMasterAuth().GetClusterCaCertificate())
	if err != nil {
		return nil, fmt.Errorf("worker cluster %s reports a CA that is not base64: %w", ref, err)
	}
	return &workerEndpoint{ref: ref, server: "https://" + cl.GetEndpoint(), ca: ca, stopping: cl.GetStatus() == containerpb.Cluster_STOPPING}, nil
}

// makeCredentials makes the worker's ServiceAccount, its rights and token, and returns the kubeconfig for the manager.
func (r *multiKueueWorkerResource) makeCredentials(ctx context.Context, m *multiKueueWorkerModel, managerHost string) ([]byte, error) {
	ep, err := r.findWorker(ctx, m)
	if err == nil && ep == nil {
		err = fmt.Errorf("GKE has no worker cluster %s", m.WorkerCluster.ValueString())
	}
	if err != nil {
		return nil, err
	}
	w, err := r.clients.Kube(ctx, ep.ref)
	if err != nil {
		return nil, fmt.Errorf("connecting to the worker %s: %w", ep.ref, err)
	}
	token, err := multikueue.Ensure(ctx, multikueue.Clients{Core: w.Core, RBAC: w.RBAC}, m.workerOf(managerHost))
	if err != nil {
		return nil, fmt.Errorf("on the worker %s: %w", ep.ref, w.Explain("ServiceAccount", m.ServiceAccount.ValueString(), err))
	}
	return multikueue.Kubeconfig(ep.server, ep.ca, token), nil
}

// credentialsCurrent reports whether the manager's Secret still reaches the worker as it is now (its endpoint, CA and
// the ServiceAccount's current token) with the rights Kueue's manager uses there (a ClusterRole made by Kueue's script
// alone lacks some). A kubeconfig the user brought is never stored: the Secret is compared with the fingerprint of
// the one written (written), and without one it is current while the Secret holds a kubeconfig. An imported worker
// (worker_cluster unknown) is found by the Secret's server.
func (r *multiKueueWorkerResource) credentialsCurrent(ctx context.Context, c *kube.Clients, m *multiKueueWorkerModel, written *multikueue.Fingerprint) (bool, error) {
	kc, found, err := multikueue.SecretKubeconfig(ctx, c.Core, m.SecretName.ValueString())
	if err != nil {
		return false, c.Explain("MultiKueueCluster", m.Name.ValueString(), err)
	}
	if m.WorkerCluster.IsNull() && found {
		if err := r.adoptWorker(ctx, m, multikueue.Server(kc)); err != nil {
			return false, err
		}
	}
	if !found || len(kc) == 0 {
		return false, nil
	}
	if m.bringsKubeconfig() {
		return written == nil || written.Matches(kc), nil
	}
	ep, err := r.findWorker(ctx, m)
	if err != nil || ep == nil {
		return false, err
	}
	w, err := r.clients.Kube(ctx, ep.ref)
	if err != nil {
		return false, &unreachable{ep.ref, err}
	}
	token, err := multikueue.Token(ctx, w.Core, m.worker())
	if err != nil {
		return false, &unreachable{ep.ref, w.Explain("ServiceAccount", m.ServiceAccount.ValueString(), err)}
	}
	if len(token) == 0 || !multikueue.Matches(kc, ep.server, ep.ca, token) {
		return false, nil
	}
	granted, err := multikueue.Granted(ctx, w.RBAC, m.worker())
	if err != nil {
		return false, &unreachable{ep.ref, err}
	}
	return granted, nil
}

// unreachable is a worker GKE lists whose API server did not answer a refresh (an outage, an upgrade): the refresh
// goes on, with a warning, rather than block every plan of the configuration.
type unreachable struct {
	ref clusterRef
	err error
}

func (u *unreachable) Error() string {
	return fmt.Sprintf("the worker %s did not answer, so its credentials could not be compared: %v", u.ref, u.err)
}

// adoptWorker sets worker_cluster, on import, to the GKE cluster (in the manager's project) whose endpoint the
// kubeconfig reaches.
func (r *multiKueueWorkerResource) adoptWorker(ctx context.Context, m *multiKueueWorkerModel, server string) error {
	project, _ := r.clients.Defaults()
	if !m.Project.IsNull() && m.Project.ValueString() != "" {
		project = m.Project.ValueString()
	}
	ref, found, err := clusterAt(ctx, r.clients, project, server)
	if err != nil {
		return err
	}
	if found {
		m.WorkerCluster = types.StringValue(ref.String())
		return nil
	}
	return fmt.Errorf("no GKE cluster of project %s has the endpoint %s that Secret %s/%s reaches: set worker_cluster in the configuration and import again",
		project, server, multikueue.KueueNamespace, m.SecretName.ValueString())
}

// workerGone reports whether GKE has deleted the worker cluster, or is deleting it: a removal that failed because the
// cluster went meanwhile (a destroy deletes it beside this resource when a failed apply left the old worker_cluster
// in state, but the new configuration's dependencies) has nothing left to remove.
func (r *multiKueueWorkerResource) workerGone(ctx context.Context, workerCluster string) bool {
	// Its own time: the removal may have used up the caller's on an endpoint that no longer answers.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	ep, err := r.findWorker(ctx, &multiKueueWorkerModel{WorkerCluster: types.StringValue(workerCluster)})
	return err == nil && (ep == nil || ep.stopping)
}
