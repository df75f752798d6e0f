package computeclass

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/drift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeclass"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

func computeClassObject(u *unstructured.Unstructured) tfdrift.Object {
	return tfdrift.Object{Key: "ComputeClass/" + u.GetName(), GVK: gkeclass.GVR.GroupVersion().WithKind("ComputeClass"), Obj: u}
}

// recordClassBaseline keeps what this write left on the class. The spec is written whole (an update), so it is
// compared whole: a field another writer adds to it is one the next update removes.
func recordClassBaseline(ctx context.Context, c *kube.Clients, u *unstructured.Unstructured, p tfvalue.PrivateState, diags *diag.Diagnostics) {
	b, err := classBaseline(c, u)
	if err != nil {
		diags.AddWarning("Drift not recorded", fmt.Sprintf("ComputeClass %s was applied, but what the apply left could not be read back, so "+
			"changes made beside Terraform are not compared until the next apply: %v", u.GetName(), err))
	}
	tfdrift.Record(ctx, p, b, diags)
}

func classBaseline(c *kube.Clients, u *unstructured.Unstructured) (map[string]drift.Baseline, error) {
	ty, err := c.Types(gkeclass.GVR.GroupVersion().WithKind("ComputeClass"))
	if err != nil {
		return nil, err
	}
	o := computeClassObject(u)
	m, err := tfdrift.Unstructured(o)
	if err != nil {
		return nil, err
	}
	b, err := ty.RecordWhole(m, kube.FieldManager, "spec")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Key, err)
	}
	return map[string]drift.Baseline{o.Key: b}, nil
}

// classDrift compares the live class with what the last apply left on it.
func classDrift(c *kube.Clients, b map[string]drift.Baseline, u *unstructured.Unstructured) ([]string, error) {
	if len(b) == 0 {
		return nil, nil
	}
	ty, err := c.Types(gkeclass.GVR.GroupVersion().WithKind("ComputeClass"))
	if err != nil {
		return nil, err
	}
	return tfdrift.Of(ty, b, []tfdrift.Object{computeClassObject(u)})
}
