package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// floorJob is the RayJob and ConfigMap the bench's dwsfallback_rayjob makes (workdir.go's jobsConfig: the tutorial's
// job without runtime env or head selector, elastic, files in <name>-files at /app), as a manifest for kubectl, with
// a label that finds the floor's objects. floorMatchesOurs holds it to what the provider made.
const floorJob = `apiVersion: v1
kind: ConfigMap
metadata:
  name: NAME-files
  labels: {bench-floor: apply}
data:
  train.py: |
    print('training')
---
apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: NAME
  labels: {bench-floor: apply, kueue.x-k8s.io/queue-name: dws-local-queue}
  annotations: {kueue.x-k8s.io/elastic-job: "true"}
spec:
  shutdownAfterJobFinishes: true
  entrypoint: python /app/train.py
  rayClusterSpec:
    enableInTreeAutoscaling: true
    headGroupSpec:
      rayStartParams: {}
      template:
        spec:
          containers:
          - name: ray-head
            image: rayproject/ray:2.53.0-py311
            ports:
            - {containerPort: 6379, name: gcs-server}
            - {containerPort: 8265, name: dashboard}
            - {containerPort: 10001, name: client}
            resources:
              limits: {cpu: "2", memory: 4Gi}
              requests: {cpu: "2", memory: 4Gi}
            volumeMounts: [{mountPath: /app, name: train-script-volume}]
          volumes: [{name: train-script-volume, configMap: {name: NAME-files}}]
    workerGroupSpecs:
    - replicas: 1
      minReplicas: 1
      maxReplicas: 1
      numOfHosts: 4
      groupName: tpu-group
      rayStartParams: {}
      template:
        spec:
          tolerations:
          - {key: google.com/tpu, operator: Exists, effect: NoSchedule}
          - {key: cloud.google.com/gke-queued, operator: Exists, effect: NoSchedule}
          containers:
          - name: ray-worker
            image: rayproject/ray:2.53.0-py311
            resources:
              limits: {cpu: "8", google.com/tpu: "4", memory: 16Gi}
              requests: {cpu: "8", google.com/tpu: "4", memory: 16Gi}
            volumeMounts: [{mountPath: /app, name: train-script-volume}]
          volumes: [{name: train-script-volume, configMap: {name: NAME-files}}]
          nodeSelector:
            cloud.google.com/gke-tpu-accelerator: tpu-v6e-slice
            cloud.google.com/gke-tpu-topology: 4x4
`

// measureApplyFloor is the apply floor: the same n RayJobs and ConfigMaps created with one `kubectl apply` and
// waited for to the same point as ours (every job's Workload admitted by Kueue, or nothing when admitted is
// false), which no provider creating them through the API server can go below. The objects are deleted after.
func (b *bench) measureApplyFloor(dir string, n int, admitted bool) (time.Duration, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	if err := b.floorMatchesOurs("bench-job-0"); err != nil {
		return 0, err
	}
	var docs []string
	for i := range n {
		docs = append(docs, strings.ReplaceAll(floorJob, "NAME", fmt.Sprintf("floor-job-%d", i)))
	}
	manifest := filepath.Join(dir, "jobs.yaml")
	if err := os.WriteFile(manifest, []byte(strings.Join(docs, "---\n")), 0o600); err != nil {
		return 0, err
	}
	kubectl := func(args ...string) error {
		cmd := exec.Command("kubectl", append([]string{"--kubeconfig", b.stack.Kubeconfig, "-n", "default"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("kubectl %s: %w\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	defer func() {
		// Gone before our destroy is timed, except at N = 1000, whose stack goes with the bench.
		if err := kubectl("delete", "rayjobs,configmaps", "-l", "bench-floor=apply", fmt.Sprintf("--wait=%t", admitted)); err != nil {
			log.Printf("apply floor: %v", err)
		}
	}()
	start := time.Now()
	if err := kubectl("apply", "-f", manifest); err != nil {
		return 0, err
	}
	for admitted {
		got, err := b.admittedFloorJobs()
		if err != nil {
			return 0, err
		}
		if got >= n {
			break
		}
		if time.Since(start) > 30*time.Minute {
			return 0, fmt.Errorf("apply floor: %d of %d jobs admitted after 30 minutes", got, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return time.Since(start), nil
}

// admittedFloorJobs counts the floor's jobs whose Workload Kueue admitted.
func (b *bench) admittedFloorJobs() (int, error) {
	wls, err := b.admin.Kueue.KueueV1beta2().Workloads("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, wl := range wls.Items {
		for _, o := range wl.OwnerReferences {
			if o.Kind == "RayJob" && strings.HasPrefix(o.Name, "floor-job-") && wl.Status.Admission != nil {
				n++
			}
		}
	}
	return n, nil
}

// floorMatchesOurs checks that every field the floor's manifest sets has the same value in the RayJob and ConfigMap
// the provider made as job (what Kueue and the API server add on top is theirs), so the floor creates what ours does.
func (b *bench) floorMatchesOurs(job string) error {
	docs := strings.Split(strings.ReplaceAll(floorJob, "NAME", job), "---\n")
	for i, obj := range []struct{ kind, name string }{{"configmap", job + "-files"}, {"rayjob", job}} {
		kind := obj.kind
		var want map[string]any
		if err := yaml.Unmarshal([]byte(docs[i]), &want); err != nil {
			return fmt.Errorf("the apply floor's %s: %w", kind, err)
		}
		meta, _ := want["metadata"].(map[string]any)
		labels, _ := meta["labels"].(map[string]any)
		delete(labels, "bench-floor") // the floor's own, to find its objects
		out, err := exec.Command("kubectl", "--kubeconfig", b.stack.Kubeconfig, "-n", "default", "get", kind, obj.name, "-o", "json").Output()
		if err != nil {
			return fmt.Errorf("reading our %s %s to compare with the apply floor's: %w", kind, obj.name, err)
		}
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			return err
		}
		if diffs := notIn(want, got, kind); len(diffs) > 0 {
			return fmt.Errorf("the apply floor's manifest is not what the provider made (tools/bench/floor_apply.go's floorJob):\n%s", strings.Join(diffs, "\n"))
		}
	}
	return nil
}

// notIn lists the paths where want (a manifest, as JSON values) sets a value that got does not hold.
func notIn(want, got any, at string) []string {
	switch w := want.(type) {
	case map[string]any:
		g, _ := got.(map[string]any)
		var out []string
		for k, v := range w {
			out = append(out, notIn(v, g[k], at+"."+k)...)
		}
		return out
	case []any:
		g, _ := got.([]any)
		if len(g) < len(w) {
			return []string{fmt.Sprintf("%s: %d items, the floor's %d", at, len(g), len(w))}
		}
		var out []string
		for i, v := range w {
			out = append(out, notIn(v, g[i], fmt.Sprintf("%s[%d]", at, i))...)
		}
		return out
	}
	if fmt.Sprint(want) != fmt.Sprint(got) {
		return []string{fmt.Sprintf("%s: ours %v, the floor's %v", at, got, want)}
	}
	return nil
}
