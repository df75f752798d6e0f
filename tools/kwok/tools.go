//go:build tools

// Package tools pins kwok, which plays the kubelet of the local stack's fake nodes.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
