package multikueue

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"
)

// MaxWorkers is how many clusters a MultiKueueConfig may list (its CRD's maxItems).
const MaxWorkers = 20

// ApplyConfig writes the MultiKueueConfig and the AdmissionCheck check (controller kueue.x-k8s.io/multikueue) whose
// parameters name it.
func ApplyConfig(ctx context.Context, kq kueueclient.Interface, name, check string, workers []string, fieldManager string) error {
	// Forced: the configuration owns these fields, so a value another writer set (kubectl patch) is drift to undo,
	// not a conflict that stops every later apply.
	opts := metav1.ApplyOptions{FieldManager: fieldManager, Force: true}
	cfg := kueueac.MultiKueueConfig(name).WithLabels(labels()).WithSpec(kueueac.MultiKueueConfigSpec().WithClusters(workers...))
	got, err := kq.KueueV1beta2().MultiKueueConfigs().Apply(ctx, cfg, opts)
	if err != nil {
		return fmt.Errorf("applying MultiKueueConfig %s: %w", name, err)
	}
	// spec.clusters is a set: server-side apply keeps the names another field manager added (kubectl patch), so the
	// list is replaced whole when it is not the configuration's.
	if !slices.Equal(got.Spec.Clusters, workers) {
		patch, _ := json.Marshal(map[string]any{"spec": map[string]any{"clusters": workers}})
		if _, err := kq.KueueV1beta2().MultiKueueConfigs().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager}); err != nil {
			return fmt.Errorf("replacing the workers of MultiKueueConfig %s: %w", name, err)
		}
	}
	ac := kueueac.AdmissionCheck(check).WithLabels(labels()).WithSpec(kueueac.AdmissionCheckSpec().
		WithControllerName(kueue.MultiKueueControllerName).
		WithParameters(kueueac.AdmissionCheckParametersReference().WithAPIGroup(kueue.GroupVersion.Group).WithKind("MultiKueueConfig").WithName(name)))
	if _, err := kq.KueueV1beta2().AdmissionChecks().Apply(ctx, ac, opts); err != nil {
		return fmt.Errorf("applying AdmissionCheck %s: %w", check, err)
	}
	return nil
}

// FindConfigCheck finds MultiKueue's AdmissionCheck of MultiKueueConfig config: the check named hint, or config, or
// else any check whose parameters name the config (Kueue's documented YAML names them apart); nil when none does.
func FindConfigCheck(ctx context.Context, kq kueueclient.Interface, config, hint string) (*kueue.AdmissionCheck, error) {
	for _, name := range []string{hint, config} {
		if name == "" {
			continue
		}
		ac, err := FindCheck(ctx, kq, name)
		if err != nil || (ac != nil && IsConfigCheck(ac, config)) {
			return ac, err
		}
	}
	list, err := kq.KueueV1beta2().AdmissionChecks().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing AdmissionChecks: %w", err)
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	for i := range list.Items {
		if IsConfigCheck(&list.Items[i], config) {
			return &list.Items[i], nil
		}
	}
	return nil, nil
}

// FindConfig reads the MultiKueueConfig; nil when it is gone.
func FindConfig(ctx context.Context, kq kueueclient.Interface, name string) (*kueue.MultiKueueConfig, error) {
	c, err := kq.KueueV1beta2().MultiKueueConfigs().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading MultiKueueConfig %s: %w", name, err)
	}
	return c, nil
}

// FindCheck reads the AdmissionCheck; nil when it is gone.
func FindCheck(ctx context.Context, kq kueueclient.Interface, name string) (*kueue.AdmissionCheck, error) {
	ac, err := kq.KueueV1beta2().AdmissionChecks().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading AdmissionCheck %s: %w", name, err)
	}
	return ac, nil
}

// IsConfigCheck reports whether the AdmissionCheck is MultiKueue's and takes its parameters from MultiKueueConfig config.
func IsConfigCheck(ac *kueue.AdmissionCheck, config string) bool {
	p := ac.Spec.Parameters
	return ac.Spec.ControllerName == kueue.MultiKueueControllerName && p != nil &&
		p.APIGroup == kueue.GroupVersion.Group && p.Kind == "MultiKueueConfig" && p.Name == config
}

// CheckActive is the AdmissionCheck's Active condition. Kueue keeps a MultiKueue check Active (reason
// SomeActiveClusters) while at least one worker is usable, and makes it inactive (NoUsableClusters) when none is.
func CheckActive(ac *kueue.AdmissionCheck) (bool, string, string) {
	c := meta.FindStatusCondition(ac.Status.Conditions, kueue.AdmissionCheckActive)
	if c == nil {
		return false, "Pending", "Kueue has not looked at the admission check yet"
	}
	return c.Status == metav1.ConditionTrue, c.Reason, c.Message
}

// WaitCheckActive waits until the AdmissionCheck is Active and returns it; when ctx ends first, the error carries
// Kueue's last reason and message.
func WaitCheckActive(ctx context.Context, kq kueueclient.Interface, name string) (*kueue.AdmissionCheck, error) {
	return waitActive(ctx, "AdmissionCheck", name, func() (*kueue.AdmissionCheck, error) { return FindCheck(ctx, kq, name) }, CheckActive)
}

// QueuesUsing names the ClusterQueues whose admission checks include check, sorted.
func QueuesUsing(ctx context.Context, kq kueueclient.Interface, check string) ([]string, error) {
	list, err := kq.KueueV1beta2().ClusterQueues().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing ClusterQueues: %w", err)
	}
	var out []string
	for _, cq := range list.Items {
		if s := cq.Spec.AdmissionChecksStrategy; s != nil && slices.ContainsFunc(s.AdmissionChecks, func(r kueue.AdmissionCheckStrategyRule) bool {
			return string(r.Name) == check
		}) {
			out = append(out, cq.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// DeleteConfig deletes the AdmissionCheck check, while it is MultiKueue's check of this config (one changed by hand
// to serve something else is not ours any more), and then the MultiKueueConfig.
func DeleteConfig(ctx context.Context, kq kueueclient.Interface, name, check string) error {
	ac, err := FindCheck(ctx, kq, check)
	if err != nil {
		return err
	}
	if ac != nil && IsConfigCheck(ac, name) {
		if err := kq.KueueV1beta2().AdmissionChecks().Delete(ctx, check, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting AdmissionCheck %s: %w", check, err)
		}
	}
	if err := kq.KueueV1beta2().MultiKueueConfigs().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting MultiKueueConfig %s: %w", name, err)
	}
	return nil
}

// QueueCheck is the MultiKueue admission check of the ClusterQueue behind LocalQueue namespace/name, "" when the
// LocalQueue, its ClusterQueue or such a check is not there (yet).
func QueueCheck(ctx context.Context, kq kueueclient.Interface, namespace, name string) (string, error) {
	lq, err := kq.KueueV1beta2().LocalQueues(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading LocalQueue %s/%s: %w", namespace, name, err)
	}
	cq, err := kq.KueueV1beta2().ClusterQueues().Get(ctx, string(lq.Spec.ClusterQueue), metav1.GetOptions{})
	if apierrors.IsNotFound(err) || (err == nil && cq.Spec.AdmissionChecksStrategy == nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading ClusterQueue %s: %w", lq.Spec.ClusterQueue, err)
	}
	for _, r := range cq.Spec.AdmissionChecksStrategy.AdmissionChecks {
		ac, err := FindCheck(ctx, kq, string(r.Name))
		if err != nil {
			return "", err
		}
		if ac != nil && ac.Spec.ControllerName == kueue.MultiKueueControllerName {
			return ac.Name, nil
		}
	}
	return "", nil
}
