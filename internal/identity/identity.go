// Package identity gives a resource kind its Terraform resource identity (Terraform 1.12 and later): typed
// attributes that name the remote object. An identity is read from the resource's id and written back into one, so
// an identity and an id always name the same object, and an import by identity takes the import-by-id path.
package identity

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// Spec is the identity of one resource kind, given as the two spellings of its id with {attribute} where each
// identity attribute goes.
type Spec struct {
	names, localNames []string
	scoped, local     string
	scopedRe, localRe *regexp.Regexp
}

var placeholder = regexp.MustCompile(`\{([a-z_]+)\}`)

// New makes a Spec. scoped is the id of the object reached through a GKE cluster
// ("projects/{project}/locations/{location}/clusters/{cluster}/clusterQueues/{name}"); local is its id under the
// provider's kubernetes block ("{name}"), or "" when the kind needs GKE. It panics on a template it cannot read:
// the templates are the program's own.
func New(scoped, local string) Spec {
	s := Spec{scoped: scoped, local: local}
	s.scopedRe, s.names = compile(scoped)
	if local != "" {
		s.localRe, s.localNames = compile(local)
	}
	return s
}

func compile(template string) (*regexp.Regexp, []string) {
	var names []string
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, m := range placeholder.FindAllStringSubmatchIndex(template, -1) {
		b.WriteString(literal(template[last:m[0]]))
		b.WriteString(`([^/,]+)`)
		names = append(names, template[m[2]:m[3]])
		last = m[1]
	}
	b.WriteString(literal(template[last:]))
	b.WriteString("$")
	if len(names) == 0 {
		panic("identity template without attributes: " + template)
	}
	return regexp.MustCompile(b.String()), names
}

// literal matches a fixed part of an id. GKE's older spelling of a zonal cluster (projects/P/zones/Z/clusters/C),
// which clusterscope.Parse takes and some imported ids keep, names the same object.
func literal(s string) string {
	return strings.ReplaceAll(regexp.QuoteMeta(s), "/locations/", "/(?:locations|zones)/")
}

// Schema is the identity schema. An attribute that only the scoped id has (the cluster's, for a kind that can also
// be reached through the provider's kubernetes block) is optional for an import; the others are required.
func (s Spec) Schema() identityschema.Schema {
	attrs := map[string]identityschema.Attribute{}
	for _, n := range s.names {
		required := s.local == "" || slices.Contains(s.localNames, n)
		desc := descriptions[n]
		if !required {
			desc += " Left out under the provider's `kubernetes` block, with the other two of project, location and cluster."
		}
		attrs[n] = identityschema.StringAttribute{RequiredForImport: required, OptionalForImport: !required, Description: desc}
	}
	return identityschema.Schema{Attributes: attrs}
}

var descriptions = map[string]string{
	"project":         "Project of the GKE cluster.",
	"location":        "Location (zone or region) of the GKE cluster.",
	"cluster":         "Name of the GKE cluster.",
	"name":            "Name of the object.",
	"namespace":       "Namespace of the object.",
	"release_name":    "Name of the Helm release.",
	"on_demand_pool":  "Name of the on-demand (plan A) node pool.",
	"flex_start_pool": "Name of the flex-start (plan B) node pool.",
}

// Values reads the identity's values out of an id. An attribute the id does not name (the cluster's, under the
// kubernetes block) is absent.
func (s Spec) Values(id string) (map[string]string, error) {
	if m := s.scopedRe.FindStringSubmatch(id); m != nil {
		return zip(s.names, m[1:]), nil
	}
	if s.localRe != nil {
		if m := s.localRe.FindStringSubmatch(id); m != nil {
			return zip(s.localNames, m[1:]), nil
		}
	}
	return nil, fmt.Errorf("id %q is not of the form %s", id, s.forms())
}

func zip(names, values []string) map[string]string {
	out := make(map[string]string, len(names))
	for i, n := range names {
		out[n] = values[i]
	}
	return out
}

func (s Spec) forms() string {
	if s.local == "" {
		return s.scoped
	}
	return s.scoped + " or " + s.local
}

// ID writes values into an id: the scoped one when the cluster's attributes are there, the local one when none
// of them is.
func (s Spec) ID(values map[string]string) (string, error) {
	template := s.scoped
	if s.local != "" {
		var have, lack []string
		for _, n := range s.names {
			if !slices.Contains(s.localNames, n) {
				if values[n] != "" {
					have = append(have, n)
				} else {
					lack = append(lack, n)
				}
			}
		}
		if len(have) == 0 {
			template = s.local
		} else if len(lack) > 0 {
			return "", fmt.Errorf("the identity sets %s but not %s: give all of them, or none under the provider's kubernetes block",
				strings.Join(have, " and "), strings.Join(lack, " and "))
		}
	}
	var missing, malformed []string
	id := placeholder.ReplaceAllStringFunc(template, func(p string) string {
		n := p[1 : len(p)-1]
		v := values[n]
		switch {
		case v == "":
			missing = append(missing, n)
		case strings.ContainsAny(v, "/,"):
			malformed = append(malformed, fmt.Sprintf("%s %q", n, v))
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("the identity needs %s", strings.Join(missing, " and "))
	}
	if len(malformed) > 0 {
		return "", fmt.Errorf("each identity attribute is a bare name, without / or , (the cluster's name, not its id): %s", strings.Join(malformed, ", "))
	}
	return id, nil
}

// Set sets dst to the identity of the object with this id.
func (s Spec) Set(dst *tfsdk.ResourceIdentity, id string) diag.Diagnostics {
	var diags diag.Diagnostics
	if dst == nil {
		return diags
	}
	v, err := s.value(id)
	if err != nil {
		diags.AddError("Cannot tell the resource's identity", err.Error())
		return diags
	}
	dst.Raw = v
	return diags
}

func (s Spec) objectType() tftypes.Object {
	attrs := make(map[string]tftypes.Type, len(s.names))
	for _, n := range s.names {
		attrs[n] = tftypes.String
	}
	return tftypes.Object{AttributeTypes: attrs}
}

func (s Spec) value(id string) (tftypes.Value, error) {
	values, err := s.Values(id)
	if err != nil {
		return tftypes.Value{}, err
	}
	attrs := make(map[string]tftypes.Value, len(s.names))
	for _, n := range s.names {
		if v, ok := values[n]; ok {
			attrs[n] = tftypes.NewValue(tftypes.String, v)
		} else {
			attrs[n] = tftypes.NewValue(tftypes.String, nil)
		}
	}
	return tftypes.NewValue(s.objectType(), attrs), nil
}

// Data is the identity of the object with this id, as the protocol carries it.
func (s Spec) Data(id string) (*tfprotov6.ResourceIdentityData, error) {
	v, err := s.value(id)
	if err != nil {
		return nil, err
	}
	dv, err := tfprotov6.NewDynamicValue(s.objectType(), v)
	if err != nil {
		return nil, err
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: &dv}, nil
}

// ImportID is the id an import names: the one given, or the one the given identity makes.
func (s Spec) ImportID(ctx context.Context, req resource.ImportStateRequest) (string, diag.Diagnostics) {
	var diags diag.Diagnostics
	if req.ID != "" || req.Identity == nil {
		return req.ID, diags
	}
	values := map[string]string{}
	for _, n := range s.names {
		var v types.String
		diags.Append(req.Identity.GetAttribute(ctx, path.Root(n), &v)...)
		values[n] = v.ValueString()
	}
	if diags.HasError() {
		return "", diags
	}
	id, err := s.ID(values)
	if err != nil {
		diags.AddError("Cannot import by this identity", err.Error())
	}
	return id, diags
}

// FromState sets dst to the identity of the object whose id st holds. A state without a known id (removed, or an
// apply that failed before the id was known) leaves dst as it is. Pointers, so that it can be deferred to the end of
// a Create or Update.
func (s Spec) FromState(st *tfsdk.State, dst *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	if st == nil || st.Raw.IsNull() || !st.Raw.IsKnown() {
		return
	}
	id := tfvalue.RootString(st.Raw, "id")
	if id.IsNull() || id.IsUnknown() {
		return
	}
	diags.Append(s.Set(dst, id.ValueString())...)
}
