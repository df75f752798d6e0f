package poolpair

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
)

func TestWarnRecreated(t *testing.T) {
	cases := []struct {
		name     string
		drift    []string
		replaced map[string]bool
		want     []string
	}{
		{"none", nil, nil, nil},
		{"in place only", []string{"NodePool/od .autoscaling.maxNodeCount", "NodePool/od .config.labels", "NodePool/dws .management.autoRepair"}, nil, nil},
		{"one pool recreated", []string{"NodePool/od .autoscaling.maxNodeCount", "NodePool/dws .config.oauthScopes", "NodePool/dws .config.flexStart"},
			nil, []string{"Node pool dws will be replaced"}},
		{"both, in drift's order", []string{"NodePool/dws .config.oauthScopes", "NodePool/od .config.reservationAffinity.consumeReservationType"},
			nil, []string{"Node pool dws will be replaced", "Node pool od will be replaced"}},
		{"not a pool", []string{"ClusterQueue/q .spec.stopPolicy"}, nil, nil},
		{"GPUs of plan B", []string{"NodePool/dws .config.accelerators"}, nil, []string{"Node pool dws will be replaced"}},
		{"already warned as replaced", []string{"NodePool/dws .config.flexStart"}, map[string]bool{"dws": true}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var diags diag.Diagnostics
			warnRecreated(tfdrift.List(c.drift), c.replaced, &diags)
			var got []string
			for _, d := range diags {
				got = append(got, d.Summary())
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
