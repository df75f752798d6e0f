package poolpair

import (
	"context"
	"regexp"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Secondary boot disks: disks made from an image, attached to every node, such as one with the Ray TPU image's
// layers preloaded (GKE's "Use secondary boot disks to preload data or container images"). GKE takes them only on
// a new pool: UpdateNodePoolRequest has no field for them.

var bootDiskAttrTypes = map[string]attr.Type{"disk_image": types.StringType, "mode": types.StringType}

var bootDiskType = types.ObjectType{AttrTypes: bootDiskAttrTypes}

// diskImageRE is the image path gcloud's --secondary-boot-disk disk-image takes: global/images/NAME in the pool's
// project, or projects/PROJECT/global/images/NAME.
var diskImageRE = regexp.MustCompile(`^(projects/[a-z][-a-z0-9.:]*[a-z0-9]/)?global/images/[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)

// containerImageCache is the mode of a disk of preloaded container images; a disk without a mode holds data.
const containerImageCache = "CONTAINER_IMAGE_CACHE"

func secondaryBootDisksAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional: true,
		PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplaceIf(bootDisksChange,
			"Replaces both pools when the disks change: GKE attaches secondary boot disks only to a new pool.",
			"Replaces both pools when the disks change: GKE attaches secondary boot disks only to a new pool.")},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"disk_image": schema.StringAttribute{
				Required:            true,
				Validators:          []validator.String{stringvalidator.RegexMatches(diskImageRE, "must be global/images/NAME or projects/PROJECT/global/images/NAME")},
				MarkdownDescription: "The Compute Engine image each node's disk is made from: `global/images/NAME` (the cluster's project) or `projects/PROJECT/global/images/NAME`. It must exist when the pools are made.",
			},
			"mode": schema.StringAttribute{
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(containerImageCache)},
				MarkdownDescription: "`" + containerImageCache + "` for a disk of preloaded container images (GKE's image cache, with image streaming); unset, a disk of data, as GKE's `MODE_UNSPECIFIED`.",
			},
		}},
		MarkdownDescription: "Secondary boot disks attached to every node of both pools (gcloud's `--secondary-boot-disk=disk-image=IMAGE[,mode=CONTAINER_IMAGE_CACHE]`, once per disk), such as one with the Ray TPU image preloaded so that large images start fast. GKE attaches them only to a new pool: changing them replaces both pools.",
	}
}

// expandBootDisks sets a pool's secondary boot disks as gcloud's --secondary-boot-disk flags do, in order.
func expandBootDisks(v types.List, cfg *containerpb.NodeConfig) {
	for _, e := range v.Elements() {
		o, ok := e.(types.Object)
		if !ok || o.IsNull() || o.IsUnknown() {
			continue
		}
		a := o.Attributes()
		image, _ := a["disk_image"].(types.String)
		mode, _ := a["mode"].(types.String)
		d := &containerpb.SecondaryBootDisk{DiskImage: image.ValueString()}
		if mode.ValueString() == containerImageCache {
			d.Mode = containerpb.SecondaryBootDisk_CONTAINER_IMAGE_CACHE
		}
		cfg.SecondaryBootDisks = append(cfg.SecondaryBootDisks, d)
	}
}

// bootDisksOf is a live pool's secondary boot disks as the attribute holds them, null for none.
func bootDisksOf(cfg *containerpb.NodeConfig) types.List {
	var out []attr.Value
	for _, d := range cfg.GetSecondaryBootDisks() {
		mode := types.StringNull()
		if d.GetMode() == containerpb.SecondaryBootDisk_CONTAINER_IMAGE_CACHE {
			mode = types.StringValue(containerImageCache)
		}
		out = append(out, types.ObjectValueMust(bootDiskAttrTypes, map[string]attr.Value{"disk_image": types.StringValue(d.GetDiskImage()), "mode": mode}))
	}
	return listOrNull(bootDiskType, out)
}

func sameBootDisk(a, b *containerpb.SecondaryBootDisk) bool {
	return a.GetDiskImage() == b.GetDiskImage() && a.GetMode() == b.GetMode()
}

// bootDisksChange says whether the disks change from state to plan; none and an empty list are the same.
func bootDisksChange(_ context.Context, req planmodifier.ListRequest, resp *listplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = req.PlanValue.IsUnknown() || differs(req.StateValue, req.PlanValue)
}
