package kube

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Explain names the object a Kubernetes refusal concerns and, for the common causes, the fix: what every
// Kubernetes-side resource reports when the API server says no.
func (c *Clients) Explain(kind, name string, err error) error {
	if err == nil {
		return nil
	}
	if WebhookDenied(err) {
		return fmt.Errorf("%s %s on %s was refused by an admission webhook, which found it invalid: %w", kind, name, c.Host, err)
	}
	if hint := CredentialsHint(c.Host, err); hint != nil {
		return fmt.Errorf("%s %s: %w", kind, name, hint)
	}
	switch {
	case apierrors.IsConflict(err) && strings.Contains(err.Error(), "conflict"):
		return fmt.Errorf("%s %s on %s: fields are managed by another field manager with other values: %w; "+
			"set force_conflicts = true (the default) to take ownership of them", kind, name, c.Host, err)
	case APIMissing(err):
		return fmt.Errorf("%s %s on %s: the cluster does not serve Kueue's kueue.x-k8s.io/v1beta2 API; install Kueue v0.15 "+
			"or later (dwsfallback_kueue_install, or the tutorial's helm install): %w", kind, name, c.Host, err)
	case WebhookNotReady(err):
		return fmt.Errorf("%s %s on %s: Kueue's webhook is not answering (Kueue not running, or just installed): %w", kind, name, c.Host, err)
	}
	return fmt.Errorf("%s %s on %s: %w", kind, name, c.Host, err)
}

// APIMissing reports a 404 for a whole API, not for one object: the cluster does not serve the kind at all (Kueue or
// KubeRay not installed).
func APIMissing(err error) bool {
	return apierrors.IsNotFound(err) && strings.Contains(err.Error(), "the server could not find the requested resource")
}
