//go:build tools

// Package tools pins the OpenTofu CLI, for the acceptance run that checks the provider under tofu as well.
package tools

import _ "github.com/opentofu/opentofu/cmd/tofu"
