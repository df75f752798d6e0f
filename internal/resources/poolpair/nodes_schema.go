package poolpair

import (
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// nodeSettingsAttributes are the pair's node identity, labels and taints, which both pools carry alike.
func nodeSettingsAttributes() map[string]schema.Attribute {
	notTheClass := stringvalidator.NoneOf(wellknown.ComputeClassLabel, wellknown.SliceGroupLabel)
	return map[string]schema.Attribute{
		"service_account": schema.StringAttribute{
			Optional:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators: []validator.String{
				stringvalidator.NoneOf("default"),
				stringvalidator.RegexMatches(regexp.MustCompile(`^[^@\s]+@[^@\s]+$`), "must be a service account's email"),
			},
			MarkdownDescription: "Email of the IAM service account both pools' nodes run as (gcloud's `--service-account`); unset, the Compute Engine default service account. GKE sets it only on a new pool: changing it replaces both pools; a pool recreated by hand with another one shows in `drift`, and the apply recreates that pool alone.",
		},
		"oauth_scopes": schema.SetAttribute{
			Optional:    true,
			ElementType: types.StringType,
			PlanModifiers: []planmodifier.Set{setplanmodifier.RequiresReplaceIf(scopesChange,
				"Replaces both pools when the scopes change; spelling out the default scopes, or taking them out, changes none.",
				"Replaces both pools when the scopes change; spelling out the default scopes, or taking them out, changes none.")},
			Validators: []validator.Set{
				setvalidator.SizeAtLeast(1),
				setvalidator.ValueStringsAre(stringvalidator.RegexMatches(regexp.MustCompile(`^https://www\.googleapis\.com/auth/[a-z][-a-z0-9._]*$`),
					"must be a full scope URL, such as https://www.googleapis.com/auth/cloud-platform")),
			},
			MarkdownDescription: "OAuth scopes of both pools' nodes, as full URLs (gcloud's `--scopes`). Unset, what gcloud sends: its six default scopes (`gke-default`), or with `service_account` set, `cloud-platform` and `userinfo.email`. GKE sets them only on a new pool: changing them replaces both pools.",
		},
		"resource_labels": schema.MapAttribute{
			Optional:    true,
			ElementType: types.StringType,
			Validators: []validator.Map{
				mapvalidator.KeysAre(stringvalidator.RegexMatches(regexp.MustCompile(`^[a-z][-_a-z0-9]{0,62}$`), "must be a Compute Engine label key: lowercase letters, digits, - and _, starting with a letter, at most 63 characters")),
			},
			MarkdownDescription: "Compute Engine labels of both pools' VMs, e.g. for billing (gcloud's `--labels`). Keys starting with `goog-gke-` are GKE's own: the ones it adds (`" + wellknown.ProvisioningModelLabel + "`, and on accelerator pools `" + wellknown.AcceleratorTypeLabel + "` and `" + wellknown.TPUPoolTypeLabel + "`) are not listed here and never drift. Updated in place; removing them removes them from the pools.",
		},
		"network_tags": schema.ListAttribute{
			Optional:            true,
			ElementType:         types.StringType,
			MarkdownDescription: "Network tags of both pools' VMs, for firewall rules (gcloud's `--tags`). Updated in place.",
		},
		"labels": schema.MapAttribute{
			Optional:            true,
			ElementType:         types.StringType,
			Validators:          []validator.Map{mapvalidator.KeysAre(notTheClass)},
			MarkdownDescription: "Kubernetes labels on every node of both pools (gcloud's `--node-labels`), beside the ones GKE and `compute_class` set. Updated in place.",
		},
		"disk_type": schema.StringAttribute{
			Optional:   true,
			Computed:   true,
			Validators: []validator.String{stringvalidator.OneOf(catalog.DiskTypes...)},
			MarkdownDescription: "Boot disk type of both pools' nodes (gcloud's `--disk-type`): `pd-balanced`, `pd-standard`, `pd-ssd` or `hyperdisk-balanced`. " +
				"Unset, GKE's default for the machine type: `hyperdisk-balanced` for TPU7x, v6e, A4, A4X, A3 Ultra, N4 and C4, which boot from nothing else, `pd-balanced` for v5p, v5e " +
				"(which boot from nothing else) and the Persistent Disk families (E2, N1, N2, A2, G2, C3, ...); for other families, whatever disk GKE gives the pool, read back and not compared; there, taking `disk_type` out of the configuration keeps the disk the pools have. Changed in place: GKE migrates the nodes.",
		},
		"disk_size_gb": schema.Int64Attribute{
			Optional:            true,
			Computed:            true,
			Default:             int64default.StaticInt64(catalog.DefaultDiskSizeGB),
			Validators:          []validator.Int64{int64validator.Between(catalog.MinDiskSizeGB, 65536)},
			MarkdownDescription: "Boot disk size of both pools' nodes in GB (gcloud's `--disk-size`), 10 to 65536. Unset, GKE's 100. Changed in place: GKE migrates the nodes.",
		},
		"node_locations": schema.SetAttribute{
			Optional:    true,
			Computed:    true,
			ElementType: types.StringType,
			Validators: []validator.Set{
				setvalidator.SizeAtLeast(1),
				setvalidator.ValueStringsAre(stringvalidator.RegexMatches(catalog.ZoneRE, "must be a zone, such as us-east5-b")),
			},
			MarkdownDescription: "Zones of both pools' nodes (gcloud's `--node-locations`), each in the cluster's region. Unset, GKE's choice: the cluster's zones, read back here; a pool moved by hand then shows in `drift` and the apply moves it back. Changed in place. A multi-host TPU slice lives in one zone; with several zones (single-host slices, GPUs), `min_nodes` and `max_nodes` are per zone, as GKE's autoscaling limits are. " +
				"For a TPU machine type each zone must offer it: the plan checks the zones of North America against Cloud TPU's \"TPU regions and zones\", and leaves other zones to GKE.",
		},
		"gvnic": schema.BoolAttribute{
			Optional:            true,
			Computed:            true,
			Default:             booldefault.StaticBool(false),
			MarkdownDescription: "Whether both pools' nodes use Google Virtual NIC (gcloud's `--enable-gvnic`). Unset means off, as GKE leaves it. Changed in place.",
		},
		"secondary_boot_disks": secondaryBootDisksAttribute(),
		"taints": schema.ListNestedAttribute{
			Optional: true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"key":   schema.StringAttribute{Required: true, Validators: []validator.String{notTheClass}, MarkdownDescription: "The taint's key."},
				"value": schema.StringAttribute{Required: true, MarkdownDescription: "The taint's value."},
				"effect": schema.StringAttribute{
					Required:            true,
					Validators:          []validator.String{stringvalidator.OneOf("NO_SCHEDULE", "PREFER_NO_SCHEDULE", "NO_EXECUTE")},
					MarkdownDescription: "`NO_SCHEDULE`, `PREFER_NO_SCHEDULE` or `NO_EXECUTE`, as GKE's API names them.",
				},
			}},
			MarkdownDescription: "Kubernetes taints on every node of both pools (gcloud's `--node-taints`), beside the ones GKE sets for the accelerator and for DWS and the one `compute_class` sets: a job needs a toleration for each. Updated in place.",
		},
	}
}
