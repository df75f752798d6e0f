package computeclass

import (
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeclass"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/listing"
)

// ListKind is the ComputeClass's list resource: a cluster's ComputeClasses.
func ListKind() listing.Kind {
	return listing.Kind{
		Name:     "compute_class",
		Identity: computeClassIdentity,
		Find: listing.ClusterScoped("computeClasses", func(k *kube.Clients) listing.Page {
			return listing.ObjectsPage(k.Dynamic.Resource(gkeclass.GVR).List)
		}),
	}
}
