package gkeemu_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// An update keeps every field it sets that GKE changes in place, not only those with rules of their own; one the
// emulator has no home for is refused, not dropped.
func TestUpdateKeepsEveryInPlaceField(t *testing.T) {
	h := newHarness(t, 0)
	h.cluster()
	if code, resp := h.do("POST", loc+"/clusters/c/nodePools", tutorialDWS); code != 200 {
		t.Fatalf("create pool: %d %v", code, resp)
	}
	h.emu.Settle()
	pool := loc + "/clusters/c/nodePools/dws-pool"
	for _, tc := range []struct {
		name, body string
		wantCode   int
		wantStatus string
	}{
		// As gcloud sends --workload-metadata and --system-config-from-file's kubelet part.
		{"workload metadata", `{"workloadMetadataConfig":{"mode":"GCE_METADATA"}}`, 200, ""},
		{"kubelet config", `{"kubeletConfig":{"cpuManagerPolicy":"static"}}`, 200, ""},
		{"network config, on the pool", `{"nodeNetworkConfig":{"podRange":"pods"}}`, 200, ""},
		{"network config, merged", `{"nodeNetworkConfig":{"enablePrivateNodes":true}}`, 200, ""},
		{"the boot disk by its newer field", `{"bootDisk":{"provisionedIops":"5000"}}`, 200, ""},
		{"a boot disk the machine cannot take", `{"bootDisk":{"diskType":"pd-standard"}}`, 400, "INVALID_ARGUMENT"},
		{"storage pools, a list", `{"storagePools":["projects/p/zones/us-east5-b/storagePools/sp"]}`, 200, ""},
		{"a custom image", `{"image":"my-image","imageProject":"p"}`, 501, "UNIMPLEMENTED"},
	} {
		code, resp := h.do("PUT", pool, tc.body)
		if code != tc.wantCode {
			t.Errorf("%s: %d %v, want %d", tc.name, code, resp, tc.wantCode)
			continue
		}
		if tc.wantStatus != "" {
			if got := resp["error"].(map[string]any)["status"]; got != tc.wantStatus {
				t.Errorf("%s: status %v, want %s", tc.name, got, tc.wantStatus)
			}
		}
		h.emu.Settle()
	}
	_, got := h.do("GET", pool, "")
	config := got["config"].(map[string]any)
	want := map[string]any{
		"workloadMetadataConfig": map[string]any{"mode": "GCE_METADATA"},
		"kubeletConfig":          map[string]any{"cpuManagerPolicy": "static"},
		"storagePools":           []any{"projects/p/zones/us-east5-b/storagePools/sp"},
	}
	for k, w := range want {
		if diff := cmp.Diff(w, config[k]); diff != "" {
			t.Errorf("config.%s (-want +got):\n%s", k, diff)
		}
	}
	network := got["networkConfig"].(map[string]any)
	if network["enablePrivateNodes"] != true || network["podRange"] != "pods" {
		t.Errorf("networkConfig = %v, want enablePrivateNodes true beside the pod range it had", network)
	}
	disk := config["bootDisk"].(map[string]any)
	if disk["provisionedIops"] != "5000" || disk["diskType"] != config["diskType"] || disk["diskType"] == "pd-standard" {
		t.Errorf("config.bootDisk = %v (config.diskType %v), want the pool's disk with 5000 IOPS", disk, config["diskType"])
	}
	if _, ok := config["image"]; ok {
		t.Error("the refused update left its image")
	}
}
