package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestManagedObjectsFromState(t *testing.T) {
	state := `{"resources": [
  {"mode": "managed", "type": "dwsfallback_cluster", "instances": [{"attributes": {}}]},
  {"mode": "managed", "type": "dwsfallback_tpu_pool_pair", "instances": [{"attributes": {}}]},
  {"mode": "managed", "type": "dwsfallback_kueue_queue", "instances": [{"attributes": {
    "flavors": [{"provisioning": null}, {"provisioning": null}, {"provisioning": {"admission_check": "dws-prov", "config": "dws-config"}}],
    "local_queues": [{"namespace": "default", "name": "user-queue"}]}}]},
  {"mode": "managed", "type": "dwsfallback_rayjob", "instances": [{"attributes": {"files": {"train.py": "x"}}}, {"attributes": {"files": null}}]},
  {"mode": "data", "type": "dwsfallback_rayjob", "instances": [{"attributes": {}}]}
]}`
	file := filepath.Join(t.TempDir(), "terraform.tfstate")
	if err := os.WriteFile(file, []byte(state), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := managedObjects(file)
	// cluster 1, pools 2, the tutorial's 7 Kueue objects, a job with its ConfigMap 2, a job without files 1.
	if err != nil || got != 1+2+7+2+1 {
		t.Errorf("managedObjects = %d, %v; want 13", got, err)
	}
}
