package provider

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
)

// provReqProbe is a ProvisioningRequest for one 4x4 slice of the pool dws, as Kueue makes one, and its pod template.
const provReqProbe = `
apiVersion: v1
kind: PodTemplate
metadata: {name: probe, namespace: default}
template:
  spec:
    nodeSelector: {cloud.google.com/gke-nodepool: dws}
    tolerations: [{key: google.com/tpu, operator: Exists}, {key: cloud.google.com/gke-queued, operator: Exists}]
    containers: [{name: worker, image: rayproject/ray:2.53.0-py311, resources: {requests: {google.com/tpu: "4"}, limits: {google.com/tpu: "4"}}}]
---
apiVersion: autoscaling.x-k8s.io/v1
kind: ProvisioningRequest
metadata: {name: probe, namespace: default}
spec:
  provisioningClassName: queued-provisioning.gke.io
  podSets: [{count: 4, podTemplateRef: {name: probe}}]
`

// TestAccDWS_perClusterMode: a cluster's DWS mode holds whatever other clusters exist. With two clusters, the first
// on the shared control plane, a request in the first (set to pending) is queued and never provisioned, while the
// same request in the second (set to provision) is.
func TestAccDWS_perClusterMode(t *testing.T) {
	serialStack(t)
	cfg := "resource \"dwsfallback_cluster\" \"a\" {\n  name = \"dwsmode-a\"\n  deletion_protection = false\n}\n" +
		"resource \"dwsfallback_cluster\" \"b\" {\n  name = \"dwsmode-b\"\n  deletion_protection = false\n  depends_on = [dwsfallback_cluster.a]\n}\n" +
		strings.Replace(pairConfig("dwsmode-a", "od", "dws", 4), `cluster      = "dwsmode-a"`, `cluster      = dwsfallback_cluster.a.name`, 1) +
		strings.NewReplacer(`"dwsfallback_tpu_pool_pair" "test"`, `"dwsfallback_tpu_pool_pair" "b"`, `cluster      = "dwsmode-b"`, `cluster      = dwsfallback_cluster.b.name`).
			Replace(pairConfig("dwsmode-b", "od", "dws", 4))
	kc := newContexts(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: cfg,
			Check: func(*terraform.State) error {
				if !emu.SetClusterDWS("dwsmode-a", gkeemu.DWSPending, 0) || !emu.SetClusterDWS("dwsmode-b", gkeemu.DWSProvision, 0) {
					return fmt.Errorf("setting each cluster's DWS mode")
				}
				a, b := kc.of("dwsmode-a"), kc.of("dwsmode-b")
				for _, c := range []string{a, b} {
					kc.run(c, provReqProbe, "apply", "-f", "-")
				}
				conditions := func(c string) string {
					return kc.run(c, "", "get", "provisioningrequest", "probe", "-n", "default", "-o",
						`jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason};{end}`)
				}
				deadline := time.Now().Add(60 * time.Second)
				for !strings.Contains(conditions(b), "Provisioned=True/Provisioned;") {
					if time.Now().After(deadline) {
						return fmt.Errorf("dwsmode-b's request was not provisioned: %s", conditions(b))
					}
					time.Sleep(500 * time.Millisecond)
				}
				// Longer than the other cluster's request took: a's stays queued, in GKE's conditions.
				time.Sleep(3 * time.Second)
				if got, want := conditions(a), "Accepted=True/SuccessfullyQueued;Provisioned=False/NotProvisioned;"; got != want {
					return fmt.Errorf("dwsmode-a's request (DWS pending) has %s, want %s", got, want)
				}
				return nil
			},
		}},
	})
}
