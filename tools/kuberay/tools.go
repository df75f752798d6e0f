//go:build tools

// Package tools pins the KubeRay operator the local control plane runs as GKE's RayOperator add-on.
package tools

import _ "github.com/ray-project/kuberay/ray-operator"
