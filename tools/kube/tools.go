//go:build tools

// Package tools pins the Kubernetes binaries the local control plane runs; `go build` of these paths builds them.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
