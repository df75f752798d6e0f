package main

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/localstack"
)

// runningDestroy is the destroy of N admitted RayJobs that KubeRay works on: RayClusters made, pods scheduled onto
// the emulator's nodes where there is room (running) and pending where there is none yet (initializing), as a team's
// jobs are when it tears a setup down. The plan stages' jobs never start (no KubeRay runs there), so their destroy
// waits on no finalizer.
type runningDestroy struct {
	N int
	// Clusters and RunningPods are what KubeRay had made when the destroy began.
	Clusters, RunningPods, PendingPods int
	Destroy                            time.Duration
	// FinalizerWaits is, per RayJob, from its deletionTimestamp to its removal: what KubeRay's finalizer held it.
	FinalizerWaits []time.Duration
}

// measureRunningDestroy runs on a stack of its own, attached to a GKE emulator of its own as `make local-up` runs
// it (DWS, autoscaler, KubeRay for the RayOperator add-on), so that the plan stages keep their quiet stack.
func (b *bench) measureRunningDestroy(dir, binDir string, n int) (*runningDestroy, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sctx, scancel := context.WithTimeout(ctx, 3*time.Minute)
	defer scancel()
	stack, err := localstack.Start(sctx, localstack.Options{Dir: filepath.Join(dir, "stack"), BinDir: binDir, Repo: ".", Tokens: []string{token}})
	if err != nil {
		return nil, err
	}
	defer stack.Stop()
	emu := gkeemu.New(gkeemu.Options{OperationDelay: 200 * time.Millisecond, Tokens: []string{token}})
	if err := stack.AttachGKE(ctx, emu, localstack.GKEOptions{DWSDelay: time.Second, ScaleDownDelay: time.Hour, TimeScale: 0.01}); err != nil {
		return nil, err
	}
	srv := httptest.NewServer(emu)
	defer srv.Close()
	env := append([]string{"DWSFALLBACK_CONTAINER_ENDPOINT=" + srv.URL}, benchEnv...)
	tf, err := newWorkdir(filepath.Join(dir, "tf"), b.binary, baseConfig+jobsConfig("running-job", n, "admitted"), env)
	if err != nil {
		return nil, err
	}
	log.Printf("running destroy: apply of %d RayJobs with KubeRay", n)
	if err := tf.run("apply", "-auto-approve"); err != nil {
		return nil, err
	}
	admin, err := kube.New(kube.Target{Host: stack.Host, CAData: stack.CAPEM, BearerToken: stack.AdminToken})
	if err != nil {
		return nil, err
	}
	r := &runningDestroy{N: n}
	// Until KubeRay has a RayCluster for every job and the scheduler has placed what fits.
	for deadline := time.Now().Add(5 * time.Minute); ; {
		if r.Clusters, r.RunningPods, r.PendingPods, err = rayProgress(ctx, admin); err != nil {
			return nil, err
		}
		if r.Clusters >= n && r.RunningPods > 0 {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("after 5 minutes KubeRay had %d RayClusters of %d, with %d pods running: nothing to measure",
				r.Clusters, n, r.RunningPods)
		}
		time.Sleep(2 * time.Second)
	}
	log.Printf("running destroy: %d RayClusters, %d pods running, %d pending; destroy", r.Clusters, r.RunningPods, r.PendingPods)
	w := newFinalizerWatch(admin)
	go w.run(ctx)
	start := time.Now()
	if err := tf.run("destroy", "-auto-approve"); err != nil {
		return nil, err
	}
	r.Destroy = time.Since(start)
	cancel()
	r.FinalizerWaits = w.result()
	for _, x := range stack.Restarts() {
		log.Printf("running destroy: a component of the stack restarted: %s", x)
	}
	return r, nil
}

// rayProgress counts RayClusters, and the pods of the default namespace by phase.
func rayProgress(ctx context.Context, c *kube.Clients) (clusters, running, pending int, err error) {
	rcs, err := c.Ray.RayV1().RayClusters("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, 0, 0, err
	}
	pods, err := c.Core.Pods("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, 0, 0, err
	}
	for _, p := range pods.Items {
		switch p.Status.Phase {
		case corev1.PodRunning:
			running++
		case corev1.PodPending:
			pending++
		}
	}
	return len(rcs.Items), running, pending, nil
}

// finalizerWatch polls the RayJobs: from the deletionTimestamp each one shows to the list that no longer has it.
type finalizerWatch struct {
	c      *kube.Clients
	mu     sync.Mutex
	since  map[string]time.Time
	before map[string]bool
	waits  []time.Duration
	done   chan struct{}
}

func newFinalizerWatch(c *kube.Clients) *finalizerWatch {
	return &finalizerWatch{c: c, since: map[string]time.Time{}, before: map[string]bool{}, done: make(chan struct{})}
}

func (w *finalizerWatch) run(ctx context.Context) {
	defer close(w.done)
	for ctx.Err() == nil {
		list, err := w.c.Ray.RayV1().RayJobs("default").List(ctx, metav1.ListOptions{})
		if err == nil {
			now, present := time.Now(), map[string]bool{}
			w.mu.Lock()
			for _, j := range list.Items {
				present[j.Name] = true
				if j.DeletionTimestamp != nil && w.since[j.Name].IsZero() {
					w.since[j.Name] = j.DeletionTimestamp.Time
				}
			}
			// Deleted and gone between two lists: less than the interval, counted as the interval.
			for name := range w.before {
				if !present[name] && w.since[name].IsZero() {
					w.since[name] = now.Add(-200 * time.Millisecond)
				}
			}
			w.before = present
			for name, at := range w.since {
				if !present[name] {
					w.waits = append(w.waits, now.Sub(at))
					delete(w.since, name)
				}
			}
			w.mu.Unlock()
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (w *finalizerWatch) result() []time.Duration {
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	out := append([]time.Duration(nil), w.waits...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// runningDestroyRows is the report's section on it.
func (r *runningDestroy) rows() string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Destroy of admitted jobs that KubeRay runs\n\n"+
		"%d RayJobs admitted on a stack with KubeRay, the emulator's autoscaler and DWS (`make local-up`'s), destroyed by one "+
		"`terraform destroy`. When it began KubeRay had %d RayClusters, with %d pods running and %d pending (the pool's "+
		"4 nodes hold one slice at a time). A RayJob's wait on finalizers is from its deletionTimestamp (whole seconds, so it errs "+
		"long by under a second) to its removal, polled every 200 ms; a job deleted and gone between two polls counts 200 ms.\n\n"+
		"| N | destroy | RayJobs seen deleted | finalizer wait: median | p90 | max |\n|---|---|---|---|---|---|\n",
		r.N, r.Clusters, r.RunningPods, r.PendingPods)
	fmt.Fprintf(&b, "| %d | %s | %d | %s | %s | %s |\n", r.N, secs(r.Destroy), len(r.FinalizerWaits),
		ms(quantile(r.FinalizerWaits, 0.5)), ms(quantile(r.FinalizerWaits, 0.9)), ms(quantile(r.FinalizerWaits, 1)))
	return b.String()
}

// quantile of sorted durations; 0 for none.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q * float64(len(sorted)-1))
	return sorted[i]
}
