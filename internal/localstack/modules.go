package localstack

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
)

// The versions whose CRDs and manager the stack runs; they match what the provider's go.mod and tools/kueue require.
const (
	KueueModule        = "sigs.k8s.io/kueue"
	KubeRayModule      = "github.com/ray-project/kuberay/ray-operator"
	AutoscalerAPIsPath = "k8s.io/autoscaler/cluster-autoscaler/apis"
)

// moduleDir returns where the Go module cache holds module (at the version the module in dir selects), downloading
// it through the module proxy if needed.
func moduleDir(dir, module string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("locating %s in the module cache: %w", module, err)
	}
	var info struct{ Dir, Version, Error string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		return "", fmt.Errorf("locating %s in the module cache: %s %w", module, info.Error, err)
	}
	return info.Dir, nil
}

// crdFiles lists the CRD manifests the stack installs: Kueue's, KubeRay's RayJob, RayCluster and RayService, and
// ProvisioningRequest (which must exist before Kueue starts: it checks discovery once).
func crdFiles(repo string) ([]string, error) {
	kueue, err := moduleDir(repo, KueueModule)
	if err != nil {
		return nil, err
	}
	ray, err := moduleDir(repo, KubeRayModule)
	if err != nil {
		return nil, err
	}
	autoscaler, err := moduleDir(repo, AutoscalerAPIsPath)
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(kueue, "config/components/crd/bases/*.yaml"))
	if err != nil {
		return nil, err
	}
	return append(files,
		filepath.Join(ray, "config/crd/bases/ray.io_rayjobs.yaml"),
		filepath.Join(ray, "config/crd/bases/ray.io_rayclusters.yaml"),
		// KubeRay's operator runs its RayService controller whatever the cluster holds, and exits when that
		// controller's cache cannot sync after controller-runtime's two minutes: the CRD must be served even though
		// nothing here makes RayServices.
		filepath.Join(ray, "config/crd/bases/ray.io_rayservices.yaml"),
		filepath.Join(autoscaler, "config/crd/autoscaling.x-k8s.io_provisioningrequests.yaml"),
	), nil
}

// ModuleDir is where the module cache holds module, at the version the module in dir selects.
func ModuleDir(dir, module string) (string, error) { return moduleDir(dir, module) }
