//go:build tools

// Package tools pins the Kueue manager the local control plane runs.
package tools

import _ "sigs.k8s.io/kueue/cmd/kueue"
