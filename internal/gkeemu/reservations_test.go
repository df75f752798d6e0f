package gkeemu

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

const resLoc = "/v1/projects/p/locations/us-east5-b/clusters/c/nodePools"

// reservedPool is a create request of a 4x4 ct6e pool (4 nodes a slice) that consumes reservation value.
func reservedPool(name, value string, maxNodes int) string {
	return fmt.Sprintf(`{"nodePool":{"name":%q,"config":{"machineType":"ct6e-standard-4t","reservationAffinity":{
	  "consumeReservationType":"SPECIFIC_RESERVATION","key":"compute.googleapis.com/reservation-name","values":[%q]}},
	  "placementPolicy":{"tpuTopology":"4x4"},"autoscaling":{"enabled":true,"maxNodeCount":%d}}}`, name, value, maxNodes)
}

func serve(t *testing.T, emu *Server, method, path, body string) (int, string) {
	t.Helper()
	w := httptest.NewRecorder()
	emu.ServeHTTP(w, httptest.NewRequest(method, path, strings.NewReader(body)))
	emu.Settle()
	return w.Code, w.Body.String()
}

func TestReservationRules(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	if code, body := serve(t, emu, "POST", "/v1/projects/p/locations/us-east5-b/clusters", `{"cluster":{"name":"c","initialNodeCount":1}}`); code != 200 {
		t.Fatalf("create cluster: %d %s", code, body)
	}
	for _, body := range []string{
		`{"name":"tpu-res","zone":"us-east5-b","machineType":"ct6e-standard-4t","count":8}`,
		`{"name":"cpu-res","zone":"us-east5-b","machineType":"n2-standard-8","count":2}`,
	} {
		if code, out := serve(t, emu, "POST", "/emulator/v1/reservations", body); code != http.StatusNoContent {
			t.Fatalf("admin API: %d %s", code, out)
		}
	}
	for _, tc := range []struct {
		name, body string
		code       int
		want       string
	}{
		{"missing", reservedPool("a", "nope", 4), 404, `Google Compute Engine: reservation "nope" not found for node pool "a" at zone "us-east5-b".`},
		{"other zone's", reservedPool("a", "projects/p/reservations/elsewhere", 4), 404, "not found"},
		{"other machine type", reservedPool("a", "cpu-res", 4), 400, `gkeemu: reservation "cpu-res" in zone "us-east5-b" reserves machine type n2-standard-8, not ct6e-standard-4t of node pool "a"`},
		{"no value", strings.Replace(reservedPool("a", "x", 4), `"values":["x"]`, `"values":[]`, 1), 400, "gkeemu: a SPECIFIC_RESERVATION affinity needs the key \"compute.googleapis.com/reservation-name\" and exactly one value"},
		{"queued on a reservation", `{"nodePool":{"name":"a","config":{"machineType":"ct6e-standard-4t","reservationAffinity":{"consumeReservationType":"ANY_RESERVATION"}},
		  "placementPolicy":{"tpuTopology":"4x4"},"queuedProvisioning":{"enabled":true},"autoscaling":{"enabled":true,"maxNodeCount":4}}}`, 400,
			"Queued_provisioning requires reservation affinity to be set to none."},
		{"run limit over 7 days", `{"nodePool":{"name":"a","config":{"machineType":"ct6e-standard-4t","flexStart":true,"maxRunDuration":"604801s"},
		  "placementPolicy":{"tpuTopology":"4x4"},"autoscaling":{"enabled":true,"maxNodeCount":4}}}`, 400, `gkeemu: maxRunDuration "604801s" of node pool a is too long: the Dynamic Workload Scheduler runs its VMs for at most 7 days (604800s).`},
		{"run limit not a duration", `{"nodePool":{"name":"a","config":{"machineType":"ct6e-standard-4t","maxRunDuration":"4h"}}}`, 400, "Invalid JSON payload"},
		{"shared reservation by path, of a block", reservedPool("od", "projects/p/reservations/tpu-res/reservationBlocks/b1", 4), 200, ""},
	} {
		code, body := serve(t, emu, "POST", resLoc, tc.body)
		var e struct{ Error struct{ Message string } }
		_ = json.Unmarshal([]byte(body), &e)
		if code != tc.code || !strings.Contains(e.Error.Message, tc.want) {
			t.Errorf("%s: got %d %s, want %d containing %q", tc.name, code, body, tc.code, tc.want)
		}
	}
	if code, body := serve(t, emu, "PUT", resLoc+"/od", `{"maxRunDuration":"3600s"}`); code != 200 {
		t.Errorf("update of the run limit: %d %s", code, body)
	}
	if got := emu.Reservations(); len(got) != 2 || got[1].Name != "tpu-res" || got[1].InUse != 0 {
		t.Errorf("Reservations() = %+v, want tpu-res with none in use", got)
	}
}

// TestReservationCapsScaleUp: three pools of one slice each on a reservation of 2 slices get 2 slices, and the pods
// of the third wait, as GKE gives no VM past the reservation's count.
func TestReservationCapsScaleUp(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	serve(t, emu, "POST", "/v1/projects/p/locations/us-east5-b/clusters", `{"cluster":{"name":"c","initialNodeCount":1}}`)
	if err := emu.AddReservation(Reservation{Name: "tpu-res", Zone: "us-east5-b", MachineType: "ct6e-standard-4t", Count: 8}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"od", "od-2", "od-3"} {
		if code, body := serve(t, emu, "POST", resLoc, reservedPool(name, "tpu-res", 4)); code != 200 {
			t.Fatalf("create pool %s: %d %s", name, code, body)
		}
	}
	rec := record.NewFakeRecorder(100)
	a := &Autoscaler{emu: emu, recorder: rec, opts: AutoscalerOptions{TimeScale: 1},
		backoffs: map[string]*poolBackoff{}, ruleBackoffs: map[string]time.Time{}, capacityChecks: map[string]time.Time{}}
	var pods []*corev1.Pod
	for i := range 12 { // three slices' worth: one pod a node
		pods = append(pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("worker-%02d", i), CreationTimestamp: metav1.NewTime(time.Unix(int64(i), 0))},
			Spec: corev1.PodSpec{
				Tolerations: []corev1.Toleration{{Key: wellknown.TPUResource, Operator: corev1.TolerationOpExists}},
				Containers:  []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{wellknown.TPUResource: resource.MustParse("4")}}}},
			}})
	}
	var targets []poolTarget
	for _, tg := range emu.poolTargets() {
		if strings.HasPrefix(tg.pool, "od") {
			targets = append(targets, tg)
		}
	}
	a.scaleUp(targets, nil, nil, pods, nil)
	var events []string
	for len(rec.Events) > 0 {
		events = append(events, <-rec.Events)
	}
	joined := strings.Join(events, "\n")
	if strings.Count(joined, "0->4 (max: 4)") != 2 || !strings.Contains(joined, "Warning FailedScaleUp") ||
		!strings.Contains(joined, ReservationCapacityExceeded) || strings.Contains(joined, "GCE out of resources") {
		t.Errorf("events:\n%s\nwant two pools scaled up to their slice (the reservation's 8 VMs) and a failed scale-up for the third, "+
			"classed %s as GKE's autoscaler classes it (not out of resources)", joined, ReservationCapacityExceeded)
	}
	if got := emu.Reservations(); got[0].InUse != 8 {
		t.Errorf("in use = %d, want 8", got[0].InUse)
	}
}

// TestReservationAnyThenFail: a pool of affinity ANY_RESERVATION_THEN_FAIL draws on a reservation of its machine type
// in its zone, up to its count, and gets no node where none is open to it ("fail the node creation").
func TestReservationAnyThenFail(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	serve(t, emu, "POST", "/v1/projects/p/locations/us-east5-b/clusters", `{"cluster":{"name":"c","initialNodeCount":1}}`)
	for _, r := range []Reservation{
		{Name: "cpu-res", Zone: "us-east5-b", MachineType: "n2-standard-8", Count: 8},
		{Name: "named-only", Zone: "us-east5-b", MachineType: "ct6e-standard-4t", Count: 8, SpecificOnly: true},
	} {
		if err := emu.AddReservation(r); err != nil {
			t.Fatal(err)
		}
	}
	thenFail := func(name string) string {
		return fmt.Sprintf(`{"nodePool":{"name":%q,"config":{"machineType":"ct6e-standard-4t","reservationAffinity":{"consumeReservationType":"ANY_RESERVATION_THEN_FAIL"}},
	  "placementPolicy":{"tpuTopology":"4x4"},"autoscaling":{"enabled":true,"maxNodeCount":4}}}`, name)
	}
	if code, body := serve(t, emu, "POST", resLoc, thenFail("od")); code != 200 {
		t.Fatalf("create pool: %d %s", code, body)
	}
	room := func() (int, bool) {
		emu.mu.Lock()
		defer emu.mu.Unlock()
		c := emu.clusters["projects/p/locations/us-east5-b/clusters/c"]
		return emu.reservationRoomLocked(c, findPool(c, "od"))
	}
	if n, capped := room(); n != 0 || !capped {
		t.Errorf("with no reservation open to it: room %d, capped %v; want none", n, capped)
	}
	if err := emu.AddReservation(Reservation{Name: "tpu-res", Zone: "us-east5-b", MachineType: "ct6e-standard-4t", Count: 8}); err != nil {
		t.Fatal(err)
	}
	if n, capped := room(); n != 8 || !capped {
		t.Errorf("with tpu-res: room %d, capped %v; want 8, capped", n, capped)
	}
}

// TestReservationInsertsRace: of concurrent inserts of one reservation, one makes it and the others get Compute's
// 409, as the check and the insert are one step.
func TestReservationInsertsRace(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	body := `{"name":"r","specificReservation":{"count":"2","instanceProperties":{"machineType":"ct6e-standard-4t"}}}`
	codes := make(chan int, 8)
	var wg sync.WaitGroup
	for range cap(codes) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := httptest.NewRecorder()
			emu.ServeHTTP(w, httptest.NewRequest("POST", "/compute/v1/projects/p/zones/us-east5-b/reservations", strings.NewReader(body)))
			codes <- w.Code
		}()
	}
	wg.Wait()
	close(codes)
	got := map[int]int{}
	for c := range codes {
		got[c]++
	}
	if d := cmp.Diff(map[int]int{200: 1, 409: cap(codes) - 1}, got); d != "" {
		t.Errorf("status codes (-want +got):\n%s", d)
	}
}

// TestReservationShortfall: nodes a pool asks of its specific reservation at creation or by a resize, beyond what the
// reservation has left, are refused at once with Compute Engine's 429 (GoogleCloudPlatform/gsutil#1000).
func TestReservationShortfall(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	serve(t, emu, "POST", "/v1/projects/p/locations/us-east5-b/clusters", `{"cluster":{"name":"c","initialNodeCount":1}}`)
	if err := emu.AddReservation(Reservation{Name: "cpu-res", Zone: "us-east5-b", MachineType: "n2-standard-8", Count: 3}); err != nil {
		t.Fatal(err)
	}
	pool := func(name string, nodes int) string {
		return fmt.Sprintf(`{"nodePool":{"name":%q,"initialNodeCount":%d,"config":{"machineType":"n2-standard-8","reservationAffinity":{
		  "consumeReservationType":"SPECIFIC_RESERVATION","key":"compute.googleapis.com/reservation-name","values":["cpu-res"]}}}}`, name, nodes)
	}
	if code, body := serve(t, emu, "POST", resLoc, pool("a", 2)); code != 200 {
		t.Fatalf("pool a: %d %s", code, body)
	}
	want := `Reservation does not have enough resources for the request: specific reservation \"cpu-res\" is insufficient for node pool \"b\" at zone \"us-east5-b\": required 2 and short of 1 VM count of machine type n2-standard-8.`
	if code, body := serve(t, emu, "POST", resLoc, pool("b", 2)); code != 429 || !strings.Contains(body, want) {
		t.Errorf("pool b past the reservation: %d %s, want 429 %s", code, body, want)
	}
	if code, body := serve(t, emu, "POST", resLoc+"/a:setSize", `{"nodeCount":4}`); code != 429 || !strings.Contains(body, "required 2 and short of 1 VM count") {
		t.Errorf("resize of a past the reservation: %d %s, want 429", code, body)
	}
	if code, body := serve(t, emu, "POST", resLoc+"/a:setSize", `{"nodeCount":3}`); code != 200 {
		t.Errorf("resize of a within the reservation: %d %s", code, body)
	}
}
