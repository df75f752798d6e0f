package provider

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// identityTypes are the identity schemas' value types, by resource type name.
func identityTypes(t testing.TB, ctx context.Context, s tfprotov6.ProviderServer) map[string]tftypes.Type {
	t.Helper()
	resp, err := s.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil || len(resp.Diagnostics) > 0 {
		t.Fatalf("identity schemas: %v %v", err, resp.Diagnostics)
	}
	out := map[string]tftypes.Type{}
	for name, s := range resp.IdentitySchemas {
		out[name] = s.ValueType()
	}
	return out
}

// identityText is an identity as text; none and a null one read the same, as Terraform reads them.
func identityText(t testing.TB, typ tftypes.Type, d *tfprotov6.ResourceIdentityData) string {
	t.Helper()
	if d == nil || d.IdentityData == nil {
		return ""
	}
	v, err := d.IdentityData.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	if v.IsNull() {
		return ""
	}
	return v.String()
}

func identityValue(typ tftypes.Type, values map[string]string) tftypes.Value {
	attrs := map[string]tftypes.Value{}
	for n := range typ.(tftypes.Object).AttributeTypes {
		if v, ok := values[n]; ok {
			attrs[n] = tftypes.NewValue(tftypes.String, v)
		} else {
			attrs[n] = tftypes.NewValue(tftypes.String, nil)
		}
	}
	return tftypes.NewValue(typ, attrs)
}

// testServer is the provider's protocol server and its schemas, not configured.
func testServer(t *testing.T) (tfprotov6.ProviderServer, *tfprotov6.GetProviderSchemaResponse) {
	t.Helper()
	s, err := NewServer(&dwsProvider{version: "test"})()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := s.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range schemas.Diagnostics {
		t.Errorf("schema: %s: %s", d.Summary, d.Detail)
	}
	return s, schemas
}

// Every kind has an identity, and can be found with terraform query.
func TestEveryResourceHasAnIdentityAndAList(t *testing.T) {
	t.Parallel() // the protocol only
	s, schemas := testServer(t)
	ids := identityTypes(t, context.Background(), s)
	for name := range schemas.ResourceSchemas {
		if ids[name] == nil {
			t.Errorf("%s has no identity", name)
		}
		if _, ok := schemas.ListResourceSchemas[name]; !ok {
			t.Errorf("%s has no list resource", name)
		}
	}
}

// An import by identity takes the import-by-id path: the same state, the same identity.
func TestImportByIdentity(t *testing.T) {
	t.Parallel() // the protocol only
	const cluster = "projects/p/locations/us-east5-b/clusters/c"
	scope := map[string]string{"project": "p", "location": "us-east5-b", "cluster": "c"}
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range scope {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	cases := []struct {
		typeName string
		identity map[string]string
		id       string
	}{
		{"dwsfallback_cluster", map[string]string{"project": "p", "location": "us-east5-b", "name": "c"}, cluster},
		{"dwsfallback_tpu_pool_pair", with(map[string]string{"on_demand_pool": "od", "flex_start_pool": "dws"}), cluster + "/nodePools/od,dws"},
		{"dwsfallback_gpu_pool_pair", with(map[string]string{"on_demand_pool": "od", "flex_start_pool": "dws"}), cluster + "/nodePools/od,dws"},
		{"dwsfallback_kueue_queue", with(map[string]string{"name": "cq"}), cluster + "/clusterQueues/cq"},
		{"dwsfallback_compute_class", with(map[string]string{"name": "tpu"}), cluster + "/computeClasses/tpu"},
		{"dwsfallback_multikueue_worker", with(map[string]string{"name": "w1"}), cluster + "/multiKueueClusters/w1"},
		{"dwsfallback_multikueue_config", with(map[string]string{"name": "cfg"}), cluster + "/multiKueueConfigs/cfg"},
		{"dwsfallback_rayjob", with(map[string]string{"namespace": "default", "name": "job"}), cluster + "/namespaces/default/rayJobs/job"},
		{"dwsfallback_kueue_install", with(map[string]string{"namespace": "kueue-system", "release_name": "kueue"}), cluster + "/helmReleases/kueue-system/kueue"},
	}
	ctx := context.Background()
	s, err := NewServer(&dwsProvider{version: "test"})()
	if err != nil {
		t.Fatal(err)
	}
	schemas := configureForDiff(t, ctx, s)
	ids := identityTypes(t, ctx, s)
	var covered []string
	for _, tc := range cases {
		t.Run(tc.typeName, func(t *testing.T) {
			covered = append(covered, tc.typeName)
			typ, idTyp := schemas[tc.typeName].ValueType(), ids[tc.typeName]
			want := identityValue(idTyp, tc.identity)
			dv, err := tfprotov6.NewDynamicValue(idTyp, want)
			if err != nil {
				t.Fatal(err)
			}
			for _, req := range []*tfprotov6.ImportResourceStateRequest{
				{TypeName: tc.typeName, Identity: &tfprotov6.ResourceIdentityData{IdentityData: &dv}},
				{TypeName: tc.typeName, ID: tc.id},
			} {
				resp, err := s.ImportResourceState(ctx, req)
				if err != nil || len(resp.Diagnostics) > 0 || len(resp.ImportedResources) != 1 {
					t.Fatalf("import %+v: %v %v", req, err, resp.Diagnostics)
				}
				got := resp.ImportedResources[0]
				st, err := got.State.Unmarshal(typ)
				if err != nil {
					t.Fatal(err)
				}
				var attrs map[string]tftypes.Value
				_ = st.As(&attrs)
				var id string
				_ = attrs["id"].As(&id)
				if id != tc.id {
					t.Errorf("import (id %q) made id %q, want %q", req.ID, id, tc.id)
				}
				if diff := cmp.Diff(want.String(), identityText(t, idTyp, got.Identity)); diff != "" {
					t.Errorf("import (id %q) made another identity (-want +got):\n%s", req.ID, diff)
				}
			}
		})
	}
	for name := range schemas {
		if !slices.Contains(covered, name) {
			t.Errorf("%s: no import-by-identity case", name)
		}
	}
}

func TestImportByIdentityRefusesHalfAScope(t *testing.T) {
	t.Parallel() // the protocol only
	ctx := context.Background()
	s, err := NewServer(&dwsProvider{version: "test"})()
	if err != nil {
		t.Fatal(err)
	}
	configureForDiff(t, ctx, s)
	idTyp := identityTypes(t, ctx, s)["dwsfallback_kueue_queue"]
	dv, _ := tfprotov6.NewDynamicValue(idTyp, identityValue(idTyp, map[string]string{"project": "p", "name": "cq"}))
	resp, err := s.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{
		TypeName: "dwsfallback_kueue_queue", Identity: &tfprotov6.ResourceIdentityData{IdentityData: &dv}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Diagnostics) != 1 || !strings.Contains(resp.Diagnostics[0].Detail, "sets project but not location and cluster") {
		t.Errorf("diagnostics %+v", resp.Diagnostics)
	}
}
