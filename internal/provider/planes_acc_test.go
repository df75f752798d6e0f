package provider

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/localstack"
)

// TestAccClusters_ownControlPlanes: three clusters made by Terraform are three API servers, each with its own endpoint
// and CA in GetCluster, so that `gcloud container clusters get-credentials` gives three contexts; what kubectl makes
// in one is not seen in the others; a deleted cluster's endpoint is gone with it.
func TestAccClusters_ownControlPlanes(t *testing.T) {
	s := serialStack(t)
	names := []string{"plane-a", "plane-b", "plane-c"}
	cfg := func(names ...string) string {
		var b strings.Builder
		for i, n := range names {
			// plane-a first, so that it takes the stack the suite shares when that is free and plane-c never does.
			dep := ""
			if i > 0 {
				dep = "  depends_on          = [dwsfallback_cluster.plane-a]\n"
			}
			fmt.Fprintf(&b, "resource \"dwsfallback_cluster\" %q {\n  name                = %q\n  deletion_protection = false\n%s}\n", n, n, dep)
		}
		return b.String()
	}
	kc := newContexts(t)
	// What the stack's sinks refused before (KubeRay's dashboard calls of earlier tests' running jobs, on the
	// shared stack that plane-a may take) is not these planes' doing.
	before := s.EgressMark()
	ctxOf := map[string]string{}
	var endpointC string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: cfg(names...),
				Check: func(*terraform.State) error {
					seen := map[string]string{}
					for _, n := range names {
						ctxOf[n] = kc.of(n)
						cl, err := gke.FindCluster(context.Background(), gkeAPIForCheck(), clusterscope.Ref{Project: testProject, Location: testLocation, Name: n}.String())
						if err != nil {
							return err
						}
						for what, v := range map[string]string{"endpoint": cl.Endpoint, "CA": cl.GetMasterAuth().GetClusterCaCertificate()} {
							if other, dup := seen[what+v]; dup {
								return fmt.Errorf("%s and %s report the same %s", other, n, what)
							}
							seen[what+v] = n
						}
						if n == "plane-c" {
							endpointC = cl.Endpoint
						}
						if out, err := kc.try(ctxOf[n], "", "create", "namespace", "only-in-"+n); err != nil {
							return fmt.Errorf("kubectl create namespace in %s: %v\n%s", n, err, out)
						}
					}
					for _, n := range names {
						for _, other := range names {
							out, err := kc.try(ctxOf[n], "", "get", "namespace", "only-in-"+other, "-o", "name")
							switch {
							case n == other && err != nil:
								return fmt.Errorf("%s lost its namespace: %v\n%s", n, err, out)
							case n != other && (err == nil || !strings.Contains(out, "NotFound")):
								return fmt.Errorf("%s sees the namespace made in %s: %v\n%s", n, other, err, out)
							}
						}
					}
					for _, n := range names {
						logPlaneMemory(t, s, n)
					}
					if got := s.EgressSince(before); len(got) > 0 {
						return fmt.Errorf("the control planes tried to leave loopback: %v", got)
					}
					if socks, err := s.NonLoopbackSockets(); err != nil || len(socks) > 0 {
						return fmt.Errorf("sockets beyond loopback: %v (%v)", socks, err)
					}
					return nil
				},
			},
			{
				Config: cfg(names[:2]...),
				Check: func(*terraform.State) error {
					// GKE deletes the master with the cluster: its endpoint answers no more.
					deadline := time.Now().Add(30 * time.Second)
					for accepts(endpointC) {
						if time.Now().After(deadline) {
							return fmt.Errorf("plane-c is deleted, but its endpoint %s still accepts connections", endpointC)
						}
						time.Sleep(200 * time.Millisecond)
					}
					return nil
				},
			},
		},
	})
}

func accepts(addr string) bool {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		_ = conn.Close()
	}
	return err == nil
}

// logPlaneMemory logs the resident memory of the processes of the cluster's control plane (a measurement for the
// record, not a target: targets are benchmarks' business).
func logPlaneMemory(t *testing.T, s *localstack.Stack, cluster string) {
	plane := s.ClusterStack(clusterscope.Ref{Project: testProject, Location: testLocation, Name: cluster}.String())
	if plane == nil {
		return
	}
	var kib int64
	for _, pid := range plane.PIDs() {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				kib += n
			}
		}
	}
	t.Logf("%s: control plane of %d processes, %d MiB resident", cluster, len(plane.PIDs()), kib/1024)
}
