package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// workdir is a terraform working directory that uses the bench's provider binary through dev_overrides.
type workdir struct {
	dir string
	env []string
}

func newWorkdir(dir, binary, config string, env []string) (*workdir, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	rc := filepath.Join(dir, "dev.tfrc")
	overrides := fmt.Sprintf("provider_installation {\n  dev_overrides { \"registry.terraform.io/dwsfallback/dwsfallback\" = %q }\n  direct {}\n}\n", filepath.Dir(binary))
	if err := os.WriteFile(rc, []byte(overrides), 0o600); err != nil {
		return nil, err
	}
	w := &workdir{dir: dir, env: append(append(os.Environ(), env...), "TF_CLI_CONFIG_FILE="+rc)}
	return w, w.write(config)
}

func (w *workdir) write(config string) error {
	return os.WriteFile(filepath.Join(w.dir, "main.tf"), []byte(config), 0o600)
}

func (w *workdir) run(args ...string) error {
	return w.runEnv(nil, args...)
}

func (w *workdir) runEnv(extraEnv []string, args ...string) error {
	cmd := exec.Command("terraform", append(args, "-no-color", "-input=false")...)
	cmd.Dir, cmd.Env = w.dir, append(append([]string{}, w.env...), extraEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("terraform %s: %w\n%s", strings.Join(args, " "), err, tail(out.String()))
	}
	return nil
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return strings.Join(lines, "\n")
}

// stackConfig is the tutorial's setup (cluster, TPU pool pair, Kueue queue) and n RayJobs that wait for admission.
// From 1000 jobs on they do not wait: Kueue admits about one job a second on 2 cores, so a create that waited would
// measure Kueue's throughput rather than the provider (plan, memory and state are what N = 1000 is for).
func stackConfig(n int) string {
	wait := "admitted"
	if n >= 1000 {
		wait = "none"
	}
	return baseConfig + jobsConfig("bench-job", n, wait)
}

const baseConfig = `
terraform {
  required_providers {
    dwsfallback = { source = "dwsfallback/dwsfallback" }
  }
}

resource "dwsfallback_cluster" "tpu" {
  name                = "tpu-cluster"
  deletion_protection = false
}

resource "dwsfallback_tpu_pool_pair" "tpu" {
  cluster      = dwsfallback_cluster.tpu.id
  machine_type = "ct6e-standard-4t"
  tpu_topology = "4x4"
  max_nodes    = 4
  on_demand    = { name = "on-demand-pool" }
  flex_start   = { name = "dws-pool" }
}

# The tutorial's queue, with quotas large enough for every job to be admitted on on-demand capacity.
resource "dwsfallback_kueue_queue" "tpu" {
  cluster = dwsfallback_cluster.tpu.id
  name    = "dws-cluster-queue"
  flavors = [
    { name = "default-cpu", node_labels = { "cloud.google.com/gke-nodepool" = "default-pool" },
      quotas = { cpu = "1000", memory = "2000Gi", "google.com/tpu" = "0" } },
    { name = "on-demand", node_labels = dwsfallback_tpu_pool_pair.tpu.on_demand.node_labels,
      quotas = { cpu = "10000", memory = "20000Gi", "google.com/tpu" = "10000" } },
    { name = "dws", node_labels = dwsfallback_tpu_pool_pair.tpu.flex_start.node_labels,
      quotas = { cpu = "1000000000", memory = "1000000000Gi", "google.com/tpu" = "1000000000" },
      provisioning = {} },
  ]
  local_queues = [{ namespace = "default", name = "dws-local-queue" }]
}
`

// jobsConfig is n RayJobs named prefix-0.., each waiting for wait.
func jobsConfig(prefix string, n int, wait string) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(`
resource "dwsfallback_rayjob" %[1]q {
  count      = %[2]d
  cluster    = dwsfallback_cluster.tpu.id
  name       = "%[1]s-${count.index}"
  queue      = dwsfallback_kueue_queue.tpu.local_queues[0].name
  elastic    = true
  entrypoint = "python /app/train.py"
  files      = { "train.py" = "print('training')\n" }
  image      = "rayproject/ray:2.53.0-py311"
  head       = { cpu = "2", memory = "4Gi" }
  tpu_workers = {
    accelerator    = dwsfallback_tpu_pool_pair.tpu.tpu_accelerator
    topology       = dwsfallback_tpu_pool_pair.tpu.tpu_topology
    chips_per_node = dwsfallback_tpu_pool_pair.tpu.chips_per_node
    cpu = "8", memory = "16Gi"
  }
  wait_for = %[3]q
}
`, prefix, n, wait)
}

// managedObjects counts, from the state, the GKE and Kubernetes objects the resources manage: a cluster is one, a
// pool pair two, a queue its ClusterQueue, flavors, admission checks, configs and LocalQueues, a RayJob one and its
// files' ConfigMap one more.
func managedObjects(stateFile string) (int, error) {
	b, err := os.ReadFile(stateFile)
	if err != nil {
		return 0, err
	}
	var st struct {
		Resources []struct {
			Mode      string `json:"mode"`
			Type      string `json:"type"`
			Instances []struct {
				Attributes struct {
					Flavors []struct {
						Provisioning *struct {
							AdmissionCheck string `json:"admission_check"`
							Config         string `json:"config"`
						} `json:"provisioning"`
					} `json:"flavors"`
					LocalQueues []json.RawMessage `json:"local_queues"`
					Files       map[string]string `json:"files"`
				} `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return 0, fmt.Errorf("reading %s: %w", stateFile, err)
	}
	n := 0
	for _, r := range st.Resources {
		if r.Mode != "managed" {
			continue
		}
		for _, in := range r.Instances {
			a := in.Attributes
			switch r.Type {
			case "dwsfallback_cluster":
				n++
			case "dwsfallback_tpu_pool_pair":
				n += 2
			case "dwsfallback_kueue_queue":
				checks, configs := map[string]bool{}, map[string]bool{}
				for _, f := range a.Flavors {
					if p := f.Provisioning; p != nil {
						checks[p.AdmissionCheck], configs[p.Config] = true, true
					}
				}
				n += 1 + len(a.Flavors) + len(checks) + len(configs) + len(a.LocalQueues)
			case "dwsfallback_rayjob":
				n++
				if len(a.Files) > 0 {
					n++
				}
			}
		}
	}
	return n, nil
}
