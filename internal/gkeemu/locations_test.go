package gkeemu

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// tpuPool is a create request of a 4x4 ct6e pool in zones (none: the cluster's).
func tpuPool(name string, zones ...string) string {
	locs, _ := json.Marshal(zones)
	return fmt.Sprintf(`{"nodePool":{"name":%q,"config":{"machineType":"ct6e-standard-4t"},"locations":%s,
	  "placementPolicy":{"tpuTopology":"4x4"},"autoscaling":{"enabled":true,"maxNodeCount":4}}}`, name, locs)
}

// TestNodePoolLocations: a pool's zones must be zones of the cluster's region that offer its TPU; a pool of none is
// in the cluster's zone, and its nodes go to its first zone.
func TestNodePoolLocations(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	for _, loc := range []string{"us-east5-b", "us-east5-c"} {
		if code, body := serve(t, emu, "POST", "/v1/projects/p/locations/"+loc+"/clusters", `{"cluster":{"name":"c","initialNodeCount":1}}`); code != 200 {
			t.Fatalf("create cluster in %s: %d %s", loc, code, body)
		}
	}
	east := "/v1/projects/p/locations/us-east5-b/clusters/c/nodePools"
	noV6e := "/v1/projects/p/locations/us-east5-c/clusters/c/nodePools"
	for _, tc := range []struct {
		name, path, body string
		code             int
		want             string
	}{
		{"not a zone", east, tpuPool("a", "us-east5"), 400, `Location "us-east5" does not exist.`},
		{"another region", east, tpuPool("a", "us-central1-b"), 400, "gkeemu: node pool locations must be zones of the cluster's region us-east5; us-central1-b is not."},
		{"a zone without v6e", east, tpuPool("a", "us-east5-c"), 400, `Invalid machine type "ct6e-standard-4t" in zone "us-east5-c": GCE_NOT_FOUND`},
		{"a multi-host slice in two zones", east, tpuPool("a", "us-east5-a", "us-east5-b"), 400, "gkeemu: node pool a is a multi-host TPU slice (4x4 of ct6e-standard-4t), which takes one zone, not 2"},
		{"another zone of the region", east, tpuPool("moved", "us-east5-a"), 200, ""},
		{"the cluster's zone", east, tpuPool("here"), 200, ""},
		{"the cluster's zone, without v6e", noV6e, tpuPool("a"), 400, `Invalid machine type "ct6e-standard-4t" in zone "us-east5-c": GCE_NOT_FOUND`},
		{"a zone of its own beside the cluster's", noV6e, tpuPool("a", "us-east5-b"), 200, ""},
	} {
		code, body := serve(t, emu, "POST", tc.path, tc.body)
		var e struct{ Error struct{ Message string } }
		_ = json.Unmarshal([]byte(body), &e)
		if code != tc.code || !strings.Contains(e.Error.Message, tc.want) {
			t.Errorf("%s: got %d %s, want %d containing %q", tc.name, code, body, tc.code, tc.want)
		}
	}
	zones := map[string]string{}
	for _, tg := range emu.poolTargets() {
		if tg.clusterName == "c" && strings.Contains(tg.clusterKey, "us-east5-b") {
			zones[tg.pool] = tg.zone
		}
	}
	if zones["moved"] != "us-east5-a" || zones["here"] != "us-east5-b" {
		t.Errorf("node zones = %v, want moved in us-east5-a and here in us-east5-b", zones)
	}
	if code, body := serve(t, emu, "PUT", east+"/here", `{"locations":["us-east5-c"]}`); code != 400 || !strings.Contains(body, "GCE_NOT_FOUND") {
		t.Errorf("update to a zone without v6e: %d %s", code, body)
	}
	if code, body := serve(t, emu, "PUT", east+"/here", `{"locations":["us-east5-a"]}`); code != 200 {
		t.Errorf("update to another zone: %d %s", code, body)
	}
}
