package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type rayJobModel struct {
	ID                       types.String     `tfsdk:"id"`
	Cluster                  types.String     `tfsdk:"cluster"`
	Project                  types.String     `tfsdk:"project"`
	Location                 types.String     `tfsdk:"location"`
	Namespace                types.String     `tfsdk:"namespace"`
	Name                     types.String     `tfsdk:"name"`
	Queue                    types.String     `tfsdk:"queue"`
	Elastic                  types.Bool       `tfsdk:"elastic"`
	Entrypoint               types.String     `tfsdk:"entrypoint"`
	Files                    types.Map        `tfsdk:"files"`
	FilesConfigMap           types.String     `tfsdk:"files_config_map"`
	FilesMountPath           types.String     `tfsdk:"files_mount_path"`
	RuntimeEnv               *runtimeEnvModel `tfsdk:"runtime_env"`
	Image                    types.String     `tfsdk:"image"`
	Head                     *headModel       `tfsdk:"head"`
	TPUWorkers               *tpuWorkersModel `tfsdk:"tpu_workers"`
	NumOfHosts               types.Int64      `tfsdk:"num_of_hosts"`
	Env                      types.Map        `tfsdk:"env"`
	Labels                   types.Map        `tfsdk:"labels"`
	Annotations              types.Map        `tfsdk:"annotations"`
	ShutdownAfterJobFinishes types.Bool       `tfsdk:"shutdown_after_job_finishes"`
	EnableInTreeAutoscaling  types.Bool       `tfsdk:"enable_in_tree_autoscaling"`
	WaitFor                  types.String     `tfsdk:"wait_for"`
	ResubmitWhenDeleted      types.Bool       `tfsdk:"resubmit_when_deleted"`

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

	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

type runtimeEnvModel struct {
	Pip types.List `tfsdk:"pip"`
}

type headModel struct {
	CPU          types.String `tfsdk:"cpu"`
	Memory       types.String `tfsdk:"memory"`
	NodeSelector types.Map    `tfsdk:"node_selector"`
}

type tpuWorkersModel struct {
	GroupName    types.String `tfsdk:"group_name"`
	Accelerator  types.String `tfsdk:"accelerator"`
	Topology     types.String `tfsdk:"topology"`
	ChipsPerNode types.Int64  `tfsdk:"chips_per_node"`
	Replicas     types.Int64  `tfsdk:"replicas"`
	MinReplicas  types.Int64  `tfsdk:"min_replicas"`
	MaxReplicas  types.Int64  `tfsdk:"max_replicas"`
	CPU          types.String `tfsdk:"cpu"`
	Memory       types.String `tfsdk:"memory"`
}
