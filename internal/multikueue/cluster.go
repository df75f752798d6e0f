package multikueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"
)

// ApplyCluster writes the MultiKueueCluster that points Kueue at the kubeconfig in Secret secret.
func ApplyCluster(ctx context.Context, kq kueueclient.Interface, name, secret, fieldManager string, force bool) (*kueue.MultiKueueCluster, error) {
	ac := kueueac.MultiKueueCluster(name).WithLabels(labels()).WithSpec(kueueac.MultiKueueClusterSpec().
		WithClusterSource(kueueac.ClusterSource().WithKubeConfig(kueueac.KubeConfig().
			WithLocationType(kueue.SecretLocationType).WithLocation(secret))))
	mkc, err := kq.KueueV1beta2().MultiKueueClusters().Apply(ctx, ac, metav1.ApplyOptions{FieldManager: fieldManager, Force: force})
	if err != nil {
		return nil, fmt.Errorf("applying MultiKueueCluster %s: %w", name, err)
	}
	return mkc, nil
}

// FindCluster reads the MultiKueueCluster; nil when it is gone.
func FindCluster(ctx context.Context, kq kueueclient.Interface, name string) (*kueue.MultiKueueCluster, error) {
	mkc, err := kq.KueueV1beta2().MultiKueueClusters().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading MultiKueueCluster %s: %w", name, err)
	}
	return mkc, nil
}

// Active is the MultiKueueCluster's Active condition: whether Kueue connected to the worker, and Kueue's reason and
// message (e.g. BadKubeConfig, ClientConnectionFailed) when not. No condition yet reads as not active, reason Pending.
func Active(mkc *kueue.MultiKueueCluster) (bool, string, string) {
	c := meta.FindStatusCondition(mkc.Status.Conditions, kueue.MultiKueueClusterActive)
	if c == nil {
		return false, "Pending", "Kueue has not connected to the worker yet"
	}
	return c.Status == metav1.ConditionTrue, c.Reason, c.Message
}

// WaitActive waits until Kueue reports the MultiKueueCluster Active, and returns it; when ctx ends first, the error
// carries Kueue's last reason and message.
func WaitActive(ctx context.Context, kq kueueclient.Interface, name string) (*kueue.MultiKueueCluster, error) {
	return waitActive(ctx, "MultiKueueCluster", name, func() (*kueue.MultiKueueCluster, error) { return FindCluster(ctx, kq, name) }, Active)
}

// waitActive polls find until condition says active. A read that fails because ctx ended reports the last object's
// reason and message instead, which say more.
func waitActive[T comparable](ctx context.Context, kind, name string, find func() (T, error), condition func(T) (bool, string, string)) (T, error) {
	var zero, last T
	for {
		obj, err := find()
		if err == nil && obj == zero {
			err = fmt.Errorf("%s %s was deleted while waiting for it to become Active", kind, name)
		}
		if err != nil && (ctx.Err() == nil || last == zero) {
			return zero, err
		}
		if err == nil {
			last = obj
			if active, _, _ := condition(obj); active {
				return obj, nil
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
			continue
		}
		_, reason, msg := condition(last)
		return last, fmt.Errorf("%s %s is not Active: %s: %s", kind, name, reason, msg)
	}
}

// ConfigsListing names the MultiKueueConfigs that list the cluster, sorted.
func ConfigsListing(ctx context.Context, kq kueueclient.Interface, cluster string) ([]string, error) {
	list, err := kq.KueueV1beta2().MultiKueueConfigs().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing MultiKueueConfigs: %w", err)
	}
	var out []string
	for _, c := range list.Items {
		for _, n := range c.Spec.Clusters {
			if n == cluster {
				out = append(out, c.Name)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// DeleteCluster deletes the MultiKueueCluster.
func DeleteCluster(ctx context.Context, kq kueueclient.Interface, name string) error {
	err := kq.KueueV1beta2().MultiKueueClusters().Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting MultiKueueCluster %s: %w", name, err)
	}
	return nil
}

// DeleteUnusedSecret is DeleteSecret, unless a MultiKueueCluster other than except names the Secret: a Secret
// pointed at by hand, or shared through a configured secret_name, is another worker's too.
func DeleteUnusedSecret(ctx context.Context, core corev1client.CoreV1Interface, kq kueueclient.Interface, name, except string) error {
	if name == "" {
		return nil
	}
	list, err := kq.KueueV1beta2().MultiKueueClusters().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing MultiKueueClusters: %w", err)
	}
	for _, mkc := range list.Items {
		if kc := mkc.Spec.ClusterSource.KubeConfig; mkc.Name != except && kc != nil && kc.Location == name {
			return nil
		}
	}
	return deleteSecret(ctx, core, name)
}

// ErrLastWorker is LeaveConfig's refusal to empty a config: Kueue requires at least one cluster in it.
var ErrLastWorker = errors.New("it is the config's only worker, and Kueue requires at least one")

// LeaveConfig takes cluster out of MultiKueueConfig config's clusters; nothing when the config is gone or does not
// list it.
func LeaveConfig(ctx context.Context, kq kueueclient.Interface, config, cluster, fieldManager string) error {
	err := editClusters(ctx, kq, config, fieldManager, func(clusters []string) ([]map[string]any, error) {
		i := slices.Index(clusters, cluster)
		switch {
		case i < 0:
			return nil, nil
		case len(clusters) == 1:
			return nil, ErrLastWorker
		}
		at := fmt.Sprintf("/spec/clusters/%d", i)
		return []map[string]any{{"op": "test", "path": at, "value": cluster}, {"op": "remove", "path": at}}, nil
	})
	if err != nil {
		return fmt.Errorf("taking worker %s out of MultiKueueConfig %s: %w", cluster, config, err)
	}
	return nil
}

// JoinConfig adds cluster to MultiKueueConfig config's clusters; nothing when the config is gone or lists it.
func JoinConfig(ctx context.Context, kq kueueclient.Interface, config, cluster, fieldManager string) error {
	err := editClusters(ctx, kq, config, fieldManager, func(clusters []string) ([]map[string]any, error) {
		switch {
		case slices.Contains(clusters, cluster):
			return nil, nil
		case len(clusters) >= MaxWorkers:
			return nil, fmt.Errorf("it lists %d workers already, as many as Kueue allows", len(clusters))
		}
		return []map[string]any{{"op": "add", "path": "/spec/clusters/-", "value": cluster}}, nil
	})
	if err != nil {
		return fmt.Errorf("adding worker %s to MultiKueueConfig %s: %w", cluster, config, err)
	}
	return nil
}

// editClusters patches MultiKueueConfig config with the JSON patch ops that plan makes of its clusters (none: nothing
// to do). The patch tests the resourceVersion it was made from; when another writer changed the config meanwhile
// (workers that leave in one apply do so at once), it is made again from what the config then lists.
func editClusters(ctx context.Context, kq kueueclient.Interface, config, fieldManager string, plan func([]string) ([]map[string]any, error)) error {
	configs := kq.KueueV1beta2().MultiKueueConfigs()
	for attempt := 1; ; attempt++ {
		cfg, err := configs.Get(ctx, config, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		ops, err := plan(cfg.Spec.Clusters)
		if err != nil || len(ops) == 0 {
			return err
		}
		if cfg.ResourceVersion != "" { // the API server always sets it
			ops = append([]map[string]any{{"op": "test", "path": "/metadata/resourceVersion", "value": cfg.ResourceVersion}}, ops...)
		}
		patch, _ := json.Marshal(ops)
		_, err = configs.Patch(ctx, config, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
		if err == nil {
			return nil
		}
		if attempt < 5 {
			if now, gerr := configs.Get(ctx, config, metav1.GetOptions{}); gerr == nil && now.ResourceVersion != cfg.ResourceVersion {
				continue
			}
		}
		return err
	}
}
