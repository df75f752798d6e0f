package poolpair

import (
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
)

func TestPlanZones(t *testing.T) {
	t.Parallel()
	zones := func(z ...string) types.Set { return zonesValue(z) }
	pair := func(location string, nodeLocations types.Set, drift ...string) *poolPairModel {
		return &poolPairModel{Cluster: types.StringValue("c"), Project: types.StringValue("p"), Location: types.StringValue(location),
			NodeLocations: nodeLocations, Drift: tfdrift.List(drift)}
	}
	unknown := types.SetUnknown(types.StringType)
	for _, tc := range []struct {
		name       string
		configured types.Set
		prior      *poolPairModel
		location   string
		want       types.Set
	}{
		{"configured", zones("us-east5-a"), pair("us-east5-b", zones("us-east5-b")), "us-east5-b", zones("us-east5-a")},
		{"a new pair: GKE chooses", types.SetNull(types.StringType), nil, "us-east5-b", unknown},
		{"left out: GKE's choice, as read", types.SetNull(types.StringType), pair("us-east5-b", zones("us-east5-b")), "us-east5-b", zones("us-east5-b")},
		{"moved by hand: back to where it was made", types.SetNull(types.StringType),
			pair("us-east5-b", zones("us-east5-a"), "NodePool/dws .locations"), "us-east5-b", unknown},
		{"another cluster: GKE chooses again", types.SetNull(types.StringType), pair("us-east5-b", zones("us-east5-b")), "us-east5-a", unknown},
		{"state from before the attribute", types.SetNull(types.StringType), pair("us-east5-b", types.SetNull(types.StringType)), "us-east5-b", unknown},
	} {
		plan := pair(tc.location, tc.configured)
		planZones(tc.configured, plan, tc.prior)
		if !plan.NodeLocations.Equal(tc.want) {
			t.Errorf("%s: planned %s, want %s", tc.name, plan.NodeLocations, tc.want)
		}
	}
	if d := cmp.Diff([]string{"us-east5-a", "us-east5-b"}, zonesOf(zones("us-east5-b", "us-east5-a"))); d != "" {
		t.Errorf("zonesOf sorts (-want +got):\n%s", d)
	}
}

// TestRecordZones: a baseline from before node_locations takes its pool's zones once; one that has zones keeps them.
func TestRecordZones(t *testing.T) {
	t.Parallel()
	baselines := map[string]*containerpb.NodePool{"od": {Name: "od"}, "dws": {Name: "dws", Locations: []string{"us-east5-b"}}}
	live := []*containerpb.NodePool{{Name: "od", Locations: []string{"us-east5-b", "us-east5-a"}}, {Name: "dws", Locations: []string{"us-east5-a"}}}
	if !recordZones(baselines, live...) {
		t.Fatal("recordZones added nothing")
	}
	if d := cmp.Diff([]string{"us-east5-a", "us-east5-b"}, baselines["od"].Locations); d != "" {
		t.Errorf("od (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"us-east5-b"}, baselines["dws"].Locations); d != "" {
		t.Errorf("dws keeps the zones it was made in (-want +got):\n%s", d)
	}
	if recordZones(baselines, live...) {
		t.Error("a second call added zones again")
	}
}

// TestValidateZones: what the configuration shows of the pools' zones, refused with where they can go instead.
func TestValidateZones(t *testing.T) {
	t.Parallel()
	null := types.SetNull(types.StringType)
	for _, tc := range []struct {
		name, location, machineType string
		config, planned             types.Set
		existing                    bool   // a pair already made, its zones not known (a pool moved by hand)
		want                        string // the error's detail, in part; "" for none
	}{
		{"left out, in a zone with the TPU", "us-east5-b", "ct6e-standard-4t", null, types.SetUnknown(types.StringType), false, ""},
		{"left out, in a zone without it", "us-east5-c", "ct6e-standard-4t", null, types.SetUnknown(types.StringType), false,
			"the cluster's zone, us-east5-c, which does not offer ct6e-standard-4t: Cloud TPU's \"TPU regions and zones\" lists it in us-central1-b, us-east1-d, us-east5-a, us-east5-b. Set node_locations to zones of the cluster's region that do: us-east5-a, us-east5-b."},
		{"left out, no zone of the region has it", "us-east5-b", "ct5lp-hightpu-4t", null, types.SetUnknown(types.StringType), false,
			"None of them is in the cluster's region, us-east5"},
		{"left out, a regional cluster: GKE's zones, not known", "us-east5", "ct5lp-hightpu-4t", null, types.SetUnknown(types.StringType), false, ""},
		{"left out, a pair already made: its zones as read", "us-east5-c", "ct6e-standard-4t", null, zonesValue([]string{"us-east5-b"}), true, ""},
		{"from a value not known yet", "us-east5-c", "ct6e-standard-4t", types.SetUnknown(types.StringType), types.SetUnknown(types.StringType), false, ""},
		{"a zone without it", "us-east5-b", "ct6e-standard-4t", zonesValue([]string{"us-east5-c"}), zonesValue([]string{"us-east5-c"}), false,
			"The pools would be in us-east5-c"},
		{"a GPU machine type: not on record", "us-east5-c", "a3-highgpu-8g", null, types.SetUnknown(types.StringType), false, ""},
		{"left out, a pair already made, moved by hand: back to its own zones", "us-east5-c", "ct6e-standard-4t", null, types.SetUnknown(types.StringType), true, ""},
	} {
		plan := &poolPairModel{Location: types.StringValue(tc.location), MachineType: types.StringValue(tc.machineType), NodeLocations: tc.planned}
		var diags diag.Diagnostics
		validateZones(plan, tc.config, !tc.existing, &diags)
		got := ""
		for _, d := range diags.Errors() {
			got += d.Detail()
		}
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
