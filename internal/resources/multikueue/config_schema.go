package multikueue

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	mk "github.com/dwsfallback/terraform-provider-dwsfallback/internal/multikueue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/validators"
)

func (r *multiKueueConfigResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "MultiKueue on the manager cluster: a `MultiKueueConfig` that lists the worker clusters and the " +
			"`AdmissionCheck` (controller `kueue.x-k8s.io/multikueue`) whose parameters name it. A " +
			"`dwsfallback_kueue_queue` that lists the check in `admission_checks` sends its jobs to the workers: Kueue copies each " +
			"job's Workload to every worker, the first worker that admits it runs it, and the other copies are removed. DWS " +
			"belongs on the workers: Kueue makes a manager ClusterQueue with both this check and a ProvisioningRequest check " +
			"inactive. Apply waits until Kueue reports the check `Active` (at least one worker connected).",
		Attributes: clusterscope.With(map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "`projects/P/locations/L/clusters/C/multiKueueConfigs/NAME`, or `NAME` when the provider has a `kubernetes` block; the import id.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:            true,
				Validators:          []validator.String{validators.DNSLabel()},
				MarkdownDescription: "Name of the `MultiKueueConfig`, and of a new `AdmissionCheck` (see `admission_check`).",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"workers": schema.ListAttribute{
				Required:            true,
				ElementType:         types.StringType,
				Validators:          []validator.List{listvalidator.SizeBetween(1, mk.MaxWorkers), listvalidator.UniqueValues()},
				MarkdownDescription: "`spec.clusters`: names of `MultiKueueCluster`s (`dwsfallback_multikueue_worker.<x>.name`), 1 to 20.",
			},
			"admission_check": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "The `AdmissionCheck` to list in a queue's `admission_checks`. A new check takes the config's name; an " +
					"imported config keeps the name of the check that names it (Kueue's documented YAML names them apart). Empty when " +
					"the check was deleted or changed by hand, and the next apply writes it again under the name it had.",
			},
			"active": schema.BoolAttribute{
				Computed:            true,
				MarkdownDescription: "Kueue's `Active` condition of the check: true while at least one worker is connected.",
			},
			"active_reason": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Reason of the `Active` condition: `Active` (every worker connected), `SomeActiveClusters` (message names the missing or inactive ones), `NoUsableClusters`.",
			},
			"active_message": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Message of the `Active` condition.",
			},
			"drift":    tfdrift.Attribute("the MultiKueueConfig and its AdmissionCheck", "plans the update that writes the fields back"),
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		}, false, "MultiKueue config"),
	}
}
