//go:build !nohelm

package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/listing"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/resources/kueueinstall"
)

// helmResources are the resources built on the Helm SDK, which costs about 39 MiB of binary and 30 ms of start-up
// (bench/results.md). Building with -tags nohelm leaves them out.
var helmResources = []func() resource.Resource{kueueinstall.New}

// helmLists are their list resources.
var helmLists = []func() list.ListResource{listing.New(kueueinstall.ListKind())}
