package provider

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeclass"
)

// TestAccDrift_classGenerated changes, one at a time, every field the class's apply set, as another writer would,
// and requires the plan to show it and the apply to repair it. The spec is the provider's whole, so a field another
// writer adds to it plans its removal too.
func TestAccDrift_classGenerated(t *testing.T) {
	t.Parallel()
	planeTurn(t)
	requireStack(t)
	ref := createTestCluster(t, "acc-drift-cc")
	tf := newTFRunInProcess(t, "provider \"dwsfallback\" {}\n"+classPairConfig(ref.Name, "dcc")+classConfig(ref.Name, "dcc"))
	tf.mustRun("apply", "-auto-approve", "-input=false")
	tf.expectEmptyPlan()
	_, c := soakPlane(t, ref.String())
	tally := newDriftTally()
	tryDrift(t, tf, c.Dynamic, tally, gkeclass.GVR, "", "dcc", true)
	tally.report(t)
	api := c.Dynamic.Resource(gkeclass.GVR)
	handChange(t, tf, api, "dcc", types.MergePatchType, `{"spec":{"autoscalingPolicy":{"consolidationDelayMinutes":5}}}`, ".spec.autoscalingPolicy")
	if u, err := api.Get(context.Background(), "dcc", metav1.GetOptions{}); err != nil || u.Object["spec"].(map[string]any)["autoscalingPolicy"] != nil {
		t.Fatalf("the repair left the class's spec as %v (%v), want autoscalingPolicy gone", u, err)
	}
	out := tf.mustRun("destroy", "-auto-approve", "-input=false")
	if !strings.Contains(out, "Destroy complete") {
		t.Fatalf("destroy: %s", out)
	}
}
