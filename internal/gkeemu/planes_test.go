package gkeemu_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakePlanes hands out one endpoint per cluster and records what was opened and closed.
type fakePlanes struct {
	mu             sync.Mutex
	opened, closed []string
}

func (f *fakePlanes) Open(cluster string) (string, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opened = append(f.opened, cluster)
	return fmt.Sprintf("127.0.0.1:%d", 6443+len(f.opened)), fmt.Sprintf("CA-%d", len(f.opened)), nil
}

func (f *fakePlanes) Close(cluster string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = append(f.closed, cluster)
}

// TestClustersGetTheirOwnControlPlane: each cluster reports the endpoint and CA its control plane was opened with,
// and the plane is closed once the cluster's deletion is done.
func TestClustersGetTheirOwnControlPlane(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 0)
	h.cluster() // made before the planes: opened when they are set
	planes := &fakePlanes{}
	if err := h.emu.SetControlPlanes(planes); err != nil {
		t.Fatal(err)
	}
	if code, body := h.do("POST", loc+"/clusters", `{"cluster":{"name":"d","initialNodeCount":1}}`); code != 200 {
		t.Fatalf("create cluster d: %d %v", code, body)
	}
	h.emu.Settle()
	_, c := h.do("GET", loc+"/clusters/c", "")
	_, d := h.do("GET", loc+"/clusters/d", "")
	if c["endpoint"] == d["endpoint"] || c["endpoint"] != "127.0.0.1:6444" || d["endpoint"] != "127.0.0.1:6445" {
		t.Errorf("endpoints c %v, d %v; want 127.0.0.1:6444 and 127.0.0.1:6445", c["endpoint"], d["endpoint"])
	}
	if ca := d["masterAuth"].(map[string]any)["clusterCaCertificate"]; ca != "CA-2" {
		t.Errorf("d's CA = %v, want CA-2", ca)
	}
	if code, body := h.do("DELETE", loc+"/clusters/d", ""); code != 200 {
		t.Fatalf("delete d: %d %v", code, body)
	}
	h.emu.Settle()
	planes.mu.Lock()
	defer planes.mu.Unlock()
	if diff := cmp.Diff([]string{strings.TrimPrefix(loc, "/v1/") + "/clusters/d"}, planes.closed); diff != "" {
		t.Errorf("closed planes (-want +got):\n%s", diff)
	}
}

// TestDWSPerClusterOverHTTP: the admin API sets DWS for one cluster by name, and refuses unknown clusters and modes.
func TestDWSPerClusterOverHTTP(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 0)
	h.cluster()
	post := func(body string) int {
		resp, err := http.Post(h.srv.URL+"/emulator/v1/dws", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	for body, want := range map[string]int{
		`{"cluster":"c","mode":"pending","delay":"0s"}`:     204,
		`{"cluster":"nope","mode":"pending","delay":"0s"}`:  404,
		`{"cluster":"c","mode":"sometimes","delay":"0s"}`:   400,
		`{"cluster":"c","mode":"provision","delay":"soon"}`: 400,
	} {
		if got := post(body); got != want {
			t.Errorf("%s: %d, want %d", body, got, want)
		}
	}
}
