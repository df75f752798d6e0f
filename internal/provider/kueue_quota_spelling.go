package provider

import (
	"bytes"
	"encoding/json"
	"fmt"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// The API server keeps quantities in canonical form (1000000000 becomes 1G), so on import the spelling the user
// wrote is lost unless someone kept it. kubectl keeps it in its last-applied-configuration annotation; the provider
// keeps its own in quotaSpellingAnnotation. Either lets an import plan no change.
const (
	quotaSpellingAnnotation = "dwsfallback/quota-spelling"
	kubectlLastApplied      = "kubectl.kubernetes.io/last-applied-configuration"
)

// quotaSpellings is flavor -> resource -> quantity as written.
type quotaSpellings map[string]map[string]string

func (m *kueueQueueModel) quotaSpellings() string {
	out := quotaSpellings{}
	for _, f := range m.Flavors {
		out[f.Name.ValueString()] = stringMap(f.Quotas)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// recordedSpellings reads the spellings kept on a ClusterQueue, the provider's own first, then kubectl's.
func recordedSpellings(cq *kueue.ClusterQueue) quotaSpellings {
	if s, ok := cq.Annotations[quotaSpellingAnnotation]; ok {
		var out quotaSpellings
		if json.Unmarshal([]byte(s), &out) == nil {
			return out
		}
	}
	s, ok := cq.Annotations[kubectlLastApplied]
	if !ok {
		return nil
	}
	var last struct {
		Spec struct {
			ResourceGroups []struct {
				Flavors []struct {
					Name      string `json:"name"`
					Resources []struct {
						Name         string `json:"name"`
						NominalQuota any    `json:"nominalQuota"` // a JSON number or a string ("20Gi")
					} `json:"resources"`
				} `json:"flavors"`
			} `json:"resourceGroups"`
		} `json:"spec"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	if dec.Decode(&last) != nil {
		return nil
	}
	out := quotaSpellings{}
	for _, g := range last.Spec.ResourceGroups {
		for _, f := range g.Flavors {
			out[f.Name] = map[string]string{}
			for _, r := range f.Resources {
				out[f.Name][r.Name] = fmt.Sprint(r.NominalQuota)
			}
		}
	}
	return out
}
