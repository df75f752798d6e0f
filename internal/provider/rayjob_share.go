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

// A LIST of a namespace serves the Reads of one refresh. Terraform reads the RayJobs of a refresh in waves of
// -parallelism, one after the other, so a LIST is reused while Reads keep coming less than shareGap apart, for at
// most shareMaxAge: at N = 1000 a refresh takes about 10 s, and a LIST that lapsed every 2 s was made five times,
// each a 16 MB Workload list the API server encodes anew. The answers are the namespace as the refresh found it when
// it began, as Terraform's own refresh is a walk begun at one moment; a write by this provider to the namespace drops
// them at once, so what an apply changes is never answered from before the change.
const (
	shareGap    = 2 * time.Second
	shareMaxAge = time.Minute
)

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
	done     chan struct{}
	at, used time.Time
	items    []T
	err      error
}

// get returns the namespace's items: from a LIST under way or still serving (see shareGap), or from a new one.
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
			fresh = l.err == nil && time.Since(l.used) < shareGap && time.Since(l.at) < shareMaxAge
		default: // under way
		}
	}
	if !fresh {
		l = &sharedList[T]{done: make(chan struct{})}
		s.lists[key] = l
		s.mu.Unlock()
		// The LIST is the namespace's, not this Read's: one Read's cancellation must not fail the others.
		l.items, l.err = list(context.WithoutCancel(ctx))
		s.mu.Lock()
		l.at, l.used = time.Now(), time.Now()
		s.mu.Unlock()
		close(l.done)
		return l.items, l.err
	}
	if fresh {
		l.used = time.Now()
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

// sharedRayJob is the job from the namespace's shared LIST. That LIST is as fresh as a GET: a refresh sees every
// change made before it started. A job the LIST does not hold is read on its own, so a job is only ever reported
// gone by a GET's NotFound.
func sharedRayJob(ctx context.Context, c *kube.Clients, ns, name string) (*rayv1.RayJob, error) {
	all, err := namespaceRayJobs(ctx, c, ns)
	if err != nil {
		return nil, err
	}
	if job := byName(all, name); job != nil {
		return job, nil
	}
	return getRayJob(ctx, c, ns, name)
}

// byName is a copy of the item of a shared LIST that has this name, or nil: the LIST stays as the other Reads see it.
func byName[T any, P interface {
	*T
	GetName() string
	DeepCopy() *T
}](items []T, name string) *T {
	for i := range items {
		if p := P(&items[i]); p.GetName() == name {
			return p.DeepCopy()
		}
	}
	return nil
}

// namespaceRayJobs lists the namespace's RayJobs as fresh as a quorum read, from the API server's watch cache. A
// LIST without a resourceVersion is served from etcd, where the API server decodes every RayJob (a custom resource,
// so as unstructured JSON) once per LIST: at 1000 jobs that was an eighth of the machine's CPU in a plan. Instead a
// one-item page of that quorum read gives etcd's current revision, and the whole list is asked for not older than
// it, which the watch cache answers (it waits until it has caught up). Where it cannot, the quorum LIST is used.
func namespaceRayJobs(ctx context.Context, c *kube.Clients, ns string) ([]rayv1.RayJob, error) {
	return sharedRayJobs.get(ctx, shareKey{c, ns}, func(ctx context.Context) ([]rayv1.RayJob, error) {
		list, err := freshList(ctx, metav1.ListOptions{}, c.Ray.RayV1().RayJobs(ns).List)
		if err != nil {
			return nil, err
		}
		return list.Items, nil
	})
}

// freshList lists as freshly as a quorum read, from the API server's watch cache. A LIST without a resourceVersion
// is served from etcd, where the API server decodes every object once per LIST (custom resources as unstructured
// JSON): 1000 RayJobs cost 1.9 s of its CPU that way, 0.23 s from the cache. So a one-item page of the quorum read
// gives etcd's current revision, and the whole list is asked for not older than it, which the watch cache answers
// once it has caught up. Where it cannot, the quorum LIST is made after all.
func freshList[L interface {
	GetContinue() string
	GetResourceVersion() string
}](ctx context.Context, opts metav1.ListOptions, list func(context.Context, metav1.ListOptions) (L, error)) (L, error) {
	head := opts
	head.Limit = 1
	first, err := list(ctx, head)
	if err != nil || first.GetContinue() == "" {
		return first, err // an error, or that page was the whole list
	}
	cached := opts
	cached.ResourceVersion, cached.ResourceVersionMatch = first.GetResourceVersion(), metav1.ResourceVersionMatchNotOlderThan
	if all, err := list(ctx, cached); err == nil {
		return all, nil
	}
	return list(ctx, opts)
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
	if cm := byName(all, name); cm != nil {
		return cm, nil
	}
	return getConfigMap(ctx, c, job.Namespace, name)
}

// sharedWorkload is findWorkload answered from the namespace's shared LIST.
func sharedWorkload(ctx context.Context, c *kube.Clients, job *rayv1.RayJob) (*kueue.Workload, error) {
	all, err := sharedWorkloads.get(ctx, shareKey{c, job.Namespace}, func(ctx context.Context) ([]kueue.Workload, error) {
		list, err := freshList(ctx, metav1.ListOptions{LabelSelector: jobUIDLabel}, c.Kueue.KueueV1beta2().Workloads(job.Namespace).List)
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
		list, err := freshList(ctx, metav1.ListOptions{LabelSelector: rayClusterLabel}, c.Core.Pods(job.Namespace).List)
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
