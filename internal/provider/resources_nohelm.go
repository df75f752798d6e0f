//go:build nohelm

package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// helmResources is empty in a build without the Helm SDK: Kueue is then installed some other way (helm, GitOps).
var helmResources []func() resource.Resource

// helmLists is empty with them.
var helmLists []func() list.ListResource
