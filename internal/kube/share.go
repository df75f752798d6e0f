package kube

import (
	"context"
	"sort"
	"sync"
	"time"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
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

// ShareKey names what one LIST holds: one namespace of one cluster.
type ShareKey struct {
	C  *Clients
	NS string
}

// ListShare shares LISTs of one kind of object per cluster and namespace within a provider process.
type ListShare[T any] struct {
	mu    sync.Mutex
	lists map[ShareKey]*sharedList[T]
}

type sharedList[T any] struct {
	done     chan struct{}
	at, used time.Time
	items    []T
	err      error
}

// Get returns the namespace's items: from a LIST under way or still serving (see shareGap), or from a new one.
func (s *ListShare[T]) Get(ctx context.Context, key ShareKey, list func(context.Context) ([]T, error)) ([]T, error) {
	l, mine := s.claim(key)
	if mine {
		s.run(ctx, l, list)
		return l.items, l.err
	}
	select {
	case <-l.done:
		return l.items, l.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Start begins the namespace's LIST in the background unless one is under way or still serving, so that a Read
// that needs several LISTs waits for the longest of them rather than for their sum.
func (s *ListShare[T]) Start(ctx context.Context, key ShareKey, list func(context.Context) ([]T, error)) {
	if l, mine := s.claim(key); mine {
		go s.run(ctx, l, list)
	}
}

// claim returns the key's LIST under way or still serving, or a new one that the caller must run (mine).
func (s *ListShare[T]) claim(key ShareKey) (l *sharedList[T], mine bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lists == nil {
		s.lists = map[ShareKey]*sharedList[T]{}
	}
	if l = s.lists[key]; l != nil {
		select {
		case <-l.done:
			if l.err == nil && time.Since(l.used) < shareGap && time.Since(l.at) < shareMaxAge {
				l.used = time.Now()
				return l, false
			}
		default: // under way
			return l, false
		}
	}
	l = &sharedList[T]{done: make(chan struct{})}
	s.lists[key] = l
	return l, true
}

// run makes the LIST that claim gave the caller.
func (s *ListShare[T]) run(ctx context.Context, l *sharedList[T], list func(context.Context) ([]T, error)) {
	// The LIST is the namespace's, not this Read's: one Read's cancellation must not fail the others.
	items, err := list(context.WithoutCancel(ctx))
	s.mu.Lock()
	l.items, l.err = items, err
	l.at, l.used = time.Now(), time.Now()
	s.mu.Unlock()
	close(l.done)
}

// Forget drops what is shared of a namespace, after a write to it.
func (s *ListShare[T]) Forget(key ShareKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.lists, key)
}

// Reset drops every shared LIST.
func (s *ListShare[T]) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists = nil
}

// JobReads answers a refresh's reads of RayJobs, their files' ConfigMaps, Workloads and Ray pods from shared LISTs of
// each namespace. One serves a provider process.
type JobReads struct {
	rayJobs    ListShare[rayv1.RayJob]
	configMaps ListShare[corev1.ConfigMap]
	workloads  ListShare[kueue.Workload]
	rayPods    ListShare[corev1.Pod]
}

// Forget is called after a write to a RayJob or its ConfigMap.
func (r *JobReads) Forget(c *Clients, ns string) {
	r.rayJobs.Forget(ShareKey{c, ns})
	r.configMaps.Forget(ShareKey{c, ns})
	r.workloads.Forget(ShareKey{c, ns})
	r.rayPods.Forget(ShareKey{c, ns})
}

// Reset drops every shared LIST, so that the next reads see the objects as they are now.
func (r *JobReads) Reset() {
	r.rayJobs.Reset()
	r.configMaps.Reset()
	r.workloads.Reset()
	r.rayPods.Reset()
}

// RayJob is the job from the namespace's shared LIST. That LIST is as fresh as a GET: a refresh sees every
// change made before it started. A job the LIST does not hold is read on its own, so a job is only ever reported
// gone by a GET's NotFound.
func (r *JobReads) RayJob(ctx context.Context, c *Clients, ns, name string) (*rayv1.RayJob, error) {
	all, err := r.RayJobs(ctx, c, ns)
	if err != nil {
		return nil, err
	}
	if job := ByName(all, name); job != nil {
		return job, nil
	}
	return c.Ray.RayV1().RayJobs(ns).Get(ctx, name, metav1.GetOptions{})
}

// ByName is a copy of the item of a shared LIST that has this name, or nil: the LIST stays as the other Reads see it.
func ByName[T any, P interface {
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

// RayJobs lists the namespace's RayJobs as fresh as a quorum read, from the API server's watch cache. A
// LIST without a resourceVersion is served from etcd, where the API server decodes every RayJob (a custom resource,
// so as unstructured JSON) once per LIST: at 1000 jobs that was an eighth of the machine's CPU in a plan. Instead a
// one-item page of that quorum read gives etcd's current revision, and the whole list is asked for not older than
// it, which the watch cache answers (it waits until it has caught up). Where it cannot, the quorum LIST is used.
func (r *JobReads) RayJobs(ctx context.Context, c *Clients, ns string) ([]rayv1.RayJob, error) {
	return r.rayJobs.Get(ctx, ShareKey{c, ns}, r.listRayJobs(c, ns, false))
}

// Start begins the namespace's LISTs that a job's refresh needs: RayJobs and Workloads at once and, when the job
// has files, the ConfigMaps as soon as the RayJobs say how many there are (FilesConfigMap's LIST). The first Read of a
// refresh then waits for the longest LIST, not for their sum, and every other Read of the refresh waits for that one.
func (r *JobReads) Start(ctx context.Context, c *Clients, ns string, files bool) {
	key := ShareKey{c, ns}
	jobs := r.listRayJobs(c, ns, files)
	r.rayJobs.Start(ctx, key, jobs)
	// The Workloads are listed once the RayJobs are, so that they are at least as new: Kueue writes a Workload's
	// admission before it changes the job (the flavor's node selector, labels and annotations). Listed side by side,
	// a refresh at the moment of admission saw those changes on the job without the admission that explains them,
	// and planned the job's replacement for drift.
	r.workloads.Start(ctx, key, func(ctx context.Context) ([]kueue.Workload, error) {
		if _, err := r.rayJobs.Get(ctx, key, jobs); err != nil {
			return nil, err
		}
		return listWorkloads(c, ns)(ctx)
	})
}

func (r *JobReads) listRayJobs(c *Clients, ns string, files bool) func(context.Context) ([]rayv1.RayJob, error) {
	return func(ctx context.Context) ([]rayv1.RayJob, error) {
		list, err := FreshList(ctx, metav1.ListOptions{}, c.Ray.RayV1().RayJobs(ns).List)
		if err != nil {
			return nil, err
		}
		if files && len(list.Items) >= minSharedConfigMaps {
			r.configMaps.Start(ctx, ShareKey{c, ns}, listConfigMaps(c, ns, len(list.Items)))
		}
		return list.Items, nil
	}
}

func listConfigMaps(c *Clients, ns string, jobs int) func(context.Context) ([]corev1.ConfigMap, error) {
	return func(ctx context.Context) ([]corev1.ConfigMap, error) {
		list, err := c.Core.ConfigMaps(ns).List(ctx, metav1.ListOptions{Limit: int64(2*jobs + 16)})
		if err != nil {
			return nil, err
		}
		return list.Items, nil
	}
}

// FreshList lists as freshly as a quorum read, from the API server's watch cache. A LIST without a resourceVersion
// is served from etcd, where the API server decodes every object once per LIST (custom resources as unstructured
// JSON): 1000 RayJobs cost 1.9 s of its CPU that way, 0.23 s from the cache. So a one-item page of the quorum read
// gives etcd's current revision, and the whole list is asked for not older than it, which the watch cache answers
// once it has caught up. Where it cannot, the quorum LIST is made after all.
func FreshList[L interface {
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

// FilesConfigMap is the job's files' ConfigMap called name (nil when there is none), from one consistent LIST of the namespace's ConfigMaps. The provider's
// ConfigMaps carry no label of their own (they are the tutorial's `kubectl create configmap`), so the LIST is of the
// namespace's ConfigMaps, in one page sized after its RayJobs: a namespace full of other ConfigMaps costs a bounded
// page, and a job whose ConfigMap is not on it is read on its own.
func (r *JobReads) FilesConfigMap(ctx context.Context, c *Clients, job *rayv1.RayJob, name string) (*corev1.ConfigMap, error) {
	if name == "" {
		return nil, nil
	}
	jobs, err := r.RayJobs(ctx, c, job.Namespace)
	if err != nil || len(jobs) < minSharedConfigMaps {
		return getConfigMap(ctx, c, job.Namespace, name)
	}
	all, err := r.configMaps.Get(ctx, ShareKey{c, job.Namespace}, listConfigMaps(c, job.Namespace, len(jobs)))
	if err != nil {
		return getConfigMap(ctx, c, job.Namespace, name)
	}
	if cm := ByName(all, name); cm != nil {
		return cm, nil
	}
	return getConfigMap(ctx, c, job.Namespace, name)
}

func listWorkloads(c *Clients, ns string) func(context.Context) ([]kueue.Workload, error) {
	return func(ctx context.Context) ([]kueue.Workload, error) {
		list, err := FreshList(ctx, metav1.ListOptions{LabelSelector: wellknown.JobUIDLabel}, listWorkloadsNoPodSets(c, ns))
		if err != nil {
			return nil, err
		}
		return list.workloads(), nil
	}
}

// Workload is the job's live Workload (NewestWorkload), answered from the namespace's shared LIST, without its pod
// sets (workloadList).
func (r *JobReads) Workload(ctx context.Context, c *Clients, job *rayv1.RayJob) (*kueue.Workload, error) {
	all, err := r.workloads.Get(ctx, ShareKey{c, job.Namespace}, listWorkloads(c, job.Namespace))
	if err != nil {
		return nil, err
	}
	var mine []kueue.Workload
	for _, wl := range all {
		if wl.Labels[wellknown.JobUIDLabel] == string(job.UID) {
			mine = append(mine, wl)
		}
	}
	return NewestWorkload(mine), nil
}

// JobPods is the pods of the job's RayCluster (head and workers), answered from the namespace's shared LIST of Ray pods.
func (r *JobReads) JobPods(ctx context.Context, c *Clients, job *rayv1.RayJob) ([]corev1.Pod, error) {
	if job.Status.RayClusterName == "" {
		return nil, nil
	}
	all, err := r.rayPods.Get(ctx, ShareKey{c, job.Namespace}, func(ctx context.Context) ([]corev1.Pod, error) {
		list, err := FreshList(ctx, metav1.ListOptions{LabelSelector: wellknown.RayClusterLabel}, c.Core.Pods(job.Namespace).List)
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
		if p.Labels[wellknown.RayClusterLabel] == job.Status.RayClusterName {
			mine = append(mine, p)
		}
	}
	return mine, nil
}

// NewestWorkload is the live one of a job's Workloads: with workload slices an elastic job can have several.
func NewestWorkload(wls []kueue.Workload) *kueue.Workload {
	if len(wls) == 0 {
		return nil
	}
	sort.Slice(wls, func(i, j int) bool { return wls[i].CreationTimestamp.After(wls[j].CreationTimestamp.Time) })
	return &wls[0]
}

func getConfigMap(ctx context.Context, c *Clients, ns, name string) (*corev1.ConfigMap, error) {
	cm, err := c.Core.ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return cm, err
}
