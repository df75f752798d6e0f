package gkeemu_test

import (
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
)

// adminCall matches the README's admin calls, as a code span (`POST /emulator/v1/dws {...}`) or a curl line
// (curl -X POST $DWSFALLBACK_CONTAINER_ENDPOINT/emulator/v1/dws -d '{...}').
var adminCall = regexp.MustCompile(`(?:POST /emulator/v1/([\w:]+) (\{[^` + "`" + `]*\})|curl -X POST \$DWSFALLBACK_CONTAINER_ENDPOINT/emulator/v1/([\w:]+) -d '([^']*)')`)

// TestReadmeAdminCalls runs every admin call the README writes, as written, against the objects its examples name
// (the tutorial's cluster and pools, the multi-region demo's worker): each is answered 204 and does what it says.
func TestReadmeAdminCalls(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, 0)
	for _, create := range []struct{ path, body string }{
		{"/v1/projects/dwsfallback-local/locations/us-east5-b/clusters", `{"cluster":{"name":"tpu-cluster","initialNodeCount":1}}`},
		{"/v1/projects/dwsfallback-local/locations/us-east5-b/clusters/tpu-cluster/nodePools", tutorialDWS},
		{"/v1/projects/dwsfallback-local/locations/us-east5-a/clusters", `{"cluster":{"name":"tpu-worker-a","initialNodeCount":1}}`},
	} {
		if code, body := h.do("POST", create.path, create.body); code != 200 {
			t.Fatalf("POST %s: %d %v", create.path, code, body)
		}
		h.emu.Settle()
	}
	calls := adminCall.FindAllStringSubmatch(string(readme), -1)
	if len(calls) < 3 {
		t.Fatalf("found %d admin calls in the README, want its examples (at least 3): has the pattern drifted from how it writes them?", len(calls))
	}
	for _, m := range calls {
		name, body := m[1]+m[3], m[2]+m[4]
		resp, err := http.Post(h.srv.URL+"/emulator/v1/"+name, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Errorf("POST %s %s: %d, want 204", name, body, resp.StatusCode)
		}
	}
	if !h.emu.ScaleUpStockedOut("on-demand-pool") {
		t.Error("the README's scaleUpStockouts call did not stock out on-demand-pool")
	}
	_, pool := h.do("GET", "/v1/projects/dwsfallback-local/locations/us-east5-b/clusters/tpu-cluster/nodePools/dws-pool", "")
	if m, _ := pool["management"].(map[string]any); m["autoRepair"] == true {
		t.Errorf("the README's edit left autoRepair on: %v", pool["management"])
	}
}

// Omitted optional fields take the defaults the README documents; a missing required one is refused with what is
// wanted.
func TestAdminDefaults(t *testing.T) {
	h := newHarness(t, 0)
	post := func(name, body string) int {
		t.Helper()
		resp, err := http.Post(h.srv.URL+"/emulator/v1/"+name, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	tests := []struct {
		name, call, body string
		want             int
	}{
		{"faults: count and code default", "faults", `{"method": "GetCluster"}`, 204},
		{"faults: no method", "faults", `{"count": 2}`, 400},
		{"stockouts: count defaults", "stockouts", `{"pool": "dws-pool"}`, 204},
		{"stockouts: no pool", "stockouts", `{}`, 400},
		{"dws: no mode", "dws", `{"delay": "1s"}`, 400},
		{"dws: a negative delay", "dws", `{"mode": "fail", "delay": "-1s"}`, 400},
		{"operationDelay: no delay", "operationDelay", `{}`, 400},
	}
	for _, tt := range tests {
		if got := post(tt.call, tt.body); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
	h.cluster()
	if code, _ := h.do("GET", loc+"/clusters/c", ""); code != http.StatusServiceUnavailable {
		t.Errorf("GetCluster after a fault with the default code: %d, want 503", code)
	}
	if got := h.emu.PendingFaults(); got["stockout:dws-pool"] != 1 {
		t.Errorf("pending after stockouts with no count: %v, want stockout:dws-pool 1", got)
	}
}
