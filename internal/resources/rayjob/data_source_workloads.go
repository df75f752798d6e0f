package rayjob

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
)

var (
	_ datasource.DataSourceWithConfigure        = (*workloadsDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*workloadsDataSource)(nil)
)

// NewWorkloadsDataSource is the dwsfallback_workloads data source.
func NewWorkloadsDataSource() datasource.DataSource { return &workloadsDataSource{} }

// workloadsDataSource lists Kueue's Workloads of a LocalQueue or a ClusterQueue, with where each was placed.
type workloadsDataSource struct {
	clients clusterscope.Clients
}

type workloadsModel struct {
	Cluster      types.String    `tfsdk:"cluster"`
	Project      types.String    `tfsdk:"project"`
	Location     types.String    `tfsdk:"location"`
	Namespace    types.String    `tfsdk:"namespace"`
	LocalQueue   types.String    `tfsdk:"local_queue"`
	ClusterQueue types.String    `tfsdk:"cluster_queue"`
	Workloads    []workloadModel `tfsdk:"workloads"`
}

type workloadModel struct {
	Namespace       types.String `tfsdk:"namespace"`
	Name            types.String `tfsdk:"name"`
	LocalQueue      types.String `tfsdk:"local_queue"`
	ClusterQueue    types.String `tfsdk:"cluster_queue"`
	Admitted        types.Bool   `tfsdk:"admitted"`
	AdmittedFlavor  types.String `tfsdk:"admitted_flavor"`
	AdmissionChecks types.Map    `tfsdk:"admission_checks"`
}

func (d *workloadsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_workloads"
}

func (d *workloadsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Kueue's Workloads of a LocalQueue (`namespace` + `local_queue`) or of a ClusterQueue, with their admitted flavors and admission check states: where the fallback put each job.",
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
				MarkdownDescription: "Namespace of `local_queue` (default `default`).",
			},
			"local_queue": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "A LocalQueue's name.",
			},
			"cluster_queue": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "A ClusterQueue's name (Workloads of every namespace).",
			},
			"workloads": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The Workloads, oldest first.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"namespace": schema.StringAttribute{
						Computed:            true,
						MarkdownDescription: "Namespace.",
					},
					"name": schema.StringAttribute{
						Computed:            true,
						MarkdownDescription: "Workload name.",
					},
					"local_queue": schema.StringAttribute{
						Computed:            true,
						MarkdownDescription: "LocalQueue.",
					},
					"cluster_queue": schema.StringAttribute{
						Computed:            true,
						MarkdownDescription: "ClusterQueue that reserved quota, if any.",
					},
					"admitted": schema.BoolAttribute{
						Computed:            true,
						MarkdownDescription: "Whether it is admitted.",
					},
					"admitted_flavor": schema.StringAttribute{
						Computed:            true,
						MarkdownDescription: "Flavor of the TPU pod set.",
					},
					"admission_checks": schema.MapAttribute{
						Computed:            true,
						ElementType:         types.StringType,
						MarkdownDescription: "Check name to state.",
					},
				}},
			},
		},
	}
}

func (d *workloadsDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("local_queue"), path.MatchRoot("cluster_queue")),
	}
}

func (d *workloadsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.clients = clusterscope.FromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (d *workloadsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m workloadsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, ok := clusterscope.Kube(ctx, d.clients, m.Cluster, m.Project, m.Location, &resp.Diagnostics)
	if !ok {
		return
	}
	ns := metav1.NamespaceAll
	if !m.LocalQueue.IsNull() {
		if m.Namespace.IsNull() {
			m.Namespace = types.StringValue("default")
		}
		ns = m.Namespace.ValueString()
	}
	list, err := c.Kueue.KueueV1beta2().Workloads(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		resp.Diagnostics.AddError("listing Kueue workloads", c.Explain("Workload", "*", err).Error())
		return
	}
	items := list.Items
	sort.Slice(items, func(i, j int) bool { return items[i].CreationTimestamp.Before(&items[j].CreationTimestamp) })
	// A pending Workload has no ClusterQueue yet: its LocalQueue says where it goes.
	lqTarget := map[string]string{}
	clusterQueueOf := func(wl *kueue.Workload) string {
		key := wl.Namespace + "/" + string(wl.Spec.QueueName)
		if cq, ok := lqTarget[key]; ok {
			return cq
		}
		lq, err := c.Kueue.KueueV1beta2().LocalQueues(wl.Namespace).Get(ctx, string(wl.Spec.QueueName), metav1.GetOptions{})
		if err == nil {
			lqTarget[key] = string(lq.Spec.ClusterQueue)
		}
		return lqTarget[key]
	}
	m.Workloads = []workloadModel{}
	for i := range items {
		wl := &items[i]
		cq := ""
		if wl.Status.Admission != nil {
			cq = string(wl.Status.Admission.ClusterQueue)
		}
		if !m.LocalQueue.IsNull() && string(wl.Spec.QueueName) != m.LocalQueue.ValueString() {
			continue
		}
		if want := m.ClusterQueue.ValueString(); !m.ClusterQueue.IsNull() && cq != want && (cq != "" || clusterQueueOf(wl) != want) {
			continue
		}
		p := jobProgress{wl: wl}
		checks := map[string]attr.Value{}
		for _, ch := range wl.Status.AdmissionChecks {
			checks[string(ch.Name)] = types.StringValue(string(ch.State))
		}
		m.Workloads = append(m.Workloads, workloadModel{
			Namespace: types.StringValue(wl.Namespace), Name: types.StringValue(wl.Name),
			LocalQueue: types.StringValue(string(wl.Spec.QueueName)), ClusterQueue: types.StringValue(cq),
			Admitted: types.BoolValue(p.admitted()), AdmittedFlavor: types.StringValue(acceleratorAssignment(wl)),
			AdmissionChecks: types.MapValueMust(types.StringType, checks),
		})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
