package identity

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

var (
	queue  = New("projects/{project}/locations/{location}/clusters/{cluster}/clusterQueues/{name}", "{name}")
	rayJob = New("projects/{project}/locations/{location}/clusters/{cluster}/namespaces/{namespace}/rayJobs/{name}", "{namespace}/{name}")
	pair   = New("projects/{project}/locations/{location}/clusters/{cluster}/nodePools/{on_demand_pool},{flex_start_pool}", "")
)

func TestValuesAndIDRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		spec Spec
		id   string
		want map[string]string
	}{
		{"queue through GKE", queue, "projects/p/locations/us-east5/clusters/c/clusterQueues/cq",
			map[string]string{"project": "p", "location": "us-east5", "cluster": "c", "name": "cq"}},
		{"queue under a kubernetes block", queue, "cq", map[string]string{"name": "cq"}},
		{"RayJob through GKE", rayJob, "projects/p/locations/l/clusters/c/namespaces/default/rayJobs/job-1",
			map[string]string{"project": "p", "location": "l", "cluster": "c", "namespace": "default", "name": "job-1"}},
		{"RayJob under a kubernetes block", rayJob, "default/job-1", map[string]string{"namespace": "default", "name": "job-1"}},
		{"pool pair", pair, "projects/p/locations/l/clusters/c/nodePools/od,flex",
			map[string]string{"project": "p", "location": "l", "cluster": "c", "on_demand_pool": "od", "flex_start_pool": "flex"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.spec.Values(tc.id)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Values (-want +got):\n%s", diff)
			}
			back, err := tc.spec.ID(got)
			if err != nil {
				t.Fatal(err)
			}
			if back != tc.id {
				t.Errorf("ID(Values(%q)) = %q", tc.id, back)
			}
		})
	}
}

func TestZonesSpellingNamesTheSameObject(t *testing.T) {
	got, err := queue.Values("projects/p/zones/us-east5-b/clusters/c/clusterQueues/cq")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"project": "p", "location": "us-east5-b", "cluster": "c", "name": "cq"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Values (-want +got):\n%s", diff)
	}
}

func TestRefusals(t *testing.T) {
	if _, err := pair.Values("od,flex"); err == nil {
		t.Error("a pool pair id without its cluster was read")
	}
	if _, err := queue.Values("a/b"); err == nil {
		t.Error("a queue id of two names was read")
	}
	cases := []struct {
		name   string
		spec   Spec
		values map[string]string
		says   string
	}{
		{"part of the cluster", queue, map[string]string{"project": "p", "name": "cq"}, "sets project but not location and cluster"},
		{"no name", queue, map[string]string{}, "needs name"},
		{"a slash in a name", rayJob, map[string]string{"namespace": "a/b", "name": "j"}, `bare name, without / or , (the cluster's name, not its id): namespace "a/b"`},
		{"the cluster's id", queue, map[string]string{"project": "p", "location": "l", "cluster": "projects/p/locations/l/clusters/c", "name": "cq"}, `cluster "projects/p/locations/l/clusters/c"`},
		{"GKE kind without cluster", pair, map[string]string{"on_demand_pool": "od", "flex_start_pool": "flex"}, "needs project and location and cluster"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.spec.ID(tc.values)
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("ID(%v) = %v, want an error saying %q", tc.values, err, tc.says)
			}
		})
	}
}

func TestSchemaOptionalOnlyForTheCluster(t *testing.T) {
	s := rayJob.Schema()
	for n, a := range s.Attributes {
		wantRequired := n == "namespace" || n == "name"
		if a.IsRequiredForImport() != wantRequired || a.IsOptionalForImport() == wantRequired {
			t.Errorf("%s: required %v, optional %v", n, a.IsRequiredForImport(), a.IsOptionalForImport())
		}
	}
	for n, a := range pair.Schema().Attributes {
		if !a.IsRequiredForImport() {
			t.Errorf("pool pair's %s is not required for import", n)
		}
	}
}

func TestImportIDFromIdentity(t *testing.T) {
	ctx := context.Background()
	s := rayJob.Schema()
	id := &tfsdk.ResourceIdentity{Schema: s}
	if d := rayJob.Set(id, "projects/p/locations/l/clusters/c/namespaces/ns/rayJobs/j"); d.HasError() {
		t.Fatal(d)
	}
	got, d := rayJob.ImportID(ctx, resource.ImportStateRequest{Identity: id})
	if d.HasError() {
		t.Fatal(d)
	}
	if got != "projects/p/locations/l/clusters/c/namespaces/ns/rayJobs/j" {
		t.Errorf("ImportID = %q", got)
	}
	got, _ = rayJob.ImportID(ctx, resource.ImportStateRequest{ID: "ns/j", Identity: id})
	if got != "ns/j" {
		t.Errorf("an import by id took %q", got)
	}
	local := &tfsdk.ResourceIdentity{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), map[string]tftypes.Value{
		"project": tftypes.NewValue(tftypes.String, nil), "location": tftypes.NewValue(tftypes.String, nil),
		"cluster": tftypes.NewValue(tftypes.String, nil), "namespace": tftypes.NewValue(tftypes.String, "ns"),
		"name": tftypes.NewValue(tftypes.String, "j"),
	})}
	if got, _ = rayJob.ImportID(ctx, resource.ImportStateRequest{Identity: local}); got != "ns/j" {
		t.Errorf("ImportID under a kubernetes block = %q", got)
	}
}
