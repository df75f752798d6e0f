package multikueue

import (
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/listing"
)

// ListWorkerKind is the worker's list resource: a manager cluster's MultiKueueClusters.
func ListWorkerKind() listing.Kind {
	return listing.Kind{
		Name:     "multikueue_worker",
		Identity: multiKueueWorkerIdentity,
		Find: listing.ClusterScoped("multiKueueClusters", func(k *kube.Clients) listing.Page {
			return listing.ObjectsPage(k.Kueue.KueueV1beta2().MultiKueueClusters().List)
		}),
	}
}

// ListConfigKind is the config's list resource: a manager cluster's MultiKueueConfigs.
func ListConfigKind() listing.Kind {
	return listing.Kind{
		Name:     "multikueue_config",
		Identity: multiKueueConfigIdentity,
		Find: listing.ClusterScoped("multiKueueConfigs", func(k *kube.Clients) listing.Page {
			return listing.ObjectsPage(k.Kueue.KueueV1beta2().MultiKueueConfigs().List)
		}),
	}
}
