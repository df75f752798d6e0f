package kueuequeue

import (
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/listing"
)

// ListKind is the queue's list resource: a cluster's ClusterQueues, each with the flavors, checks and LocalQueues
// an import of it groups.
func ListKind() listing.Kind {
	return listing.Kind{
		Name:     "kueue_queue",
		Identity: kueueQueueIdentity,
		Find: listing.ClusterScoped("clusterQueues", func(k *kube.Clients) listing.Page {
			return listing.ObjectsPage(k.Kueue.KueueV1beta2().ClusterQueues().List)
		}),
	}
}
