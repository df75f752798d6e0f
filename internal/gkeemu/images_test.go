package gkeemu

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestSecondaryBootDisks: a pool's secondary boot disks must name an image that exists, in the pool's project or
// another, by a path GKE takes.
func TestSecondaryBootDisks(t *testing.T) {
	t.Parallel()
	emu := New(Options{})
	serve(t, emu, "POST", "/v1/projects/p/locations/us-east5-b/clusters", `{"cluster":{"name":"c","initialNodeCount":1}}`)
	for _, body := range []string{`{"project":"p","name":"ray-tpu"}`, `{"project":"shared","name":"ray-tpu"}`} {
		if code, out := serve(t, emu, "POST", "/emulator/v1/images", body); code != http.StatusNoContent {
			t.Fatalf("admin API: %d %s", code, out)
		}
	}
	pool := func(name, image string) string {
		return fmt.Sprintf(`{"nodePool":{"name":%q,"config":{"machineType":"ct6e-standard-4t","secondaryBootDisks":[{"diskImage":%q,"mode":"CONTAINER_IMAGE_CACHE"}]},
	  "placementPolicy":{"tpuTopology":"4x4"},"autoscaling":{"enabled":true,"maxNodeCount":4}}}`, name, image)
	}
	for _, tc := range []struct {
		name, body string
		code       int
		want       string
	}{
		{"not an image path", pool("a", "ray-tpu"), 400, `gkeemu: the image of secondary boot disk 0, "ray-tpu", must be global/images/IMAGE`},
		{"missing", pool("a", "global/images/nope"), 400, `gkeemu: secondary boot disk 0 of node pool "a": image 'projects/p/global/images/nope' was not found`},
		{"another project's, missing", pool("a", "projects/other/global/images/ray-tpu"), 400, "projects/other/global/images/ray-tpu' was not found"},
		{"the pool's project", pool("a", "global/images/ray-tpu"), 200, ""},
		{"a shared one", pool("b", "projects/shared/global/images/ray-tpu"), 200, ""},
	} {
		code, body := serve(t, emu, "POST", resLoc, tc.body)
		var e struct{ Error struct{ Message string } }
		_ = json.Unmarshal([]byte(body), &e)
		if code != tc.code || !strings.Contains(e.Error.Message, tc.want) {
			t.Errorf("%s: got %d %s, want %d containing %q", tc.name, code, body, tc.code, tc.want)
		}
	}
}
