package multikueue

import (
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	mk "github.com/dwsfallback/terraform-provider-dwsfallback/internal/multikueue"
)

type multiKueueWorkerModel struct {
	ID                  types.String   `tfsdk:"id"`
	Cluster             types.String   `tfsdk:"cluster"`
	Project             types.String   `tfsdk:"project"`
	Location            types.String   `tfsdk:"location"`
	Name                types.String   `tfsdk:"name"`
	WorkerCluster       types.String   `tfsdk:"worker_cluster"`
	Config              types.String   `tfsdk:"config"`
	ServiceAccount      types.String   `tfsdk:"service_account"`
	SecretName          types.String   `tfsdk:"secret_name"`
	KubeconfigWO        types.String   `tfsdk:"kubeconfig_wo"`
	KubeconfigWOVersion types.Int64    `tfsdk:"kubeconfig_wo_version"`
	CredentialsCurrent  types.Bool     `tfsdk:"credentials_current"`
	Active              types.Bool     `tfsdk:"active"`
	ActiveReason        types.String   `tfsdk:"active_reason"`
	ActiveMessage       types.String   `tfsdk:"active_message"`
	Drift               types.List     `tfsdk:"drift"`
	Timeouts            timeouts.Value `tfsdk:"timeouts"`
}

// defaultSecretName is secret_name when the configuration leaves it out.
func defaultSecretName(name string) string { return name + "-kubeconfig" }

// bringsKubeconfig reports whether the user supplies the kubeconfig (kubeconfig_wo) instead of the provider making
// the worker's ServiceAccount.
func (m *multiKueueWorkerModel) bringsKubeconfig() bool { return !m.KubeconfigWOVersion.IsNull() }

func (m *multiKueueWorkerModel) worker() mk.Worker {
	return mk.Worker{ServiceAccount: m.ServiceAccount.ValueString()}
}

// workerOf is worker() as the user of its ServiceAccount: the MultiKueueCluster's id, which names the manager's GKE
// cluster, or with the provider's kubernetes block (an id of the name alone) the manager's host and the name.
func (m *multiKueueWorkerModel) workerOf(managerHost string) mk.Worker {
	w := m.worker()
	if id := m.ID.ValueString(); strings.Contains(id, "/") {
		w.User = id
	} else {
		w.User = managerHost + "/" + id
	}
	return w
}

// flattenWorker records what Kueue says of the MultiKueueCluster, and the Secret it names.
func flattenWorker(m *multiKueueWorkerModel, mkc *kueue.MultiKueueCluster) {
	active, reason, msg := mk.Active(mkc)
	m.Active, m.ActiveReason, m.ActiveMessage = types.BoolValue(active), types.StringValue(reason), types.StringValue(msg)
	if kc := mkc.Spec.ClusterSource.KubeConfig; kc != nil {
		m.SecretName = types.StringValue(kc.Location)
	} else {
		m.SecretName = types.StringValue("")
	}
}
