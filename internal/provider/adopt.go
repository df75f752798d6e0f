package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Adopt imports an object by id as `terraform import` does, through the provider's own protocol server:
// ImportResourceState, then ReadResource. The state is null when the object is gone. A list resource's include_resource answers with it, so that the
// configuration `terraform query` generates from it plans only the import (listing.Adopter).
func (d *providerData) Adopt(ctx context.Context, typeName, id string) (tftypes.Value, diag.Diagnostics) {
	var diags diag.Diagnostics
	s := d.server
	if s == nil {
		diags.AddError("Cannot read the resource", "This provider instance has no protocol server to import through.")
		return tftypes.Value{}, diags
	}
	typ := s.valueType(ctx, typeName)
	if typ == nil {
		diags.AddError("Cannot read the resource", fmt.Sprintf("The provider has no resource type %s.", typeName))
		return tftypes.Value{}, diags
	}
	ir, err := s.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{TypeName: typeName, ID: id})
	if err != nil {
		diags.AddError("importing "+id, err.Error())
		return tftypes.Value{}, diags
	}
	appendProtocol(&diags, ir.Diagnostics)
	if diags.HasError() {
		return tftypes.Value{}, diags
	}
	if len(ir.ImportedResources) != 1 {
		diags.AddError("importing "+id, fmt.Sprintf("the import made %d resources, not one", len(ir.ImportedResources)))
		return tftypes.Value{}, diags
	}
	imp := ir.ImportedResources[0]
	rr, err := s.ReadResource(ctx, &tfprotov6.ReadResourceRequest{
		TypeName: typeName, CurrentState: imp.State, Private: imp.Private, CurrentIdentity: imp.Identity,
	})
	if err != nil {
		diags.AddError("reading "+id, err.Error())
		return tftypes.Value{}, diags
	}
	appendProtocol(&diags, rr.Diagnostics)
	if diags.HasError() {
		return tftypes.Value{}, diags
	}
	var v tftypes.Value
	if rr.NewState != nil {
		if v, err = rr.NewState.Unmarshal(typ); err != nil {
			diags.AddError("reading "+id, err.Error())
			return tftypes.Value{}, diags
		}
	}
	if rr.NewState == nil {
		v = tftypes.NewValue(typ, nil)
	}
	return v, diags // null when the object was deleted after it was listed
}

// appendProtocol adds a protocol response's diagnostics to the framework's.
func appendProtocol(diags *diag.Diagnostics, ds []*tfprotov6.Diagnostic) {
	for _, d := range ds {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			diags.AddError(d.Summary, d.Detail)
		} else {
			diags.AddWarning(d.Summary, d.Detail)
		}
	}
}
