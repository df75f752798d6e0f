package gkeemu_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Faults injected for one cluster fail only the calls about it (its own paths, its operations, its creation), so
// tests that each use a cluster of their own run side by side; faults for every call still reach every cluster.
func TestFaultsByCluster(t *testing.T) {
	h := newHarness(t, 0)
	h.cluster()
	if code, body := h.do("POST", loc+"/clusters", `{"cluster":{"name":"d","initialNodeCount":1}}`); code != 200 {
		t.Fatalf("create cluster d: %d %v", code, body)
	}
	h.emu.Settle()

	h.emu.For("c").FailNext("GetCluster", 1, 503, "")
	h.emu.For("e").FailNext("CreateCluster", 1, 429, "")
	if code, _ := h.do("GET", loc+"/clusters/d", ""); code != 200 {
		t.Errorf("GetCluster d with a fault for c: %d, want 200", code)
	}
	if code, _ := h.do("POST", loc+"/clusters", `{"cluster":{"name":"f","initialNodeCount":1}}`); code != 200 {
		t.Errorf("CreateCluster f with a fault for e: %d, want 200", code)
	}
	h.emu.Settle()
	if got, want := h.emu.PendingFaults(), map[string]int{"c/GetCluster": 1, "e/CreateCluster": 1}; !cmp.Equal(got, want) {
		t.Errorf("pending, every cluster's:\n%s", cmp.Diff(want, got))
	}
	if code, _ := h.do("GET", loc+"/clusters/c", ""); code != 503 {
		t.Errorf("GetCluster c: %d, want its 503", code)
	}
	if code, _ := h.do("POST", loc+"/clusters", `{"cluster":{"name":"e","initialNodeCount":1}}`); code != 429 {
		t.Errorf("CreateCluster e: %d, want its 429", code)
	}
	if got := h.emu.For("c").Pending(); len(got) != 0 {
		t.Errorf("c's faults after its call: %v, want none", got)
	}

	// An operation is about the cluster it changes.
	code, op := h.do("POST", loc+"/clusters/d/nodePools", tutorialDWS)
	if code != 200 {
		t.Fatalf("create pool in d: %d %v", code, op)
	}
	h.emu.For("c").FailNext("GetOperation", 1, 503, "")
	if code, _ := h.do("GET", loc+"/operations/"+op["name"].(string), ""); code != 200 {
		t.Errorf("GetOperation of d's pool with a fault for c: %d, want 200", code)
	}
	h.emu.For("d").FailNext("GetOperation", 1, 503, "")
	if code, _ := h.do("GET", loc+"/operations/"+op["name"].(string), ""); code != 503 {
		t.Errorf("GetOperation of d's pool with a fault for d: %d, want 503", code)
	}
	h.emu.Settle()

	// A fault for every call fails any cluster's.
	h.emu.FailNext("GetCluster", 1, 503, "")
	if code, _ := h.do("GET", loc+"/clusters/d", ""); code != 503 {
		t.Errorf("GetCluster d with a fault for every call: %d, want 503", code)
	}

	if got, want := h.emu.For("d").Calls(), map[string]int{"CreateCluster": 1, "GetCluster": 2, "CreateNodePool": 1, "GetOperation": 2}; !cmp.Equal(got, want) {
		t.Errorf("d's calls:\n%s", cmp.Diff(want, got))
	}
	if got := h.emu.Calls()["GetCluster"]; got != 3 {
		t.Errorf("GetCluster of every cluster: %d, want 3", got)
	}
	h.emu.For("d").ResetCalls()
	if got := h.emu.For("d").Calls(); len(got) != 0 {
		t.Errorf("d's calls after its reset: %v", got)
	}
	if got := h.emu.Calls()["GetCluster"]; got != 3 {
		t.Errorf("every call's count after d's reset: %d, want 3", got)
	}
}

// A cluster's stockouts and slow operations are its own.
func TestStockoutsAndDelaysByCluster(t *testing.T) {
	h := newHarness(t, 0)
	for _, name := range []string{"a", "b"} {
		if code, body := h.do("POST", loc+"/clusters", `{"cluster":{"name":"`+name+`","initialNodeCount":1}}`); code != 200 {
			t.Fatalf("create cluster %s: %d %v", name, code, body)
		}
		h.emu.Settle()
	}
	h.emu.For("a").Stockout("dws-pool", 1)
	h.emu.For("a").StockoutScaleUps("on-demand-pool", true)
	for _, name := range []string{"b", "a"} {
		if code, body := h.do("POST", loc+"/clusters/"+name+"/nodePools", tutorialDWS); code != 200 {
			t.Fatalf("create pool in %s: %d %v", name, code, body)
		}
		h.emu.Settle()
	}
	status := func(cluster string) string {
		_, np := h.do("GET", loc+"/clusters/"+cluster+"/nodePools/dws-pool", "")
		s, _ := np["status"].(string)
		return s
	}
	if a, b := status("a"), status("b"); a != "ERROR" || b != "RUNNING" {
		t.Errorf("after a stockout for a: a's pool %s, b's %s; want ERROR and RUNNING", a, b)
	}
	if !h.emu.For("a").ScaleUpStockedOut("on-demand-pool") || h.emu.For("b").ScaleUpStockedOut("on-demand-pool") {
		t.Error("a scale-up stockout for a's pool is not a's alone")
	}

	h.emu.SetOperationDelay(time.Second)
	h.emu.For("a").SlowOperations(time.Hour)
	_, op := h.do("DELETE", loc+"/clusters/b/nodePools/dws-pool", "")
	time.Sleep(1500 * time.Millisecond)
	if _, got := h.do("GET", loc+"/operations/"+op["name"].(string), ""); got["status"] != "DONE" {
		t.Errorf("b's operation with a slow a: %v, want DONE", got["status"])
	}
	h.emu.For("a").Clear()
	if got := h.emu.PendingFaults(); len(got) != 0 || h.emu.For("a").ScaleUpStockedOut("on-demand-pool") {
		t.Errorf("after a's clear: pending %v", got)
	}
}

// The admin API scopes with "cluster" (a query parameter on GET).
func TestFaultsByClusterOverHTTP(t *testing.T) {
	h := newHarness(t, 0)
	post := func(path, body string) {
		t.Helper()
		resp, err := http.Post(h.srv.URL+"/emulator/v1/"+path, "application/json", strings.NewReader(body))
		if err != nil || resp.StatusCode != 204 {
			t.Fatalf("POST %s %s: %v %v", path, body, err, resp)
		}
		_ = resp.Body.Close()
	}
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(h.srv.URL + "/emulator/v1/" + path)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		b, _ := io.ReadAll(resp.Body)
		return strings.TrimSpace(string(b))
	}
	post("faults", `{"method":"GetCluster","cluster":"c"}`)
	post("stockouts", `{"pool":"dws-pool","cluster":"c","count":2}`)
	post("faults", `{"method":"ListClusters"}`)
	if got := get("faults?cluster=c"); got != `{"GetCluster":1,"stockout:dws-pool":2}` {
		t.Errorf("GET faults?cluster=c = %s", got)
	}
	if got := get("faults"); got != `{"ListClusters":1,"c/GetCluster":1,"c/stockout:dws-pool":2}` {
		t.Errorf("GET faults = %s", got)
	}
	post("faults:clear", `{"cluster":"c"}`)
	if got := get("faults"); got != `{"ListClusters":1}` {
		t.Errorf("GET faults after c's clear = %s", got)
	}
	h.do("GET", loc+"/clusters/c", "")
	if got := get("calls?cluster=c"); got != `{"GetCluster":1}` {
		t.Errorf("GET calls?cluster=c = %s", got)
	}
}
