package provider

import (
	"strings"
	"testing"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// TestAccDrift_multiKueueGenerated changes, one at a time, every field the apply set on the manager's
// MultiKueueCluster, MultiKueueConfig and AdmissionCheck, as another writer would, and requires the plan to show it
// and the apply to repair it.
func TestAccDrift_multiKueueGenerated(t *testing.T) {
	t.Parallel()
	requireStack(t)
	// The MultiKueue test's manager, two workers, config and queue, under names of this test's own.
	tf := newTFRun(t, "provider \"dwsfallback\" {}\n"+strings.NewReplacer(`"mk-`, `"dmk-`, `"multikueue"`, `"dmk"`,
		`"cluster-queue"`, `"dmk-cluster-queue"`, `"user-queue"`, `"dmk-user-queue"`, `"default-flavor"`, `"dmk-default-flavor"`).Replace(multiKueueManagerConfig))
	tf.mustRun("apply", "-auto-approve", "-input=false")
	tf.expectEmptyPlan()
	c := clusterClients(t, "dmk-manager")
	tally := newDriftTally()
	gv := kueue.GroupVersion
	tryDrift(t, tf, c.Dynamic, tally, gv.WithResource("multikueueclusters"), "", "dmk-w1", true)
	tryDrift(t, tf, c.Dynamic, tally, gv.WithResource("multikueueconfigs"), "", "dmk", true)
	tryDrift(t, tf, c.Dynamic, tally, gv.WithResource("admissionchecks"), "", "dmk", true)
	tally.report(t)
	tf.mustRun("destroy", "-auto-approve", "-input=false")
}
