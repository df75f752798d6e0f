package gkeemu_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
)

const loc = "/v1/projects/p/locations/us-east5-b"

type harness struct {
	t   *testing.T
	emu *gkeemu.Server
	srv *httptest.Server
}

func newHarness(t *testing.T, delay time.Duration) *harness {
	emu := gkeemu.New(gkeemu.Options{OperationDelay: delay, Tokens: []string{"tok"}})
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	return &harness{t: t, emu: emu, srv: srv}
}

func (h *harness) do(method, path, body string) (int, map[string]any) {
	h.t.Helper()
	req, _ := http.NewRequest(method, h.srv.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	out := map[string]any{}
	if err := json.Unmarshal(raw, &out); err != nil {
		h.t.Fatalf("%s %s: not JSON: %s", method, path, raw)
	}
	return resp.StatusCode, out
}

// cluster creates cluster c and settles its operation.
func (h *harness) cluster() {
	h.t.Helper()
	if code, body := h.do("POST", loc+"/clusters", `{"cluster":{"name":"c","initialNodeCount":1}}`); code != 200 {
		h.t.Fatalf("create cluster: %d %v", code, body)
	}
	h.emu.Settle()
}

const tutorialDWS = `{"nodePool":{"name":"dws-pool","initialNodeCount":0,
 "autoscaling":{"enabled":true,"minNodeCount":0,"maxNodeCount":4},
 "config":{"machineType":"ct6e-standard-4t","flexStart":true},
 "placementPolicy":{"tpuTopology":"4x4"},"queuedProvisioning":{"enabled":true}}}`

func TestErrorShape(t *testing.T) {
	h := newHarness(t, 0)
	code, body := h.do("GET", loc+"/clusters/nope", "")
	want := map[string]any{"error": map[string]any{
		"code": float64(404), "status": "NOT_FOUND", "message": "Not found: projects/p/locations/us-east5-b/clusters/nope.",
		"errors": []any{map[string]any{"domain": "global", "reason": "notFound", "message": "Not found: projects/p/locations/us-east5-b/clusters/nope."}},
	}}
	if code != 404 {
		t.Errorf("status = %d, want 404", code)
	}
	if diff := cmp.Diff(want, body); diff != "" {
		t.Errorf("error body mismatch (-want +got):\n%s", diff)
	}
}

func TestUnauthenticated(t *testing.T) {
	h := newHarness(t, 0)
	resp, err := http.Get(h.srv.URL + loc + "/clusters")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("no token: status %d, want 401", resp.StatusCode)
	}
}

func TestEnumEncoding(t *testing.T) {
	h := newHarness(t, 0)
	h.cluster()
	_, byName := h.do("GET", loc+"/clusters/c?alt=json", "")
	_, byNumber := h.do("GET", loc+"/clusters/c?%24alt=json%3Benum-encoding%3Dint", "")
	if byName["status"] != "RUNNING" || byNumber["status"] != float64(2) {
		t.Errorf("status as name = %v (want RUNNING), as number = %v (want 2)", byName["status"], byNumber["status"])
	}
}

func TestOperationLifecycleAndBusyCluster(t *testing.T) {
	h := newHarness(t, time.Hour)
	h.cluster()
	code, op := h.do("POST", loc+"/clusters/c/nodePools", tutorialDWS)
	if code != 200 || op["status"] != "PENDING" || op["operationType"] != "CREATE_NODE_POOL" {
		t.Fatalf("create pool: %d %v, want a PENDING CREATE_NODE_POOL operation", code, op)
	}
	_, pool := h.do("GET", loc+"/clusters/c/nodePools/dws-pool", "")
	if pool["status"] != "PROVISIONING" {
		t.Errorf("pool status during creation = %v, want PROVISIONING", pool["status"])
	}
	// GKE's answer to an operation that collides with one under way (kubernetes-sigs/cluster-api-provider-gcp#1363).
	code, body := h.do("DELETE", loc+"/clusters/c/nodePools/dws-pool", "")
	e, _ := body["error"].(map[string]any)
	msg, _ := e["message"].(string)
	details, _ := json.Marshal(e["details"])
	if code != 400 || e["status"] != "FAILED_PRECONDITION" || msg != "Cluster is running incompatible operation "+op["name"].(string)+"." ||
		!strings.Contains(string(details), `"reason":"CLUSTER_ALREADY_HAS_OPERATION"`) {
		t.Errorf("second operation on the pool: %d %v, want GKE's FAILED_PRECONDITION with CLUSTER_ALREADY_HAS_OPERATION", code, e)
	}
	// The cluster itself waits too.
	if code, _ := h.do("POST", loc+"/clusters/c:setResourceLabels", `{"resourceLabels":{"a":"b"}}`); code != 400 {
		t.Errorf("a cluster operation beside a pool's: %d, want 400", code)
	}
	h.emu.Settle()
	_, done := h.do("GET", loc+"/operations/"+fmt.Sprint(op["name"]), "")
	_, pool = h.do("GET", loc+"/clusters/c/nodePools/dws-pool", "")
	if done["status"] != "DONE" || pool["status"] != "RUNNING" {
		t.Errorf("after settling: operation %v, pool %v; want DONE and RUNNING", done["status"], pool["status"])
	}
	cfg := pool["config"].(map[string]any)
	if cfg["flexStart"] != true || cfg["reservationAffinity"].(map[string]any)["consumeReservationType"] != "NO_RESERVATION" {
		t.Errorf("flex pool config = %v; want flexStart echoed and no reservation consumption filled in", cfg)
	}
}

func TestStockout(t *testing.T) {
	h := newHarness(t, time.Hour)
	h.cluster()
	h.emu.Stockout("dws-pool", 1)
	_, op := h.do("POST", loc+"/clusters/c/nodePools", tutorialDWS)
	h.emu.Settle()
	_, done := h.do("GET", loc+"/operations/"+fmt.Sprint(op["name"]), "")
	_, pool := h.do("GET", loc+"/clusters/c/nodePools/dws-pool", "")
	opErr, _ := done["error"].(map[string]any)
	if opErr == nil || !strings.Contains(opErr["message"].(string), "GCE_STOCKOUT") || pool["status"] != "ERROR" {
		t.Errorf("stockout: operation error %v, pool status %v; want GCE_STOCKOUT and ERROR", opErr, pool["status"])
	}
}

func TestNodePoolValidation(t *testing.T) {
	cases := []struct {
		name, body string
		code       int
		want       string
	}{
		{"tutorial dws pool", tutorialDWS, 200, ""},
		{"duplicate name", tutorialDWS, 409, "Already exists: projects/p/locations/us-east5-b/clusters/c/nodePools/dws-pool."},
		{"unknown TPU type", `{"nodePool":{"name":"a","config":{"machineType":"ct6e-standard-9t"}}}`, 400, `gkeemu: "ct6e-standard-9t" is not a TPU machine type the emulator knows`},
		{"topology misfit", `{"nodePool":{"name":"a","config":{"machineType":"ct6e-standard-4t"},"placementPolicy":{"tpuTopology":"4x3"}}}`, 400, "does not fit machine type"},
		{"topology syntax", `{"nodePool":{"name":"a","config":{"machineType":"ct6e-standard-4t"},"placementPolicy":{"tpuTopology":"four"}}}`, 400, "must look like AxB"},
		{"topology on CPU type", `{"nodePool":{"name":"a","config":{"machineType":"n2-standard-8"},"placementPolicy":{"tpuTopology":"2x2"}}}`, 400, `gkeemu: machine type "n2-standard-8" is not a TPU machine type, so the pool cannot have a TPU topology`},
		// GKE's words, vllm-project/ci-infra#545: a multi-host slice pool's per-zone maximum is its slice.
		{"max not whole slices", `{"nodePool":{"name":"a","config":{"machineType":"ct6e-standard-4t"},"placementPolicy":{"tpuTopology":"4x4"},"autoscaling":{"enabled":true,"maxNodeCount":6}}}`, 400, `Maximum node count 6 is not a valid size of TPU pod slice with topology "4x4"`},
		{"two slices in one pool", `{"nodePool":{"name":"a","config":{"machineType":"ct6e-standard-4t"},"placementPolicy":{"tpuTopology":"4x4"},"autoscaling":{"enabled":true,"maxNodeCount":8}}}`, 400, `Maximum node count 8 is not a valid size of TPU pod slice with topology "4x4"`},
		{"total counts only", `{"nodePool":{"name":"a","config":{"machineType":"ct6e-standard-4t"},"placementPolicy":{"tpuTopology":"4x4"},"autoscaling":{"enabled":true,"totalMaxNodeCount":4}}}`, 400, `Maximum node count 0 is not a valid size of TPU pod slice with topology "4x4"`},
		{"min above max", `{"nodePool":{"name":"a","config":{"machineType":"n2-standard-8"},"autoscaling":{"enabled":true,"minNodeCount":3,"maxNodeCount":2}}}`, 400, "gkeemu: minimum node count 3 is greater than maximum node count 2."},
		{"queued without autoscaling", `{"nodePool":{"name":"a","config":{"machineType":"ct6e-standard-4t"},"queuedProvisioning":{"enabled":true}}}`, 400, "gkeemu: a node pool with queued provisioning needs autoscaling enabled."},
		{"queued with minimum", `{"nodePool":{"name":"a","config":{"machineType":"ct6e-standard-4t"},"placementPolicy":{"tpuTopology":"4x4"},"queuedProvisioning":{"enabled":true},"autoscaling":{"enabled":true,"minNodeCount":4,"maxNodeCount":4}}}`, 400, "gkeemu: a node pool with queued provisioning must have a minimum node count of 0, not 4."},
		{"flex-start consuming reservations", `{"nodePool":{"name":"a","config":{"machineType":"ct6e-standard-4t","flexStart":true,"reservationAffinity":{"consumeReservationType":"ANY_RESERVATION"}}}}`, 400, "gkeemu: a flex-start node pool cannot consume reservations"},
		{"bad name", `{"nodePool":{"name":"Bad_Name","config":{"machineType":"n2-standard-8"}}}`, 400, `Invalid value for field "node_pool.name": "Bad_Name". Must be a match of regex`},
		{"unknown field", `{"nodePool":{"name":"a","bogus":1}}`, 400, "Invalid JSON payload received"},
	}
	h := newHarness(t, 0)
	h.cluster()
	for _, tc := range cases {
		code, body := h.do("POST", loc+"/clusters/c/nodePools", tc.body)
		h.emu.Settle()
		msg := ""
		if e, ok := body["error"].(map[string]any); ok {
			msg = e["message"].(string)
		}
		if code != tc.code || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: got %d %q, want %d containing %q", tc.name, code, msg, tc.code, tc.want)
		}
	}
	if code, _ := h.do("POST", loc+"/clusters/missing/nodePools", tutorialDWS); code != 404 {
		t.Errorf("pool in a missing cluster: %d, want 404", code)
	}
}

func TestFaultInjectionOverHTTP(t *testing.T) {
	h := newHarness(t, 0)
	resp, err := http.Post(h.srv.URL+"/emulator/v1/faults", "application/json",
		strings.NewReader(`{"method":"ListClusters","count":1,"httpCode":503}`))
	if err != nil || resp.StatusCode != 204 {
		t.Fatalf("admin call: %v %v", err, resp)
	}
	if got := h.emu.PendingFaults(); got["ListClusters"] != 1 {
		t.Errorf("pending faults before the call: %v, want ListClusters: 1", got)
	}
	if code, _ := h.do("GET", loc+"/clusters", ""); code != 503 {
		t.Errorf("first ListClusters after the fault: %d, want 503", code)
	}
	if got := h.emu.PendingFaults(); len(got) != 0 {
		t.Errorf("pending faults after the call: %v, want none", got)
	}
	if code, _ := h.do("GET", loc+"/clusters", ""); code != 200 {
		t.Errorf("second ListClusters: %d, want 200", code)
	}
	if got := h.emu.Calls()["ListClusters"]; got != 2 {
		t.Errorf("ListClusters counted %d times, want 2", got)
	}
}

// TestScaleUpStockoutsOverHTTP: a test, the demo or a user in another process plays a zone without capacity for one
// pool's scale-ups, and lifts it.
func TestScaleUpStockoutsOverHTTP(t *testing.T) {
	h := newHarness(t, 0)
	post := func(body string) int {
		resp, err := http.Post(h.srv.URL+"/emulator/v1/scaleUpStockouts", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(`{"pool":"on-demand-pool","mode":"on"}`); code != 204 || !h.emu.ScaleUpStockedOut("on-demand-pool") {
		t.Errorf("mode on: %d, stocked out %v; want 204 and true", code, h.emu.ScaleUpStockedOut("on-demand-pool"))
	}
	if h.emu.ScaleUpStockedOut("dws-pool") {
		t.Error("a stockout of on-demand-pool stocked out dws-pool too")
	}
	if code := post(`{"pool":"on-demand-pool","mode":"off"}`); code != 204 || h.emu.ScaleUpStockedOut("on-demand-pool") {
		t.Errorf("mode off: %d, stocked out %v; want 204 and false", code, h.emu.ScaleUpStockedOut("on-demand-pool"))
	}
	for _, bad := range []string{`{"pool":"on-demand-pool","mode":"yes"}`, `{"mode":"on"}`} {
		if code := post(bad); code != 400 {
			t.Errorf("%s: %d, want 400", bad, code)
		}
	}
}

// What runs beside the emulator answers on its admin API; the emulator's own routes stay as they were.
func TestHandleAdmin(t *testing.T) {
	h := newHarness(t, 0)
	h.emu.HandleAdmin("restarts", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"restarts":[]}`))
	}))
	resp, err := http.Get(h.srv.URL + "/emulator/v1/restarts")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != `{"restarts":[]}` {
		t.Errorf("GET restarts = %d %s", resp.StatusCode, b)
	}
	resp, err = http.Get(h.srv.URL + "/emulator/v1/faults")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("GET faults beside it: %v %v", err, resp)
	}
}

// A flex-start or queued pool gets GKE's short-lived upgrades whatever the request asked; other pools keep surge.
func TestUpgradeStrategy(t *testing.T) {
	h := newHarness(t, 0)
	h.cluster()
	onDemand := `{"nodePool":{"name":"on-demand","initialNodeCount":0,"upgradeSettings":{"maxSurge":1},
 "autoscaling":{"enabled":true,"minNodeCount":0,"maxNodeCount":4},
 "config":{"machineType":"ct6e-standard-4t"},"placementPolicy":{"tpuTopology":"4x4"}}}`
	dws := strings.Replace(tutorialDWS, `"initialNodeCount":0,`, `"initialNodeCount":0,"upgradeSettings":{"maxSurge":1},`, 1)
	for _, body := range []string{onDemand, dws} {
		if code, resp := h.do("POST", loc+"/clusters/c/nodePools", body); code != 200 {
			t.Fatalf("create pool: %d %v", code, resp)
		}
		h.emu.Settle()
	}
	cases := map[string]map[string]any{
		"on-demand": {"maxSurge": float64(1), "strategy": "SURGE"},
		"dws-pool":  {"strategy": "SHORT_LIVED"},
	}
	for pool, want := range cases {
		_, got := h.do("GET", loc+"/clusters/c/nodePools/"+pool, "")
		if diff := cmp.Diff(want, got["upgradeSettings"]); diff != "" {
			t.Errorf("%s upgradeSettings (-want +got):\n%s", pool, diff)
		}
	}
	code, op := h.do("PUT", loc+"/clusters/c/nodePools/dws-pool", `{"upgradeSettings":{"maxSurge":2,"strategy":"SURGE"}}`)
	if code != 200 {
		t.Fatalf("update pool: %d %v", code, op)
	}
	h.emu.Settle()
	if _, got := h.do("GET", loc+"/clusters/c/nodePools/dws-pool", ""); got["upgradeSettings"].(map[string]any)["strategy"] != "SHORT_LIVED" {
		t.Errorf("after an update asking for surge: %v, want SHORT_LIVED kept", got["upgradeSettings"])
	}
}

// An edit by field path changes the stored pool or cluster as another writer would; a wrong path or value is refused.
func TestEditOverHTTP(t *testing.T) {
	h := newHarness(t, 0)
	h.cluster()
	if code, resp := h.do("POST", loc+"/clusters/c/nodePools", tutorialDWS); code != 200 {
		t.Fatalf("create pool: %d %v", code, resp)
	}
	h.emu.Settle()
	pool := "projects/p/locations/us-east5-b/clusters/c/nodePools/dws-pool"
	edit := func(name, field, value string) int {
		t.Helper()
		body := fmt.Sprintf(`{"name":%q,"field":%q,"value":%s}`, name, field, value)
		resp, err := http.Post(h.srv.URL+"/emulator/v1/edit", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	for _, e := range []struct{ field, value string }{
		{"config.machineType", `"ct6e-standard-8t"`},
		{"autoscaling.maxNodeCount", `8`},
		{"config.oauthScopes", `["x"]`},
		{"queuedProvisioning", `null`},
		{"upgradeSettings.blueGreenSettings.standardRolloutPolicy.batchNodeCount", `2`},
		// The other member of the same oneof replaces it.
		{"upgradeSettings.blueGreenSettings.standardRolloutPolicy.batchPercentage", `0.5`},
	} {
		if code := edit(pool, e.field, e.value); code != 204 {
			t.Errorf("edit %s: %d, want 204", e.field, code)
		}
	}
	_, got := h.do("GET", loc+"/clusters/c/nodePools/dws-pool", "")
	cfg := got["config"].(map[string]any)
	if cfg["machineType"] != "ct6e-standard-8t" || got["autoscaling"].(map[string]any)["maxNodeCount"] != float64(8) ||
		fmt.Sprint(cfg["oauthScopes"]) != "[x]" || got["queuedProvisioning"] != nil || got["status"] != "RUNNING" {
		t.Errorf("edited pool = %v", got)
	}
	if policy := got["upgradeSettings"].(map[string]any)["blueGreenSettings"].(map[string]any)["standardRolloutPolicy"]; fmt.Sprint(policy) != "map[batchPercentage:0.5]" {
		t.Errorf("edited rollout policy = %v, want the batch share alone", policy)
	}
	if code := edit("projects/p/locations/us-east5-b/clusters/c", "description", `"by hand"`); code != 204 {
		t.Errorf("edit cluster: %d", code)
	}
	if _, c := h.do("GET", loc+"/clusters/c", ""); c["description"] != "by hand" || len(c["nodePools"].([]any)) != 2 {
		t.Errorf("edited cluster = %v, want its description set and its two pools kept", c)
	}
	for _, bad := range []struct{ name, field, value string }{
		{pool, "config.noSuchField", `1`},
		{pool, "autoscaling.maxNodeCount", `"eight"`},
		{pool + "x", "name", `"y"`},
		{"projects/p/locations/us-east5-b/clusters/c", "nodePools", `[]`},
	} {
		if code := edit(bad.name, bad.field, bad.value); code != 400 {
			t.Errorf("edit %s %s = %s: %d, want 400", bad.name, bad.field, bad.value, code)
		}
	}
}

// TestLocationPolicyDefaults: a pool created without a location policy gets BALANCED, a Spot pool ANY (gcloud 393 to
// 455: "For Spot and PVM it defaults to ANY, and for all other VM kinds a BALANCED policy is used").
func TestLocationPolicyDefaults(t *testing.T) {
	h := newHarness(t, 0)
	h.cluster()
	for name, spot := range map[string]bool{"plain": false, "spot": true} {
		body := fmt.Sprintf(`{"nodePool":{"name":%q,"config":{"machineType":"n2-standard-8","spot":%t},"autoscaling":{"enabled":true,"maxNodeCount":3}}}`, name, spot)
		if code, out := h.do("POST", loc+"/clusters/c/nodePools", body); code != 200 {
			t.Fatalf("create %s: %d %v", name, code, out)
		}
	}
	h.emu.Settle()
	for name, want := range map[string]string{"plain": "BALANCED", "spot": "ANY"} {
		_, np := h.do("GET", loc+"/clusters/c/nodePools/"+name, "")
		as, _ := np["autoscaling"].(map[string]any)
		if as["locationPolicy"] != want {
			t.Errorf("%s pool: locationPolicy %v, want %s", name, as["locationPolicy"], want)
		}
	}
}

// TestPoolOperationsSideBySide: GKE creates, updates and deletes node pools side by side (GKE "Add and manage node
// pools"), up to its quota of 5 operations a cluster (hashicorp/terraform-provider-google#15579).
func TestPoolOperationsSideBySide(t *testing.T) {
	h := newHarness(t, time.Hour)
	h.cluster()
	for i := range 5 {
		body := fmt.Sprintf(`{"nodePool":{"name":"p%d","config":{"machineType":"n2-standard-8"}}}`, i)
		if code, out := h.do("POST", loc+"/clusters/c/nodePools", body); code != 200 {
			t.Fatalf("pool %d beside the others: %d %v", i, code, out)
		}
	}
	code, body := h.do("POST", loc+"/clusters/c/nodePools", `{"nodePool":{"name":"p5","config":{"machineType":"n2-standard-8"}}}`)
	msg, _ := body["error"].(map[string]any)["message"].(string)
	if code != 429 || msg != `Too many operations: cluster "c" hits the concurrent operations quota 5, please try again later.` {
		t.Errorf("a sixth operation: %d %q, want GKE's 429", code, msg)
	}
	h.emu.Settle()
	if code, out := h.do("POST", loc+"/clusters/c/nodePools", `{"nodePool":{"name":"p5","config":{"machineType":"n2-standard-8"}}}`); code != 200 {
		t.Errorf("after the others are done: %d %v", code, out)
	}
}
