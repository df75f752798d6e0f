package rayjob

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/validators"
)

func (r *rayJobResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	replaceMap := []planmodifier.Map{mapplanmodifier.RequiresReplace()}
	replaceBool := []planmodifier.Bool{boolplanmodifier.RequiresReplace()}
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
		MarkdownDescription: "A training run: a KubeRay RayJob (and the ConfigMap of its files) submitted to a Kueue LocalQueue, " +
			"as the tutorial's `rayjob-tpu-v6e-dws.yaml` and `kubectl create configmap` make them, with TPU tolerations and node " +
			"selectors derived from the slice. Reports where Kueue placed it (`admitted_flavor`: the on-demand or the DWS flavor). " +
			"A run is immutable: changing anything that shapes it submits a new run (replacement).",
		Attributes: clusterscope.With(map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
				MarkdownDescription: "`projects/P/locations/L/clusters/C/namespaces/NS/rayJobs/NAME`, or `NS/NAME` with a provider `kubernetes` block; the import id.",
			},
			"namespace": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString("default"),
				PlanModifiers:       replace,
				Validators:          []validator.String{validators.DNSLabel()},
				MarkdownDescription: "Namespace of the job (default `default`).",
			},
			"name": schema.StringAttribute{
				Required:            true,
				PlanModifiers:       replace,
				Validators:          []validator.String{validators.DNSLabel(), stringvalidator.LengthAtMost(47)},
				MarkdownDescription: "Name of the RayJob (KubeRay derives longer names from it, hence at most 47 characters).",
			},
			"queue": schema.StringAttribute{
				Optional:            true,
				PlanModifiers:       replace,
				Validators:          []validator.String{validators.DNSLabel()},
				MarkdownDescription: "LocalQueue to submit to (the `kueue.x-k8s.io/queue-name` label). Without it Kueue does not manage the job.",
			},
			"elastic": schema.BoolAttribute{
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(false),
				PlanModifiers:       replaceBool,
				MarkdownDescription: "Mark the job elastic (`kueue.x-k8s.io/elastic-job: \"true\"`, with Kueue's ElasticJobsViaWorkloadSlices gate).",
			},
			"entrypoint": schema.StringAttribute{
				Required:            true,
				PlanModifiers:       replace,
				MarkdownDescription: "Command the job runs, e.g. `python /app/train.py`.",
			},
			"files": schema.MapAttribute{
				Optional:            true,
				ElementType:         types.StringType,
				PlanModifiers:       replaceMap,
				MarkdownDescription: "Files for the job, name to content (e.g. `{ \"train.py\" = file(\"train.py\") }`): a ConfigMap mounted at `files_mount_path` in every Ray container. A change submits a new run.",
			},
			"files_config_map": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
				Validators:          []validator.String{validators.DNSLabel()},
				MarkdownDescription: "Name of the files' ConfigMap; default `NAME-files`. The tutorial's is `jax-train-script`.",
			},
			"files_mount_path": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(defaultFilesMountPath),
				PlanModifiers:       replace,
				MarkdownDescription: "Where the files are mounted (default `/app`).",
			},
			"runtime_env": schema.SingleNestedAttribute{
				Optional:            true,
				PlanModifiers:       []planmodifier.Object{objectplanmodifier.RequiresReplace()},
				MarkdownDescription: "Ray runtime environment (the RayJob's `runtimeEnvYAML`).",
				Attributes: map[string]schema.Attribute{
					"pip": schema.ListAttribute{
						Optional:            true,
						ElementType:         types.StringType,
						Validators:          []validator.List{listvalidator.ValueStringsAre(validators.Func("pip requirement", oneLine))},
						MarkdownDescription: "pip requirements, e.g. `[\"jax[tpu]==0.8.2\"]`.",
					},
				},
			},
			"image": schema.StringAttribute{
				Required:            true,
				PlanModifiers:       replace,
				MarkdownDescription: "Ray image of the head and workers, e.g. `rayproject/ray:2.53.0-py311`.",
			},
			"head": schema.SingleNestedAttribute{
				Required:            true,
				PlanModifiers:       []planmodifier.Object{objectplanmodifier.RequiresReplace()},
				MarkdownDescription: "The Ray head pod (requests = limits).",
				Attributes: map[string]schema.Attribute{
					"cpu": schema.StringAttribute{
						Required:            true,
						Validators:          []validator.String{quantityValidator()},
						MarkdownDescription: "CPU, e.g. `2`.",
					},
					"memory": schema.StringAttribute{
						Required:            true,
						Validators:          []validator.String{quantityValidator()},
						MarkdownDescription: "Memory, e.g. `4Gi`.",
					},
					"node_selector": schema.MapAttribute{
						Optional:            true,
						ElementType:         types.StringType,
						MarkdownDescription: "Node selector, e.g. `{ \"cloud.google.com/gke-nodepool\" = \"default-pool\" }`.",
					},
				},
			},
			"tpu_workers": schema.SingleNestedAttribute{
				Optional:            true,
				PlanModifiers:       []planmodifier.Object{objectplanmodifier.RequiresReplace()},
				MarkdownDescription: "The TPU worker group (this or `gpu_workers`): one replica is one slice of `num_of_hosts` nodes, each with `chips_per_node` chips, tolerating the TPU and `cloud.google.com/gke-queued` taints and selecting the slice's accelerator and topology. Wire `accelerator`, `topology` and `chips_per_node` from a `dwsfallback_tpu_pool_pair`.",
				Attributes: withSizing("slices", "16Gi", map[string]schema.Attribute{
					"group_name": schema.StringAttribute{
						Optional:            true,
						Computed:            true,
						Default:             stringdefault.StaticString("tpu-group"),
						MarkdownDescription: "Worker group name (default `tpu-group`).",
					},
					"accelerator": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "`cloud.google.com/gke-tpu-accelerator`, e.g. `tpu-v6e-slice`.",
					},
					"topology": schema.StringAttribute{
						Required:            true,
						Validators:          []validator.String{validators.TPUTopology()},
						MarkdownDescription: "`cloud.google.com/gke-tpu-topology`, e.g. `4x4`.",
					},
					"chips_per_node": schema.Int64Attribute{
						Required:            true,
						Validators:          []validator.Int64{int64validator.OneOf(1, 4, 8)},
						MarkdownDescription: "TPU chips per node (`google.com/tpu` per worker pod): 1, 4 or 8.",
					},
				}),
			},
			"gpu_workers": schema.SingleNestedAttribute{
				Optional:            true,
				PlanModifiers:       []planmodifier.Object{objectplanmodifier.RequiresReplace()},
				MarkdownDescription: "The GPU worker group (this or `tpu_workers`): one replica is one pod on one node with `gpus` GPUs, tolerating the `nvidia.com/gpu` and `cloud.google.com/gke-queued` taints and selecting the GPU type (`cloud.google.com/gke-accelerator`). Wire `accelerator` and `gpus` from a `dwsfallback_gpu_pool_pair`.",
				Attributes: withSizing("workers", "64Gi", map[string]schema.Attribute{
					"group_name": schema.StringAttribute{
						Optional:            true,
						Computed:            true,
						Default:             stringdefault.StaticString("gpu-group"),
						MarkdownDescription: "Worker group name (default `gpu-group`).",
					},
					"accelerator": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "`cloud.google.com/gke-accelerator`, e.g. `nvidia-h100-80gb` (the pool pair's `gpu_type`).",
					},
					"gpus": schema.Int64Attribute{
						Required:            true,
						Validators:          []validator.Int64{int64validator.Between(1, 16)},
						MarkdownDescription: "GPUs per worker pod (`nvidia.com/gpu`), e.g. 8 for a whole `a3-highgpu-8g` (the pool pair's `gpus_per_node`).",
					},
				}),
			},
			"num_of_hosts": schema.Int64Attribute{
				Computed:            true,
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
				MarkdownDescription: "Nodes per TPU slice (the worker group's `numOfHosts`): the topology's chips over `chips_per_node` (4x4 on 4-chip nodes = 4); 1 for GPU workers.",
			},
			"env": schema.MapAttribute{
				Optional:            true,
				ElementType:         types.StringType,
				Validators:          []validator.Map{validators.EnvNames()},
				PlanModifiers:       replaceMap,
				MarkdownDescription: "Environment variables of every Ray container.",
			},
			"labels": schema.MapAttribute{
				Optional:            true,
				ElementType:         types.StringType,
				Validators:          []validator.Map{validators.Labels()},
				PlanModifiers:       replaceMap,
				MarkdownDescription: "Extra labels of the RayJob.",
			},
			"annotations": schema.MapAttribute{
				Optional:            true,
				ElementType:         types.StringType,
				PlanModifiers:       replaceMap,
				MarkdownDescription: "Extra annotations of the RayJob.",
			},
			"shutdown_after_job_finishes": schema.BoolAttribute{
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(true),
				PlanModifiers:       replaceBool,
				MarkdownDescription: "Delete the Ray cluster when the job ends (default true), freeing the TPUs.",
			},
			"enable_in_tree_autoscaling": schema.BoolAttribute{
				Optional:      true,
				Computed:      true,
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown(), boolplanmodifier.RequiresReplace()},
				MarkdownDescription: "Ray's autoscaler. Defaults to true (the tutorial's) for elastic jobs and jobs without a queue, and to false for " +
					"other queued jobs: Kueue refuses autoscaling on a job it manages unless the job is elastic (workload slices).",
			},
			"compute_class": schema.StringAttribute{
				Optional:            true,
				Validators:          []validator.String{validators.DNSLabel()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				MarkdownDescription: "A GKE ComputeClass the workers run on (`dwsfallback_compute_class`): they select it (`nodeSelector: {cloud.google.com/compute-class: NAME}`) and tolerate its taint, so the cluster autoscaler scales its priorities in order and falls back to the next when one has no capacity. GKE adds the toleration to such pods itself; the provider sets it so that the job runs the same on any cluster. Changing it replaces the job.",
			},
			"wait_for": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString("admitted"),
				Validators:          []validator.String{stringvalidator.OneOf("none", "admitted", "running", "complete")},
				MarkdownDescription: "What create waits for: `none`, `admitted` (by Kueue, the default), `running` or `complete`. A job not there within the create timeout fails with Kueue's or KubeRay's own message and stays in state.",
			},
			"resubmit_when_deleted": schema.BoolAttribute{
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(false),
				MarkdownDescription: "Whether a finished job that was deleted (by KubeRay's cleanup or by hand) is submitted again. By default a finished run stays finished; a job deleted before it finished is always planned again.",
			},
			"drift":    tfdrift.Attribute("the RayJob and of its files' ConfigMap (whose data, binaryData and immutable compare whole)", "plans a new run (the job is replaced, as for any change of its spec)"),
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Delete: true}),
		}, false, "job"),
	}
	for k, v := range attrs {
		resp.Schema.Attributes[k] = v
	}
}

func quantityValidator() validator.String {
	return validators.Func("quantity", func(s string) error {
		_, err := resourceParse(s)
		return err
	})
}

func oneLine(s string) error {
	if strings.ContainsAny(s, "\r\n") || strings.TrimSpace(s) == "" {
		return fmt.Errorf("%q must be one non-empty line, as in a requirements file", s)
	}
	return nil
}

// withSizing adds to a worker kind's own attributes the ones both kinds share: how many replicas (slices of TPU
// hosts, or single GPU workers: the unit) and what each worker pod requests.
func withSizing(unit, memoryExample string, attrs map[string]schema.Attribute) map[string]schema.Attribute {
	count := func(least int64, desc string) schema.Int64Attribute {
		return schema.Int64Attribute{
			Optional:            true,
			Computed:            true,
			Default:             int64default.StaticInt64(1),
			Validators:          []validator.Int64{int64validator.AtLeast(least)},
			MarkdownDescription: desc,
		}
	}
	quantity := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{
			Required:            true,
			Validators:          []validator.String{quantityValidator()},
			MarkdownDescription: desc,
		}
	}
	attrs["replicas"] = count(0, strings.ToUpper(unit[:1])+unit[1:]+" to start with (default 1).")
	attrs["min_replicas"] = count(0, "Fewest "+unit+" (default 1).")
	attrs["max_replicas"] = count(1, "Most "+unit+", for elastic jobs (default 1).")
	attrs["cpu"] = quantity("CPU per worker pod, e.g. `8`.")
	attrs["memory"] = quantity("Memory per worker pod, e.g. `" + memoryExample + "`.")
	return attrs
}
