package provider

import (
	"context"
	"sync"
	"time"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

// shareWindow is how long one LIST of a namespace serves the Reads that follow it. Terraform reads the RayJobs of a
// refresh in waves of -parallelism, all within about a second at N = 100, so one LIST of the namespace's Workloads
// (and of its Ray pods) answers the whole refresh instead of one LIST per job. An answer is at most this old, as if
// the Read had come that much earlier; a write by this provider to the namespace drops it at once, so what an apply
// changes is never answered from before the change.
const shareWindow = 2 * time.Second

type shareKey struct {
	c  *kube.Clients
	ns string
}

// listShare shares LISTs of one kind of object per cluster and namespace within a provider process.
type listShare[T any] struct {
	mu    sync.Mutex
	lists map[shareKey]*sharedList[T]
}

type sharedList[T any] struct {
	done  chan struct{}
	at    time.Time
	items []T
	err   error
}

// get returns the namespace's items: from a LIST under way or answered within shareWindow, or from a new one.
func (s *listShare[T]) get(ctx context.Context, key shareKey, list func(context.Context) ([]T, error)) ([]T, error) {
	s.mu.Lock()
	if s.lists == nil {
		s.lists = map[shareKey]*sharedList[T]{}
	}
	l := s.lists[key]
	fresh := l != nil
	if fresh {
		select {
		case <-l.done:
			fresh = l.err == nil && time.Since(l.at) < shareWindow
		default: // under way
		}
	}
	if !fresh {
		l = &sharedList[T]{done: make(chan struct{})}
		s.lists[key] = l
		s.mu.Unlock()
		// The LIST is the namespace's, not this Read's: one Read's cancellation must not fail the others.
		l.items, l.err = list(context.WithoutCancel(ctx))
		l.at = time.Now()
		close(l.done)
		return l.items, l.err
	}
	s.mu.Unlock()
	select {
	case <-l.done:
		return l.items, l.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// forget drops what is shared of a namespace, after a write to it.
func (s *listShare[T]) forget(key shareKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.lists, key)
}

var (
	sharedRayJobs    listShare[rayv1.RayJob]
	sharedConfigMaps listShare[corev1.ConfigMap]
	sharedWorkloads  listShare[kueue.Workload]
	sharedRayPods    listShare[corev1.Pod]
)

// forgetShared is called after this provider writes a RayJob or its ConfigMap.
func forgetShared(c *kube.Clients, ns string) {
	sharedRayJobs.forget(shareKey{c, ns})
	sharedConfigMaps.forget(shareKey{c, ns})
	sharedWorkloads.forget(shareKey{c, ns})
	sharedRayPods.forget(shareKey{c, ns})
}

// sharedRayJob is the job from the namespace's shared LIST. That LIST is a consistent read (no resourceVersion), as
// a GET is: a refresh sees every change made before it started. A job the LIST does not hold is read on its own, so a
// job is only ever reported gone by a GET's NotFound.
func sharedRayJob(ctx context.Context, c *kube.Clients, ns, name string) (*rayv1.RayJob, error) {
	all, err := namespaceRayJobs(ctx, c, ns)
	if err != nil {
		return nil, err
	}
	for i := range all {
		if all[i].Name == name {
			return all[i].DeepCopy(), nil
		}
	}
	return getRayJob(ctx, c, ns, name)
}

func namespaceRayJobs(ctx context.Context, c *kube.Clients, ns string) ([]rayv1.RayJob, error) {
	return sharedRayJobs.get(ctx, shareKey{c, ns}, func(ctx context.Context) ([]rayv1.RayJob, error) {
		list, err := c.Ray.RayV1().RayJobs(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		return list.Items, nil
	})
}

// minSharedConfigMaps is how many RayJobs a namespace must hold before their files' ConfigMaps are listed rather
// than read one by one: below it, a LIST would cost more than the GETs it saves.
const minSharedConfigMaps = 4

// sharedFilesConfigMap is filesConfigMap from one consistent LIST of the namespace's ConfigMaps. The provider's
// ConfigMaps carry no label of their own (they are the tutorial's `kubectl create configmap`), so the LIST is of the
// namespace's ConfigMaps, in one page sized after its RayJobs: a namespace full of other ConfigMaps costs a bounded
// page, and a job whose ConfigMap is not on it is read on its own.
func sharedFilesConfigMap(ctx context.Context, c *kube.Clients, job *rayv1.RayJob) (*corev1.ConfigMap, error) {
	name := filesConfigMapName(job)
	if name == "" {
		return nil, nil
	}
	jobs, err := namespaceRayJobs(ctx, c, job.Namespace)
	if err != nil || len(jobs) < minSharedConfigMaps {
		return getConfigMap(ctx, c, job.Namespace, name)
	}
	all, err := sharedConfigMaps.get(ctx, shareKey{c, job.Namespace}, func(ctx context.Context) ([]corev1.ConfigMap, error) {
		list, err := c.Core.ConfigMaps(job.Namespace).List(ctx, metav1.ListOptions{Limit: int64(2*len(jobs) + 16)})
		if err != nil {
			return nil, err
		}
		return list.Items, nil
	})
	if err != nil {
		return getConfigMap(ctx, c, job.Namespace, name)
	}
	for i := range all {
		if all[i].Name == name {
			return all[i].DeepCopy(), nil
		}
	}
	return getConfigMap(ctx, c, job.Namespace, name)
}

// sharedWorkload is findWorkload answered from the namespace's shared LIST.
func sharedWorkload(ctx context.Context, c *kube.Clients, job *rayv1.RayJob) (*kueue.Workload, error) {
	all, err := sharedWorkloads.get(ctx, shareKey{c, job.Namespace}, func(ctx context.Context) ([]kueue.Workload, error) {
		list, err := c.Kueue.KueueV1beta2().Workloads(job.Namespace).List(ctx, metav1.ListOptions{
			LabelSelector: jobUIDLabel, ResourceVersion: "0",
		})
		if err != nil {
			return nil, err
		}
		return list.Items, nil
	})
	if err != nil {
		return nil, err
	}
	var mine []kueue.Workload
	for _, wl := range all {
		if wl.Labels[jobUIDLabel] == string(job.UID) {
			mine = append(mine, wl)
		}
	}
	return newestWorkload(mine), nil
}

// sharedJobPods is jobPods answered from the namespace's shared LIST of Ray pods.
func sharedJobPods(ctx context.Context, c *kube.Clients, job *rayv1.RayJob) ([]corev1.Pod, error) {
	if job.Status.RayClusterName == "" {
		return nil, nil
	}
	all, err := sharedRayPods.get(ctx, shareKey{c, job.Namespace}, func(ctx context.Context) ([]corev1.Pod, error) {
		list, err := c.Core.Pods(job.Namespace).List(ctx, metav1.ListOptions{LabelSelector: rayClusterLabel, ResourceVersion: "0"})
		if err != nil {
			return nil, err
		}
		return list.Items, nil
	})
	if err != nil {
		return nil, err
	}
	var mine []corev1.Pod
	for _, p := range all {
		if p.Labels[rayClusterLabel] == job.Status.RayClusterName {
			mine = append(mine, p)
		}
	}
	return mine, nil
}
