package poolpair

import (
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
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
