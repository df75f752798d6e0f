package multikueue

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/drift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	mk "github.com/dwsfallback/terraform-provider-dwsfallback/internal/multikueue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
)

// workerEndpoint is how the manager reaches the worker: the API server URL and CA that GKE reports for it; nil when
// GKE has no such cluster.
type workerEndpoint struct {
	ref    clusterscope.Ref
	server string
	ca     []byte
	// stopping: GKE is deleting the cluster, whose objects go with it.
	stopping bool
}

func (r *multiKueueWorkerResource) findWorker(ctx context.Context, m *multiKueueWorkerModel) (*workerEndpoint, error) {
	ref, err := clusterscope.Resolve(m.WorkerCluster.ValueString(), "", "", r.clients)
	if err != nil {
		return nil, fmt.Errorf("worker_cluster: %w", err)
	}
	client, err := r.clients.GKE(ctx)
	if err != nil {
		return nil, fmt.Errorf("connecting to GKE: %w", err)
	}
	cl, err := gke.FindCluster(ctx, client, ref.String())
	if gke.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading worker cluster %s: %w", ref, err)
	}
	return endpointOf(ref, cl)
}

func endpointOf(ref clusterscope.Ref, cl *containerpb.Cluster) (*workerEndpoint, error) {
	ca, err := base64.StdEncoding.DecodeString(cl.GetMasterAuth().GetClusterCaCertificate())
	if err != nil {
		return nil, fmt.Errorf("worker cluster %s reports a CA that is not base64: %w", ref, err)
	}
	return &workerEndpoint{ref: ref, server: "https://" + cl.GetEndpoint(), ca: ca, stopping: cl.GetStatus() == containerpb.Cluster_STOPPING}, nil
}

// makeCredentials makes the worker's ServiceAccount, its rights and token, and returns the kubeconfig for the manager
// and the rights as the worker answered (nil, with a warning, when they could not be read back: what was made
// stands, only its drift is not recorded).
func (r *multiKueueWorkerResource) makeCredentials(ctx context.Context, m *multiKueueWorkerModel, managerHost string, diags *diag.Diagnostics) ([]byte, *workerAccess, error) {
	ep, err := r.findWorker(ctx, m)
	if err == nil && ep == nil {
		err = fmt.Errorf("GKE has no worker cluster %s", m.WorkerCluster.ValueString())
	}
	if err != nil {
		return nil, nil, err
	}
	w, err := r.clients.Kube(ctx, ep.ref)
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to the worker %s: %w", ep.ref, err)
	}
	token, err := mk.Ensure(ctx, mk.Clients{Core: w.Core, RBAC: w.RBAC}, m.workerOf(managerHost))
	if err != nil {
		return nil, nil, fmt.Errorf("on the worker %s: %w", ep.ref, w.Explain("ServiceAccount", m.ServiceAccount.ValueString(), err))
	}
	kubeconfig := mk.Kubeconfig(ep.server, ep.ca, token)
	role, binding, err := mk.Access(ctx, w.RBAC, m.worker())
	if err != nil {
		diags.AddWarning("Drift not recorded", fmt.Sprintf("The ClusterRole and ClusterRoleBinding on the worker %s were written, but "+
			"could not be read back, so changes made to them and to the worker's ServiceAccount beside Terraform are not compared until the next apply: %v", ep.ref, err))
		return kubeconfig, nil, nil
	}
	return kubeconfig, workerRights(w, m, role, binding), nil
}

// credentialsCurrent reports whether the manager's Secret still reaches the worker as it is now (its endpoint, CA and
// the ServiceAccount's current token) with the rights Kueue's manager uses there (a ClusterRole made by Kueue's script
// alone lacks some). A kubeconfig the user brought is never stored: the Secret is compared with the fingerprint of
// the one written (written), and without one it is current while the Secret holds a kubeconfig. An imported worker
// (worker_cluster unknown) is found by the Secret's server.
//
// The worker's ClusterRole and ClusterRoleBinding, when read, come back in access, for their drift, with what an apply
// would change on its ServiceAccount.
func (r *multiKueueWorkerResource) credentialsCurrent(ctx context.Context, c *kube.Clients, m *multiKueueWorkerModel, written *mk.Fingerprint) (bool, *workerAccess, error) {
	kc, found, err := mk.SecretKubeconfig(ctx, c.Core, m.SecretName.ValueString())
	if err != nil {
		return false, nil, c.Explain("MultiKueueCluster", m.Name.ValueString(), err)
	}
	if m.WorkerCluster.IsNull() && found {
		if err := r.adoptWorker(ctx, m, mk.Server(kc)); err != nil {
			return false, nil, err
		}
	}
	if !found || len(kc) == 0 {
		return false, nil, nil
	}
	if m.bringsKubeconfig() {
		return written == nil || written.Matches(kc), nil, nil
	}
	ep, err := r.findWorker(ctx, m)
	if err != nil || ep == nil {
		return false, nil, err
	}
	w, err := r.clients.Kube(ctx, ep.ref)
	if err != nil {
		return false, nil, &unreachable{ep.ref, err}
	}
	role, binding, err := mk.Access(ctx, w.RBAC, m.worker())
	var sa *corev1.ServiceAccount
	if err == nil {
		sa, err = mk.Account(ctx, w.Core, m.worker())
	}
	if err != nil {
		return false, nil, &unreachable{ep.ref, err}
	}
	access := workerRights(w, m, role, binding)
	access.account, access.accountErr = accountChanges(sa, m.workerOf(c.Host))
	token, err := mk.TokenOf(ctx, w.Core, m.worker(), sa)
	if err != nil {
		return false, nil, &unreachable{ep.ref, w.Explain("ServiceAccount", m.ServiceAccount.ValueString(), err)}
	}
	if len(token) == 0 || !mk.Matches(kc, ep.server, ep.ca, token) {
		return false, access, nil
	}
	return mk.GrantedBy(role, binding, m.worker()), access, nil
}

// workerAccess is what the provider wrote on the worker that the drift compares: its ClusterRole and
// ClusterRoleBinding as read from the worker (c, objs, those that are there), and as written (written, by key); and
// what an apply would change on its ServiceAccount (account).
type workerAccess struct {
	c       *kube.Clients
	objs    []tfdrift.Object
	written map[string]tfdrift.Object
	account []string
	// accountErr says why the ServiceAccount could not be compared.
	accountErr error
}

// accountChanges names what an apply would change on the worker's ServiceAccount sa: its one label and its entry
// among the users, which other managers share, so no baseline of the whole annotation can say what is ours. A
// missing ServiceAccount is named by credentials_current (its token is gone with it).
func accountChanges(sa *corev1.ServiceAccount, w mk.Worker) ([]string, error) {
	if sa == nil {
		return nil, nil
	}
	want, err1 := runtime.DefaultUnstructuredConverter.ToUnstructured(mk.EnsuredAccount(sa, w))
	live, err2 := runtime.DefaultUnstructuredConverter.ToUnstructured(sa)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("ServiceAccount %s/%s: %w", sa.Namespace, sa.Name, err)
	}
	var out []string
	for _, c := range drift.Changes(want, live) {
		out = append(out, "ServiceAccount/"+sa.Namespace+"/"+sa.Name+" "+c)
	}
	return out, nil
}

func workerRights(c *kube.Clients, m *multiKueueWorkerModel, role *rbacv1.ClusterRole, binding *rbacv1.ClusterRoleBinding) *workerAccess {
	wantRole, wantBinding := mk.Rights(m.worker())
	roleKey, bindingKey := "ClusterRole/"+wantRole.Name, "ClusterRoleBinding/"+wantBinding.Name
	roleGVK, bindingGVK := rbacv1.SchemeGroupVersion.WithKind("ClusterRole"), rbacv1.SchemeGroupVersion.WithKind("ClusterRoleBinding")
	a := &workerAccess{c: c, written: map[string]tfdrift.Object{
		roleKey:    {Key: roleKey, GVK: roleGVK, Obj: wantRole},
		bindingKey: {Key: bindingKey, GVK: bindingGVK, Obj: wantBinding},
	}}
	if role != nil {
		a.objs = append(a.objs, tfdrift.Object{Key: roleKey, GVK: roleGVK, Obj: role})
	}
	if binding != nil {
		a.objs = append(a.objs, tfdrift.Object{Key: bindingKey, GVK: bindingGVK, Obj: binding})
	}
	return a
}

// unreachable is a worker GKE lists whose API server did not answer a refresh (an outage, an upgrade): the refresh
// goes on, with a warning, rather than block every plan of the configuration.
type unreachable struct {
	ref clusterscope.Ref
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
	ref, found, err := clusterscope.At(ctx, r.clients, project, server)
	if err != nil {
		return err
	}
	if found {
		m.WorkerCluster = types.StringValue(ref.String())
		return nil
	}
	return fmt.Errorf("no GKE cluster of project %s has the endpoint %s that Secret %s/%s reaches: set worker_cluster in the configuration and import again",
		project, server, mk.KueueNamespace, m.SecretName.ValueString())
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
