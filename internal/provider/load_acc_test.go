package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// One queue and 100 RayJobs applied and destroyed in one run on the local stack: every job admitted, none left
// behind. The provider's client (QPS 100, burst 500, shared by every resource of a cluster) must not stall on its own
// throttling; the timings are bench/results.md's, not asserted here.
func TestAccLoad_hundredJobs(t *testing.T) {
	stackTest(t, 1)
	createTestCluster(t, "acc-load")
	ids := make([]int, 100)
	for i := range ids {
		ids[i] = i + 1
	}
	// Quotas for every job at once: a head (2 CPUs) and a submitter on the default pool, 4 workers of 8 CPUs, 16Gi and 4 chips on on-demand.
	queue := strings.NewReplacer(`cpu = "10", memory = "20Gi"`, `cpu = "400", memory = "800Gi"`,
		`cpu = "40", memory = "75Gi"`, `cpu = "4000", memory = "8000Gi"`).Replace(queueConfig("acc-load", "load", 16*len(ids)))
	cfg := pairConfig("acc-load", "on-demand-pool", "dws-pool", 4) + queue + jobsConfig("acc-load", "load", ids, "")
	start := time.Now()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy: func(*terraform.State) error {
			t.Logf("apply, refresh and destroy of 100 RayJobs: %s", time.Since(start).Round(time.Second))
			jobs, err := clusterClients(t, "acc-load").Ray.RayV1().RayJobs("default").List(context.Background(), metav1.ListOptions{})
			if err != nil {
				return err
			}
			for _, j := range jobs.Items {
				if strings.HasPrefix(j.Name, "load-rayjob-") {
					return fmt.Errorf("RayJob %s left after destroy", j.Name)
				}
			}
			return nil
		},
		Steps: []resource.TestStep{{
			Config: cfg,
			Check: func(s *terraform.State) error {
				for _, id := range ids {
					addr := fmt.Sprintf("dwsfallback_rayjob.job%d", id)
					if got := s.RootModule().Resources[addr].Primary.Attributes["admitted_flavor"]; got != "load-on-demand" {
						return fmt.Errorf("%s admitted on %q, want load-on-demand", addr, got)
					}
				}
				t.Logf("100 RayJobs applied and admitted: %s", time.Since(start).Round(time.Second))
				return nil
			},
		}},
	})
}
