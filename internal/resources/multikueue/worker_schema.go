package multikueue

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/validators"
)

func (r *multiKueueWorkerResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "One worker cluster of a MultiKueue manager. On the worker: a ServiceAccount in `kueue-system`, the " +
			"ClusterRole and ClusterRoleBinding MultiKueue needs, and a token Secret. On the manager (`cluster`): the Secret " +
			"with the kubeconfig Kueue reads (`kueue-system/<secret_name>`, key `kubeconfig`) and the `MultiKueueCluster` that " +
			"names it; apply waits until Kueue reports the worker `Active`. The token and the kubeconfig never reach state or " +
			"logs: the provider reads the token from the worker and writes the Secret itself. A kubeconfig you bring instead " +
			"goes in the write-only `kubeconfig_wo` (Terraform 1.11+).",
		Attributes: clusterscope.With(map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "`projects/P/locations/L/clusters/C/multiKueueClusters/NAME` (the manager's cluster), or `NAME` when the provider has a `kubernetes` block; the import id.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:            true,
				Validators:          []validator.String{validators.DNSLabel()},
				MarkdownDescription: "Name of the `MultiKueueCluster`, which a `dwsfallback_multikueue_config` lists.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"worker_cluster": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "The worker's GKE cluster: its id `projects/P/locations/L/clusters/NAME` (the `id` of `dwsfallback_cluster`), " +
					"or its name in the provider's project and location. The manager reaches it at the endpoint and CA GKE reports. " +
					"Changed in place: the apply makes the credentials on the new worker and writes them to the manager's Secret, then removes them from the old one; the `MultiKueueCluster` keeps its name, so a config that lists it is undisturbed.",
				Validators: []validator.String{validators.Func("cluster", func(s string) error { _, err := clusterscope.Parse(s); return err })},
			},
			"config": schema.StringAttribute{
				Optional:   true,
				Validators: []validator.String{validators.DNSLabel()},
				MarkdownDescription: "Name of the `MultiKueueConfig` on the manager that lists this worker (the `name` of its `dwsfallback_multikueue_config`), written as a string, not a reference: the config already depends on its workers. " +
					"Destroying the worker then first takes it out of that config's clusters, so a worker is retired in one apply: Terraform destroys the worker before it updates the config that drops it, and the update finds it gone. " +
					"Without it, or when another config also lists the worker, the destroy refuses before it deletes anything. A worker that is its config's only one is never taken out (Kueue requires one): destroy the config with it. " +
					"A worker made again under its name (a replacement) joins that config again. A config that still lists the worker in its own configuration puts it back on its next apply, as a worker Kueue reports missing.",
			},
			"service_account": schema.StringAttribute{
				Optional: true, Computed: true,
				Default:             stringdefault.StaticString("multikueue-sa"),
				Validators:          []validator.String{validators.DNSLabel(), stringvalidator.ConflictsWith(path.MatchRoot("kubeconfig_wo"))},
				MarkdownDescription: "ServiceAccount the manager acts as on the worker, in `kueue-system`; its ClusterRole (`<name>-role`), ClusterRoleBinding (`<name>-crb`) and token Secret (`<name>`) are named after it, as Kueue's own script `create-multikueue-kubeconfig.sh` names them, so that a worker set up by the script is found and repaired. The script uses `multikueue-sa`, the default. Changed in place: the apply makes the new ServiceAccount and its rights, writes the manager's Secret with the new token, then removes the old ones (the manager keeps its `MultiKueueCluster`, so a config that lists it is undisturbed). Unused with `kubeconfig_wo`.",
			},
			"secret_name": schema.StringAttribute{
				Optional: true, Computed: true,
				Validators:          []validator.String{validators.DNSLabel()},
				MarkdownDescription: "Secret in the manager's `kueue-system` that holds the worker's kubeconfig (key `kubeconfig`). Defaults to `<name>-kubeconfig`.",
			},
			"kubeconfig_wo": schema.StringAttribute{
				Optional: true, Sensitive: true, WriteOnly: true,
				MarkdownDescription: "A kubeconfig for the worker that you bring (write-only: never stored). Kueue accepts a bearer token and inline CA data only: no token files, exec plugins, auth providers, insecure TLS or CA file paths. " +
					"The provider then makes nothing on the worker. Change `kubeconfig_wo_version` to write a new one.",
			},
			"kubeconfig_wo_version": schema.Int64Attribute{
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AlsoRequires(path.MatchRoot("kubeconfig_wo"))},
				MarkdownDescription: "Version of `kubeconfig_wo`; a new value writes the kubeconfig again (rotation). Required with `kubeconfig_wo`.",
			},
			"credentials_current": schema.BoolAttribute{
				Computed: true,
				MarkdownDescription: "Whether the manager's Secret still holds what reaches the worker (the worker's current endpoint, CA and token) and the worker's ClusterRole still grants what Kueue's manager uses there. " +
					"A role made by Kueue's script alone (it lacks `update` and `patch` on `workloads`, and the Ray kinds), a right taken from the role by hand, a token rotated on the worker (its token Secret deleted), a Secret edited or deleted by hand, or a worker that moved reads as `false`, and the next apply writes it again. A right added by hand shows in `drift`.",
			},
			"active": schema.BoolAttribute{
				Computed:            true,
				MarkdownDescription: "Kueue's `Active` condition of the `MultiKueueCluster`: whether the manager is connected to the worker.",
			},
			"active_reason": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Reason of the `Active` condition, e.g. `Active` (message `Connected`), `BadKubeConfig` (Secret or key missing), `InsecureKubeConfig` (a kubeconfig Kueue refuses), `ClientConnectionFailed` (the worker cannot be reached or watched: Kueue watches every kind of every integration it enables on each worker, so their CRDs must be installed there).",
			},
			"active_message": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Message of the `Active` condition.",
			},
			"drift":    tfdrift.Attribute("the MultiKueueCluster and of the worker's ClusterRole, ClusterRoleBinding and ServiceAccount it made (of the ServiceAccount, its label and this worker's entry among its users)", "plans the update that writes the fields back"),
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		}, false, "worker"),
	}
}
