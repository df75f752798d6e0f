package provider

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

// Errors from Kubernetes, for every Kubernetes-side resource: what refused, and for the common causes, the fix.

// kubeError names the object and, for the common causes, the fix.
func kubeError(c *kube.Clients, kind, name string, err error) error {
	if err == nil {
		return nil
	}
	if kube.WebhookDenied(err) {
		return fmt.Errorf("%s %s on %s was refused by an admission webhook, which found it invalid: %w", kind, name, c.Host, err)
	}
	if hint := kube.CredentialsHint(c.Host, err); hint != nil {
		return fmt.Errorf("%s %s: %w", kind, name, hint)
	}
	switch {
	case apierrors.IsConflict(err) && strings.Contains(err.Error(), "conflict"):
		return fmt.Errorf("%s %s on %s: fields are managed by another field manager with other values: %w; "+
			"set force_conflicts = true (the default) to take ownership of them", kind, name, c.Host, err)
	case apierrors.IsNotFound(err) && strings.Contains(err.Error(), "the server could not find the requested resource"):
		return fmt.Errorf("%s %s on %s: the cluster does not serve Kueue's kueue.x-k8s.io/v1beta2 API; install Kueue v0.15 "+
			"or later (dwsfallback_kueue_install, or the tutorial's helm install): %w", kind, name, c.Host, err)
	case kube.WebhookNotReady(err):
		return fmt.Errorf("%s %s on %s: Kueue's webhook is not answering (Kueue not running, or just installed): %w", kind, name, c.Host, err)
	}
	return fmt.Errorf("%s %s on %s: %w", kind, name, c.Host, err)
}
