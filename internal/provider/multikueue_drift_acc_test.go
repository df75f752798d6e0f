package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/multikueue"
)

// TestAccDrift_multiKueueGenerated changes, one at a time, every field the apply set on the manager's
// MultiKueueCluster, MultiKueueConfig and AdmissionCheck, and on a worker's ClusterRole and ClusterRoleBinding, as
// another writer would, and requires the plan to show it and the apply to repair it.
func TestAccDrift_multiKueueGenerated(t *testing.T) {
	t.Parallel()
	planeTurn(t)
	requireStack(t)
	// The MultiKueue test's manager, two workers, config and queue, under names of this test's own.
	tf := newTFRunInProcess(t, "provider \"dwsfallback\" {}\n"+strings.NewReplacer(`"mk-`, `"dmk-`, `"multikueue"`, `"dmk"`,
		`"cluster-queue"`, `"dmk-cluster-queue"`, `"user-queue"`, `"dmk-user-queue"`, `"default-flavor"`, `"dmk-default-flavor"`).Replace(multiKueueManagerConfig))
	// An AdmissionCheck of the config's name that is not its check: the create refuses it instead of taking it over.
	tf.mustRun("apply", "-auto-approve", "-input=false", "-target=dwsfallback_cluster.manager")
	c := clusterClients(t, "dmk-manager")
	foreign := utiltesting.MakeAdmissionCheck("dmk").ControllerName("example.com/other").Obj()
	checks := c.Kueue.KueueV1beta2().AdmissionChecks()
	if _, err := checks.Create(context.Background(), foreign, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if out, ok := tf.run("apply", "-auto-approve", "-input=false"); ok || !strings.Contains(strings.Join(strings.Fields(out), " "), "is not MultiKueueConfig dmk's check") {
		t.Fatalf("the apply should refuse to take over AdmissionCheck dmk:\n%s", out)
	}
	if ac, err := checks.Get(context.Background(), "dmk", metav1.GetOptions{}); err != nil || ac.Spec.ControllerName != "example.com/other" {
		t.Fatalf("the foreign check was changed: %v %v", ac, err)
	}
	if err := checks.Delete(context.Background(), "dmk", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(30*time.Second, func() bool {
		_, err := checks.Get(context.Background(), "dmk", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	tf.mustRun("apply", "-auto-approve", "-input=false")
	tf.expectEmptyPlan()
	tally := newDriftTally()
	gv := kueue.GroupVersion
	tryDrift(t, tf, c.Dynamic, tally, gv.WithResource("multikueueclusters"), "", "dmk-w1", true)
	tryDrift(t, tf, c.Dynamic, tally, gv.WithResource("multikueueconfigs"), "", "dmk", true)
	tryDrift(t, tf, c.Dynamic, tally, gv.WithResource("admissionchecks"), "", "dmk", true)
	// The rights the provider made on a worker: a rule or subject added by hand plans its removal.
	w1, rbac := clusterClients(t, "dmk-w1"), rbacv1.SchemeGroupVersion
	tryDrift(t, tf, w1.Dynamic, tally, rbac.WithResource("clusterroles"), "", "multikueue-sa-role", true)
	tryDrift(t, tf, w1.Dynamic, tally, rbac.WithResource("clusterrolebindings"), "", "multikueue-sa-crb", true)
	tally.report(t)
	// A right added by hand, which leaves what Kueue needs granted: only the drift shows it.
	ctx := context.Background()
	role, err := w1.RBAC.ClusterRoles().Get(ctx, "multikueue-sa-role", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	role.Rules = append(role.Rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}})
	if _, err := w1.RBAC.ClusterRoles().Update(ctx, role, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	if out, _ := tf.run("plan", "-no-color", "-input=false"); !strings.Contains(out, fmt.Sprintf(`"ClusterRole/multikueue-sa-role .rules (%d items, now %d)"`, len(multikueue.Rules()), len(multikueue.Rules())+1)) {
		t.Fatalf("the plan should name the role's rules as drift:\n%s", out)
	}
	tf.mustRun("apply", "-auto-approve", "-input=false")
	tf.expectEmptyPlan()
	if role, err = w1.RBAC.ClusterRoles().Get(ctx, "multikueue-sa-role", metav1.GetOptions{}); err != nil || len(role.Rules) != len(multikueue.Rules()) {
		t.Fatalf("the apply left the role with %d rules (%v), want %d", len(role.Rules), err, len(multikueue.Rules()))
	}
	workerAccount(t, tf, w1)
	tf.mustRun("destroy", "-auto-approve", "-input=false")
}

// workerAccount: what the apply owns on the worker's ServiceAccount is its label and the manager's entry among the
// users, which other managers share. Each changed by hand plans its repair; another manager's entry added does not.
func workerAccount(t *testing.T, tf *tfRun, w *kube.Clients) {
	t.Helper()
	ctx := context.Background()
	api := w.Dynamic.Resource(corev1.SchemeGroupVersion.WithResource("serviceaccounts")).Namespace(multikueue.KueueNamespace)
	const sa, key = "multikueue-sa", "ServiceAccount/" + multikueue.KueueNamespace + "/multikueue-sa"
	users := func() string {
		live, err := w.Core.ServiceAccounts(multikueue.KueueNamespace).Get(ctx, sa, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return live.Annotations["dwsfallback/multikueue-users"]
	}
	setUsers := func(v string) {
		t.Helper()
		if _, err := api.Patch(ctx, sa, types.MergePatchType, []byte(`{"metadata":{"annotations":{"dwsfallback/multikueue-users":"`+v+`"}}}`), metav1.PatchOptions{FieldManager: "another-manager"}); err != nil {
			t.Fatal(err)
		}
	}
	ours := users()
	// The only label: the labels go with it, and the plan names them.
	handChange(t, tf, api, sa, types.JSONPatchType, `[{"op":"remove","path":"/metadata/labels/app.kubernetes.io~1managed-by"}]`,
		key+" .metadata.labels")
	handChange(t, tf, api, sa, types.MergePatchType, `{"metadata":{"labels":{"app.kubernetes.io/managed-by":"helm"}}}`,
		key+" .metadata.labels.app.kubernetes.io/managed-by")
	handChange(t, tf, api, sa, types.MergePatchType, `{"metadata":{"annotations":{"dwsfallback/multikueue-users":"another-manager"}}}`,
		key+" .metadata.annotations.dwsfallback/multikueue-users")
	setUsers(ours + ",zz-another-manager")
	if out, code := tf.planExit(); code != 0 {
		t.Fatalf("another manager's entry among the users is not drift (exit %d):\n%s", code, out)
	}
	setUsers(ours) // the other manager gone again, so that the destroy removes the worker's objects
}
