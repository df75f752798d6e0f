package provider

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// TestAccClusters_ownControlPlanes: three clusters made by Terraform are three API servers, each with its own endpoint
// and CA in GetCluster, so that `gcloud container clusters get-credentials` gives three contexts; what kubectl makes
// in one is not seen in the others; a deleted cluster's control plane is gone with it.
func TestAccClusters_ownControlPlanes(t *testing.T) {
	s := requireStack(t)
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
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	g.Setenv("KUBECONFIG=" + kubeconfig)
	ctxOf := func(n string) string { return fmt.Sprintf("gke_%s_%s_%s", testProject, testLocation, n) }
	kc := func(context string, args ...string) (string, error) {
		cmd := exec.Command("kubectl", append([]string{"--kubeconfig", kubeconfig, "--context", context, "--request-timeout=5m"}, args...)...)
		cmd.Env = g.Environ()
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	var endpointC string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: cfg(names...),
				Check: func(*terraform.State) error {
					seen := map[string]string{}
					for _, n := range names {
						g.Run("container", "clusters", "get-credentials", n, "--location="+testLocation)
						cl, err := findCluster(context.Background(), gkeAPIForCheck(), clusterRef{testProject, testLocation, n})
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
						if out, err := kc(ctxOf(n), "create", "namespace", "only-in-"+n); err != nil {
							return fmt.Errorf("kubectl create namespace in %s: %v\n%s", n, err, out)
						}
					}
					for _, n := range names {
						for _, other := range names {
							out, err := kc(ctxOf(n), "get", "namespace", "only-in-"+other, "-o", "name")
							switch {
							case n == other && err != nil:
								return fmt.Errorf("%s lost its namespace: %v\n%s", n, err, out)
							case n != other && (err == nil || !strings.Contains(out, "NotFound")):
								return fmt.Errorf("%s sees the namespace made in %s: %v\n%s", n, other, err, out)
							}
						}
					}
					if got := s.EgressAttempts(); len(got) > 0 {
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
	_ = os.Remove(kubeconfig)
}

func accepts(addr string) bool {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		_ = conn.Close()
	}
	return err == nil
}
