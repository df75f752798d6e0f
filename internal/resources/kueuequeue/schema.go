package kueuequeue

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/validators"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

var (
	fungibilityTypes = map[string]attr.Type{"when_can_borrow": types.StringType, "when_can_preempt": types.StringType}
	retryTypes       = map[string]attr.Type{
		"backoff_limit_count":  types.Int64Type,
		"backoff_base_seconds": types.Int64Type,
		"backoff_max_seconds":  types.Int64Type,
	}
	preemptionTypes = map[string]attr.Type{
		"reclaim_within_cohort": types.StringType,
		"borrow_within_cohort":  types.StringType,
		"within_cluster_queue":  types.StringType,
	}
)

func (r *kueueQueueResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	nameValidators := []validator.String{validators.DNSLabel()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The Kueue side of the DWS fallback: ResourceFlavors bound to the node pools, a ClusterQueue that tries " +
			"them in order, the `kueue.x-k8s.io/provisioning-request` AdmissionCheck and its ProvisioningRequestConfig on the " +
			"flavors that carry `provisioning`, and LocalQueues. One resource for the tutorial's `dws-tpu-queue.yaml`, applied with " +
			"server-side apply (field manager `terraform-provider-dwsfallback`) through Kueue's typed v1beta2 client.",
		Attributes: clusterscope.With(map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "`projects/P/locations/L/clusters/C/clusterQueues/NAME`, or `NAME` when the provider has a `kubernetes` block; the import id.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:            true,
				Validators:          nameValidators,
				MarkdownDescription: "Name of the ClusterQueue, e.g. `cluster-queue`.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"namespace_selector": schema.MapAttribute{
				Optional:            true,
				Computed:            true,
				ElementType:         types.StringType,
				Validators:          []validator.Map{validators.Labels()},
				Default:             mapdefault.StaticValue(types.MapValueMust(types.StringType, map[string]attr.Value{})),
				MarkdownDescription: "Labels a namespace needs for its LocalQueues to use this ClusterQueue. Empty (the default, the tutorial's `{}`) admits every namespace.",
			},
			"queueing_strategy": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString("BestEffortFIFO"),
				Validators:          []validator.String{stringvalidator.OneOf("BestEffortFIFO", "StrictFIFO")},
				MarkdownDescription: "`BestEffortFIFO` (Kueue's default) or `StrictFIFO`.",
			},
			"flavor_fungibility": schema.SingleNestedAttribute{
				Optional: true,
				Computed: true,
				Default: objectdefault.StaticValue(types.ObjectValueMust(fungibilityTypes, map[string]attr.Value{
					"when_can_borrow": types.StringValue("MayStopSearch"), "when_can_preempt": types.StringValue("TryNextFlavor"),
				})),
				MarkdownDescription: "When Kueue moves on to the next flavor. Kueue's defaults: `MayStopSearch` when it could borrow, `TryNextFlavor` when it would have to preempt.",
				Attributes: map[string]schema.Attribute{
					"when_can_borrow": schema.StringAttribute{
						Required:            true,
						Validators:          []validator.String{stringvalidator.OneOf("MayStopSearch", "TryNextFlavor")},
						MarkdownDescription: "`MayStopSearch` or `TryNextFlavor`.",
					},
					"when_can_preempt": schema.StringAttribute{
						Required:            true,
						Validators:          []validator.String{stringvalidator.OneOf("MayStopSearch", "TryNextFlavor")},
						MarkdownDescription: "`MayStopSearch` or `TryNextFlavor`.",
					},
				},
			},
			"cohort": schema.StringAttribute{
				Optional:   true,
				Validators: nameValidators,
				MarkdownDescription: "Kueue cohort of the ClusterQueue (`spec.cohortName`): ClusterQueues of one cohort lend each other unused quota, " +
					"within each flavor's `borrowing_limits` and `lending_limits`. Teams that share the DWS fallback usually share a cohort.",
			},
			"preemption": schema.SingleNestedAttribute{
				Optional: true,
				Computed: true,
				Default: objectdefault.StaticValue(types.ObjectValueMust(preemptionTypes, map[string]attr.Value{
					"reclaim_within_cohort": types.StringValue("Never"),
					"borrow_within_cohort":  types.StringValue("Never"),
					"within_cluster_queue":  types.StringValue("Never"),
				})),
				MarkdownDescription: "Kueue's preemption policies (`spec.preemption`); all `Never` by default, as in Kueue.",
				Attributes: map[string]schema.Attribute{
					"reclaim_within_cohort": schema.StringAttribute{
						Optional:            true,
						Computed:            true,
						Default:             stringdefault.StaticString("Never"),
						Validators:          []validator.String{stringvalidator.OneOf("Never", "LowerPriority", "Any")},
						MarkdownDescription: "Whether a workload may preempt borrowers in the cohort to reclaim this queue's nominal quota: `Never`, `LowerPriority` or `Any`.",
					},
					"borrow_within_cohort": schema.StringAttribute{
						Optional:            true,
						Computed:            true,
						Default:             stringdefault.StaticString("Never"),
						Validators:          []validator.String{stringvalidator.OneOf("Never", "LowerPriority")},
						MarkdownDescription: "Whether a borrowing workload may preempt lower-priority workloads of other queues in the cohort: `Never` or `LowerPriority`.",
					},
					"within_cluster_queue": schema.StringAttribute{
						Optional:            true,
						Computed:            true,
						Default:             stringdefault.StaticString("Never"),
						Validators:          []validator.String{stringvalidator.OneOf("Never", "LowerPriority", "LowerOrNewerEqualPriority")},
						MarkdownDescription: "Whether a workload may preempt others of this queue: `Never`, `LowerPriority` or `LowerOrNewerEqualPriority`.",
					},
				},
			},
			"flavors": schema.ListNestedAttribute{
				Required:            true,
				Validators:          []validator.List{listvalidator.SizeAtLeast(1)},
				MarkdownDescription: "The ResourceFlavors in fallback order: Kueue tries the first, then the next. Every flavor quotas the same resources.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{
						Required:            true,
						Validators:          nameValidators,
						MarkdownDescription: "ResourceFlavor name, e.g. `on-demand`.",
					},
					"node_labels": schema.MapAttribute{
						Optional:            true,
						ElementType:         types.StringType,
						Validators:          []validator.Map{validators.Labels()},
						MarkdownDescription: "Node labels of the flavor, e.g. a pool pair's `on_demand.node_labels` (`cloud.google.com/gke-nodepool`).",
					},
					"quotas": schema.MapAttribute{
						Required:            true,
						ElementType:         types.StringType,
						Validators:          []validator.Map{validators.Quantities()},
						MarkdownDescription: "Nominal quota per resource, as Kubernetes quantities: `{ cpu = \"40\", memory = \"75Gi\", \"google.com/tpu\" = \"16\" }`. Compared by value: the API server's canonical form (`1G` for `1000000000`) is not a change.",
					},
					"borrowing_limits": schema.MapAttribute{
						Optional:            true,
						ElementType:         types.StringType,
						Validators:          []validator.Map{validators.Quantities()},
						MarkdownDescription: "Most this queue may borrow from its cohort per resource, beyond `quotas` (no key: no limit). Only with `cohort`.",
					},
					"lending_limits": schema.MapAttribute{
						Optional:            true,
						ElementType:         types.StringType,
						Validators:          []validator.Map{validators.Quantities()},
						MarkdownDescription: "Most of this queue's unused quota its cohort may borrow, per resource (no key: all of it). Only with `cohort`.",
					},
					"provisioning": schema.SingleNestedAttribute{
						Optional:            true,
						MarkdownDescription: "Makes this flavor a DWS flavor: an AdmissionCheck (controller `kueue.x-k8s.io/provisioning-request`) on this flavor only, with its ProvisioningRequestConfig.",
						Attributes: map[string]schema.Attribute{
							"admission_check": schema.StringAttribute{
								Optional:            true,
								Computed:            true,
								Default:             stringdefault.StaticString("dws-prov"),
								Validators:          nameValidators,
								MarkdownDescription: "AdmissionCheck name (default `dws-prov`).",
							},
							"config": schema.StringAttribute{
								Optional:            true,
								Computed:            true,
								Default:             stringdefault.StaticString("dws-config"),
								Validators:          nameValidators,
								MarkdownDescription: "ProvisioningRequestConfig name (default `dws-config`).",
							},
							"class": schema.StringAttribute{
								Optional:            true,
								Computed:            true,
								Default:             stringdefault.StaticString("queued-provisioning.gke.io"),
								MarkdownDescription: "Provisioning class (default GKE's `queued-provisioning.gke.io`).",
							},
							"managed_resources": schema.ListAttribute{
								Optional:            true,
								Computed:            true,
								ElementType:         types.StringType,
								Default:             listdefault.StaticValue(types.ListValueMust(types.StringType, []attr.Value{types.StringValue(wellknown.TPUResource)})),
								MarkdownDescription: "Resources the provisioning request covers (default `[\"google.com/tpu\"]`): only pod sets asking for them get capacity from DWS.",
							},
							"parameters": schema.MapAttribute{
								Optional:            true,
								ElementType:         types.StringType,
								MarkdownDescription: "ProvisioningRequest parameters, e.g. `maxRunDurationSeconds`.",
							},
							"retry": schema.SingleNestedAttribute{
								Optional: true,
								Computed: true,
								Default: objectdefault.StaticValue(types.ObjectValueMust(retryTypes, map[string]attr.Value{
									"backoff_limit_count": types.Int64Value(3), "backoff_base_seconds": types.Int64Value(60), "backoff_max_seconds": types.Int64Value(1800),
								})),
								MarkdownDescription: "Retries of failed provisioning requests; Kueue's defaults (3 retries, 60 s base, 1800 s max).",
								Attributes: map[string]schema.Attribute{
									"backoff_limit_count": schema.Int64Attribute{
										Optional:            true,
										Computed:            true,
										Default:             int64default.StaticInt64(3),
										MarkdownDescription: "Retries before the workload is deactivated.",
									},
									"backoff_base_seconds": schema.Int64Attribute{
										Optional:            true,
										Computed:            true,
										Default:             int64default.StaticInt64(60),
										MarkdownDescription: "First retry delay.",
									},
									"backoff_max_seconds": schema.Int64Attribute{
										Optional:            true,
										Computed:            true,
										Default:             int64default.StaticInt64(1800),
										MarkdownDescription: "Longest retry delay.",
									},
								},
							},
						},
					},
				}},
			},
			"local_queues": schema.ListNestedAttribute{
				Optional:            true,
				MarkdownDescription: "LocalQueues that send jobs of a namespace to this ClusterQueue, e.g. `[{ namespace = \"default\", name = \"user-queue\" }]`.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"namespace": schema.StringAttribute{
						Required:            true,
						Validators:          nameValidators,
						MarkdownDescription: "Namespace of the LocalQueue.",
					},
					"name": schema.StringAttribute{
						Required:            true,
						Validators:          nameValidators,
						MarkdownDescription: "Name of the LocalQueue (the jobs' `kueue.x-k8s.io/queue-name`).",
					},
					"stop_policy": stopPolicyAttribute("LocalQueue"),
				}},
			},
			"admission_checks": schema.ListAttribute{
				Optional:    true,
				ElementType: types.StringType,
				Validators:  []validator.List{listvalidator.UniqueValues(), listvalidator.ValueStringsAre(validators.DNSLabel())},
				MarkdownDescription: "AdmissionChecks that apply to every flavor (`admissionChecksStrategy` rules without `onFlavors`), e.g. " +
					"`[dwsfallback_multikueue_config.workers.admission_check]` to send the queue's jobs to MultiKueue workers. The queue references " +
					"them and does not manage them. Kueue makes a queue with both a MultiKueue check and a ProvisioningRequest check inactive " +
					"(`MultiKueueWithProvisioningRequest`), so an apply that would do so is refused: DWS belongs on the workers.",
			},
			"stop_policy": stopPolicyAttribute("ClusterQueue"),
			"drift": tfdrift.Attribute("the queue's ClusterQueue, ResourceFlavors, AdmissionChecks, ProvisioningRequestConfigs and LocalQueues",
				"plans the update that writes the fields back"),
			"force_conflicts": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(true),
				MarkdownDescription: "Whether an apply takes ownership of fields that another field manager (a `kubectl edit`, another tool) set to other values. " +
					"True (the default) makes the configuration win, which is how drift is repaired; false makes such an apply fail with a conflict that names the other manager.",
			},
			"active": schema.BoolAttribute{
				Computed:            true,
				MarkdownDescription: "Whether the ClusterQueue's `Active` condition is true.",
			},
			"active_message": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The `Active` condition's message (why a queue is inactive).",
			},
			"pending_workloads": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: "Workloads waiting in the ClusterQueue, at the last refresh.",
			},
			"admitted_workloads": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: "Workloads admitted by the ClusterQueue, at the last refresh.",
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		}, false, "queue"),
	}
}

// stopPolicyAttribute is Kueue's stopPolicy: modelled because an operator holding a queue by hand stops admission,
// and the plan has to show it.
func stopPolicyAttribute(kind string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional:   true,
		Computed:   true,
		Default:    stringdefault.StaticString("None"),
		Validators: []validator.String{stringvalidator.OneOf("None", "Hold", "HoldAndDrain")},
		MarkdownDescription: "The " + kind + "'s `stopPolicy`: `None` (the default) admits; `Hold` admits nothing new; `HoldAndDrain` also evicts " +
			"what it admitted. A hold set by hand (`kubectl patch`) shows in the plan, which sets it back.",
	}
}
