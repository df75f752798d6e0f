package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing/v1beta2"
)

// A deleted cluster takes everything in it, and one made again under its name starts empty: as on GKE, also for the
// cluster that the shared control plane served (issue 34 item 3: `make demo-destroy` left its default pool's nodes).
//
// Not parallel: it is about the shared control plane, which serves its cluster only while no other cluster holds it.
func TestAccCluster_deleteTakesItsContents(t *testing.T) {
	s := serialStack(t)
	const name = "acc-empty"
	ctx := context.Background()
	put := func(*terraform.State) error {
		c := adminClients(t, s)
		if _, err := c.Core.Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "acc-empty-team"}}, metav1.CreateOptions{}); err != nil {
			return err
		}
		for _, ns := range []string{"acc-empty-team", "default"} {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "acc-empty-files"}, Data: map[string]string{"a": "b"}}
			if _, err := c.Core.ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
				return err
			}
		}
		rf := utiltesting.MakeResourceFlavor("acc-empty-flavor").Obj()
		_, err := c.Kueue.KueueV1beta2().ResourceFlavors().Create(ctx, rf, metav1.CreateOptions{})
		return err
	}
	served := func(st *terraform.State) error {
		if got := st.RootModule().Resources[clusterAddr].Primary.Attributes["endpoint"]; got != s.Endpoint {
			return fmt.Errorf("endpoint %s, want the shared control plane's %s: is another cluster holding it?", got, s.Endpoint)
		}
		return nil
	}
	// emptied checks that nothing the deleted cluster held is left, and that what the control plane runs on is.
	emptied := func(nodesWanted bool) resource.TestCheckFunc {
		return func(*terraform.State) error {
			c := adminClients(t, s)
			nodes, err := c.Core.Nodes().List(ctx, metav1.ListOptions{})
			if err != nil {
				return err
			}
			if !nodesWanted && len(nodes.Items) > 0 {
				return fmt.Errorf("%d nodes left, first %s", len(nodes.Items), nodes.Items[0].Name)
			}
			if _, err := c.Core.Namespaces().Get(ctx, "acc-empty-team", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("namespace acc-empty-team: %v, want it gone", err)
			}
			if _, err := c.Core.ConfigMaps("default").Get(ctx, "acc-empty-files", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("ConfigMap default/acc-empty-files: %v, want it gone", err)
			}
			if _, err := c.Kueue.KueueV1beta2().ResourceFlavors().Get(ctx, "acc-empty-flavor", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("ResourceFlavor acc-empty-flavor: %v, want it gone", err)
			}
			if _, err := c.Core.Namespaces().Get(ctx, "kube-system", metav1.GetOptions{}); err != nil {
				return fmt.Errorf("the control plane's own namespace: %w", err)
			}
			// Kueue still serves: its webhook answers a create.
			rf := utiltesting.MakeResourceFlavor("acc-empty-probe").Obj()
			if _, err := c.Kueue.KueueV1beta2().ResourceFlavors().Create(ctx, rf, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("Kueue after the emptying: %w", err)
			}
			return c.Kueue.KueueV1beta2().ResourceFlavors().Delete(ctx, "acc-empty-probe", metav1.DeleteOptions{})
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: clusterConfig(name, false, ""), Check: resource.ComposeTestCheckFunc(served, put)},
			{Config: clusterConfig(name, false, ""), Destroy: true, Check: emptied(false)},
			{Config: clusterConfig(name, false, ""), Check: resource.ComposeTestCheckFunc(served, emptied(true))},
		},
	})
}
