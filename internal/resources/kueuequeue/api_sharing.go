package kueuequeue

import (
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kueueuse"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// Kueue's ResourceFlavors, AdmissionChecks and ProvisioningRequestConfigs are cluster-scoped and meant to be shared:
// teams' ClusterQueues in one cohort name the same flavors and the same DWS check, from one Terraform state or from
// several. A queue resource therefore declares them, and the live ClusterQueues say who uses them (kueueuse): nothing
// that another ClusterQueue still names is deleted, and a second declaration with another spec is refused, naming both.

// withoutShared drops from o the objects that other ClusterQueues use, and says which were kept and why.
func withoutShared(o queueObjectNames, u kueueuse.Users) (queueObjectNames, []string) {
	var kept, k []string
	o.Flavors, k = u.Unshared("ResourceFlavor", o.Flavors)
	kept = append(kept, k...)
	o.Checks, k = u.Unshared("AdmissionCheck", o.Checks)
	kept = append(kept, k...)
	o.Configs, k = u.Unshared("ProvisioningRequestConfig", o.Configs)
	return o, append(kept, k...)
}

// declaredSpecs is what m declares of its flavors, checks and configs, in the order a clash is looked for.
func declaredSpecs(m *kueueQueueModel) []kueueuse.Spec {
	var out []kueueuse.Spec
	for _, f := range m.Flavors {
		out = append(out, kueueuse.Spec{Kind: "ResourceFlavor", Name: f.Name.ValueString(), Words: kueueuse.FlavorWords(tfvalue.StringMap(f.NodeLabels))})
	}
	for _, ch := range m.checks() {
		out = append(out,
			kueueuse.Spec{Kind: "AdmissionCheck", Name: ch.p.AdmissionCheck.ValueString(), Words: wantCheck(ch.p)},
			kueueuse.Spec{Kind: "ProvisioningRequestConfig", Name: ch.p.Config.ValueString(), Words: wantConfig(ch.p)})
	}
	return out
}

func wantCheck(p *provisioningModel) string {
	return kueueuse.CheckWords(wellknown.ProvisioningRequestController, "ProvisioningRequestConfig", p.Config.ValueString())
}

func wantConfig(p *provisioningModel) string {
	return kueueuse.ConfigSpecWords(expandProvisioningRequestConfig(p).Spec)
}
