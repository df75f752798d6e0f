package multikueue

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	mk "github.com/dwsfallback/terraform-provider-dwsfallback/internal/multikueue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// privateKubeconfig holds the fingerprint of the kubeconfig written from kubeconfig_wo, so that a refresh sees the
// manager's Secret changed by hand although the kubeconfig itself is never stored.
const privateKubeconfig = "kubeconfig_fingerprint"

// recordKubeconfig stores the fingerprint of a brought kubeconfig, or drops a stale one when the provider made the
// kubeconfig (given is "").
func recordKubeconfig(ctx context.Context, p tfvalue.PrivateState, given string, diags *diag.Diagnostics) {
	if given == "" {
		tfvalue.WritePrivate(ctx, p, privateKubeconfig, nil, diags)
		return
	}
	f, err := mk.NewFingerprint([]byte(given))
	if err != nil {
		diags.AddWarning("kubeconfig_wo", "A change of the manager's Secret by hand will not be seen: "+err.Error())
		return
	}
	tfvalue.WritePrivate(ctx, p, privateKubeconfig, f, diags)
}

// writtenKubeconfig is the fingerprint recordKubeconfig stored; nil when there is none (a state from before it, an
// import).
func writtenKubeconfig(ctx context.Context, p tfvalue.PrivateState, diags *diag.Diagnostics) *mk.Fingerprint {
	var f mk.Fingerprint
	if !tfvalue.ReadPrivate(ctx, p, privateKubeconfig, &f, diags) {
		return nil
	}
	return &f
}
