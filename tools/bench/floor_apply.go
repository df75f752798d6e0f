package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// floorJob is the RayJob and ConfigMap the bench's dwsfallback_rayjob makes (workdir.go's jobsConfig: the tutorial's
// job without runtime env or head selector, elastic, files in <name>-files at /app), as a manifest for kubectl, with
// a label that finds the floor's objects. Keep it in step with jobsConfig.
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
            volumeMounts: [{mountPath: /app, name: files}]
          volumes: [{name: files, configMap: {name: NAME-files}}]
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
            volumeMounts: [{mountPath: /app, name: files}]
          volumes: [{name: files, configMap: {name: NAME-files}}]
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
