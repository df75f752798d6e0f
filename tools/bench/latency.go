package main

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// measureLatency times how long the provider's waits take to return after the event they wait for. Admission: from
// the moment the bench's own watch sees Kueue admit a Workload to the provider logging "admitted". Running and
// completion: from the bench writing the RayJob status KubeRay writes (jobDeploymentStatus Running, or Complete; no
// KubeRay or Ray runs in this stage) to the provider logging it. Times come from the provider's
// INFO log (millisecond timestamps) and the bench's clock, on one machine.
func (b *bench) measureLatency(dir string) error {
	logPath := filepath.Join(dir, "provider.log")
	tf, err := newWorkdir(dir, b.binary, baseConfig, b.env)
	if err != nil {
		return err
	}
	if err := tf.run("apply", "-auto-approve"); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	admittedAt, completedAt, runningAt := map[string]time.Time{}, map[string]time.Time{}, map[string]time.Time{}
	w, err := b.admin.Kueue.KueueV1beta2().Workloads("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	go func() {
		for ev := range w.ResultChan() {
			wl, ok := ev.Object.(*kueue.Workload)
			if !ok || !apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted) {
				continue
			}
			now := time.Now()
			for _, o := range wl.OwnerReferences {
				mu.Lock()
				if _, seen := admittedAt[o.Name]; !seen && o.Kind == "RayJob" {
					admittedAt[o.Name] = now
				}
				mu.Unlock()
			}
		}
	}()
	log.Printf("wait latency: %d jobs waiting for admission, %d for completion", b.runs, b.runs)
	// markAfterAdmission writes a job's status as KubeRay would, once Kueue has admitted it, and notes when.
	markAfterAdmission := func(name, status string, at map[string]time.Time) {
		for ctx.Err() == nil {
			mu.Lock()
			_, admitted := admittedAt[name]
			mu.Unlock()
			if admitted {
				time.Sleep(500 * time.Millisecond)
				mu.Lock()
				at[name] = time.Now()
				mu.Unlock()
				_, err := b.admin.Ray.RayV1().RayJobs("default").Patch(ctx, name, types.MergePatchType,
					[]byte(`{"status":`+status+`}`), metav1.PatchOptions{}, "status")
				if err != nil {
					log.Printf("marking %s: %v", name, err)
				}
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	for k := 1; k <= b.runs; k++ {
		go markAfterAdmission(fmt.Sprintf("lat-done-%d", k-1), `{"jobDeploymentStatus":"Complete","jobStatus":"SUCCEEDED"}`, completedAt)
		go markAfterAdmission(fmt.Sprintf("lat-run-%d", k-1), `{"jobDeploymentStatus":"Running","jobStatus":"RUNNING"}`, runningAt)
		if err := tf.write(baseConfig + jobsConfig("lat-admit", k, "admitted") + jobsConfig("lat-run", k, "running") + jobsConfig("lat-done", k, "complete")); err != nil {
			return err
		}
		if err := tf.runEnv([]string{"TF_LOG_PROVIDER=INFO", "TF_LOG_PATH=" + logPath}, "apply", "-auto-approve"); err != nil {
			return err
		}
	}
	logged, err := providerLogTimes(logPath)
	if err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	for name, at := range admittedAt {
		if t, ok := logged["admitted "+name]; ok {
			b.latency.Admitted = append(b.latency.Admitted, t.Sub(at))
		}
	}
	for name, at := range completedAt {
		if t, ok := logged["complete "+name]; ok {
			b.latency.Completed = append(b.latency.Completed, t.Sub(at))
		}
	}
	for name, at := range runningAt {
		if t, ok := logged["running "+name]; ok {
			b.latency.Running = append(b.latency.Running, t.Sub(at))
		}
	}
	if len(b.latency.Admitted) == 0 || len(b.latency.Completed) == 0 || len(b.latency.Running) == 0 {
		return fmt.Errorf("no wait latency measured (admitted %d, running %d, completed %d)", len(b.latency.Admitted), len(b.latency.Running), len(b.latency.Completed))
	}
	return tf.run("destroy", "-auto-approve")
}

var (
	phaseRE     = regexp.MustCompile(`RayJob default/(\S+): admitted on .*KubeRay deployment (\S+)`)
	timestampRE = regexp.MustCompile(`timestamp="?([0-9T:.\-+Z]+)`)
)

// providerLogTimes reads when the provider first logged each job admitted ("admitted NAME"), running ("running
// NAME") and complete ("complete NAME"), by its own log timestamps.
func providerLogTimes(path string) (map[string]time.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	out := map[string]time.Time{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		m := phaseRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		ts := timestampRE.FindStringSubmatch(line)
		if ts == nil {
			ts = []string{"", strings.Fields(line)[0]}
		}
		t, err := time.Parse(time.RFC3339Nano, ts[1])
		if err != nil {
			continue
		}
		keys := []string{"admitted " + m[1]}
		switch {
		case strings.HasPrefix(m[2], "Complete"):
			keys = append(keys, "complete "+m[1])
		case strings.HasPrefix(m[2], "Running"):
			keys = append(keys, "running "+m[1])
		}
		for _, k := range keys {
			if _, seen := out[k]; !seen {
				out[k] = t
			}
		}
	}
	return out, sc.Err()
}
