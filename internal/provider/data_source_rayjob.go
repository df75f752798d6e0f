package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ datasource.DataSourceWithConfigure = (*rayJobDataSource)(nil)

func NewRayJobDataSource() datasource.DataSource { return &rayJobDataSource{} }

// rayJobDataSource reports where an existing RayJob stands, whoever submitted it.
type rayJobDataSource struct {
	clients clients
}

type rayJobDataModel struct {
	Cluster             types.String `tfsdk:"cluster"`
	Project             types.String `tfsdk:"project"`
	Location            types.String `tfsdk:"location"`
	Namespace           types.String `tfsdk:"namespace"`
	Name                types.String `tfsdk:"name"`
	WorkloadName        types.String `tfsdk:"workload_name"`
	Admitted            types.Bool   `tfsdk:"admitted"`
	AdmittedFlavor      types.String `tfsdk:"admitted_flavor"`
	AdmissionChecks     types.Map    `tfsdk:"admission_checks"`
	JobStatus           types.String `tfsdk:"job_status"`
	JobDeploymentStatus types.String `tfsdk:"job_deployment_status"`
	RayClusterName      types.String `tfsdk:"ray_cluster_name"`
	DashboardURL        types.String `tfsdk:"dashboard_url"`
	StartTime           types.String `tfsdk:"start_time"`
	EndTime             types.String `tfsdk:"end_time"`
	Message             types.String `tfsdk:"message"`
}

func (d *rayJobDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_rayjob"
}

func (d *rayJobDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Where an existing RayJob stands: Kueue's admission (flavor, checks) and KubeRay's status. Works for jobs made by kubectl too.",
		Attributes: map[string]schema.Attribute{
			"cluster":               schema.StringAttribute{Optional: true, MarkdownDescription: "The GKE cluster (name or id); omit with a provider `kubernetes` block."},
			"project":               schema.StringAttribute{Optional: true, MarkdownDescription: "Project of the cluster."},
			"location":              schema.StringAttribute{Optional: true, MarkdownDescription: "Location of the cluster."},
			"namespace":             schema.StringAttribute{Optional: true, MarkdownDescription: "Namespace (default `default`)."},
			"name":                  schema.StringAttribute{Required: true, MarkdownDescription: "Name of the RayJob."},
			"workload_name":         computed("Name of Kueue's Workload for the job."),
			"admitted":              schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether Kueue admitted the job."},
			"admitted_flavor":       computed("The ResourceFlavor of the TPU workers."),
			"admission_checks":      schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Admission check name to state."},
			"job_status":            computed("Ray's job status."),
			"job_deployment_status": computed("KubeRay's deployment status."),
			"ray_cluster_name":      computed("The RayCluster of the job."),
			"dashboard_url":         computed("Ray dashboard address."),
			"start_time":            computed("When the job started."),
			"end_time":              computed("When the job ended."),
			"message":               computed("Kueue's or KubeRay's latest message."),
		},
	}
}

func (d *rayJobDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.clients = providerClients(req.ProviderData, &resp.Diagnostics)
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
	c, ok := kubeFor(ctx, d.clients, m.Cluster, m.Project, m.Location, &resp.Diagnostics)
	if !ok {
		return
	}
	p, err := readProgress(ctx, c, m.Namespace.ValueString(), m.Name.ValueString())
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading RayJob (%s/%s)", m.Namespace.ValueString(), m.Name.ValueString()), rayJobError(c, err).Error())
		return
	}
	var full rayJobModel
	flattenJobStatus(&full, p)
	m.WorkloadName, m.Admitted, m.AdmittedFlavor, m.AdmissionChecks = full.WorkloadName, full.Admitted, full.AdmittedFlavor, full.AdmissionChecks
	m.JobStatus, m.JobDeploymentStatus, m.RayClusterName, m.DashboardURL = full.JobStatus, full.JobDeploymentStatus, full.RayClusterName, full.DashboardURL
	m.StartTime, m.EndTime, m.Message = full.StartTime, full.EndTime, full.Message
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
