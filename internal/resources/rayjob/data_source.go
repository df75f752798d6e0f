package rayjob

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
)

var _ datasource.DataSourceWithConfigure = (*rayJobDataSource)(nil)

// NewDataSource is the dwsfallback_rayjob data source.
func NewDataSource() datasource.DataSource { return &rayJobDataSource{} }

// rayJobDataSource reports where an existing RayJob stands, whoever submitted it.
type rayJobDataSource struct {
	clients clusterscope.Clients
}

type rayJobDataModel struct {
	Cluster   types.String `tfsdk:"cluster"`
	Project   types.String `tfsdk:"project"`
	Location  types.String `tfsdk:"location"`
	Namespace types.String `tfsdk:"namespace"`
	Name      types.String `tfsdk:"name"`
	rayJobStatusModel
}

func (d *rayJobDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_rayjob"
}

func (d *rayJobDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: desc,
		}
	}
	attrs := rayJobStatusSchema(
		func(d string) schema.Attribute { return computed(d) },
		func(d string) schema.Attribute {
			return schema.BoolAttribute{
				Computed:            true,
				MarkdownDescription: d,
			}
		},
		func(d string, elem attr.Type) schema.Attribute {
			return schema.MapAttribute{
				Computed:            true,
				ElementType:         elem,
				MarkdownDescription: d,
			}
		})
	resp.Schema = schema.Schema{
		MarkdownDescription: "Where an existing RayJob stands: Kueue's admission (flavor, checks) and KubeRay's status. Works for jobs made by kubectl too.",
		Attributes: map[string]schema.Attribute{
			"cluster": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "The GKE cluster (name or id); omit with a provider `kubernetes` block.",
			},
			"project": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Project of the cluster.",
			},
			"location": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Location of the cluster.",
			},
			"namespace": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Namespace (default `default`).",
			},
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Name of the RayJob.",
			},
		},
	}
	for k, v := range attrs {
		resp.Schema.Attributes[k] = v
	}
}

func (d *rayJobDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.clients = clusterscope.FromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (d *rayJobDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m rayJobDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if m.Namespace.IsNull() {
		m.Namespace = types.StringValue("default")
	}
	c, ok := clusterscope.Kube(ctx, d.clients, m.Cluster, m.Project, m.Location, &resp.Diagnostics)
	if !ok {
		return
	}
	p, err := readProgress(ctx, c, m.Namespace.ValueString(), m.Name.ValueString())
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading RayJob (%s/%s)", m.Namespace.ValueString(), m.Name.ValueString()), rayJobError(c, err).Error())
		return
	}
	flattenJobStatus(&m.rayJobStatusModel, p)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
