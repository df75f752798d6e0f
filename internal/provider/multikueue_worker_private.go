package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/multikueue"
)

// privateKubeconfig holds the fingerprint of the kubeconfig written from kubeconfig_wo, so that a refresh sees the
// manager's Secret changed by hand although the kubeconfig itself is never stored.
const privateKubeconfig = "kubeconfig_fingerprint"

// recordKubeconfig stores the fingerprint of a brought kubeconfig, or drops a stale one when the provider made the
// kubeconfig (given is "").
func recordKubeconfig(ctx context.Context, p privateState, given string, diags *diag.Diagnostics) {
	if given == "" {
		diags.Append(p.SetKey(ctx, privateKubeconfig, nil)...)
		return
	}
	f, err := multikueue.NewFingerprint([]byte(given))
	if err != nil {
		diags.AddWarning("kubeconfig_wo", "A change of the manager's Secret by hand will not be seen: "+err.Error())
		return
	}
	b, _ := json.Marshal(f)
	diags.Append(p.SetKey(ctx, privateKubeconfig, b)...)
}

// writtenKubeconfig is the fingerprint recordKubeconfig stored; nil when there is none (a state from before it, an
// import).
func writtenKubeconfig(ctx context.Context, p privateState, diags *diag.Diagnostics) *multikueue.Fingerprint {
	b, d := p.GetKey(ctx, privateKubeconfig)
	diags.Append(d...)
	var f multikueue.Fingerprint
	if len(b) == 0 || json.Unmarshal(b, &f) != nil {
		return nil
	}
	return &f
}
