// Package kueueuse answers who uses Kueue objects: which other ClusterQueues share a ResourceFlavor, an AdmissionCheck
// or a ProvisioningRequestConfig, and which Workloads hold a ClusterQueue's quota. It puts declared and live objects in
// the same words, to compare and to show. It knows nothing of Terraform.
package kueueuse

import (
	"context"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

// Kueue's ResourceFlavors, AdmissionChecks and ProvisioningRequestConfigs are cluster-scoped and meant to be shared:
// teams' ClusterQueues in one cohort name the same flavors and the same DWS check, from one Terraform state or from
// several. A queue resource therefore declares them, and the live ClusterQueues say who uses them: nothing that
// another ClusterQueue still names is deleted, and a second declaration with another spec is refused, naming both.

// Users maps "Kind/name" of a flavor, check or config to the other ClusterQueues (than self) that use it.
type Users map[string][]string

func (u Users) Of(kind, name string) []string { return u[kind+"/"+name] }

// FindUsers reads which other ClusterQueues use which flavors, checks and configs.
func FindUsers(ctx context.Context, c *kube.Clients, self string) (Users, error) {
	api := c.Kueue.KueueV1beta2()
	var cqs *kueue.ClusterQueueList
	err := kube.Retry(ctx, func() (err error) { cqs, err = api.ClusterQueues().List(ctx, metav1.ListOptions{}); return err })
	if err != nil {
		return nil, c.Explain("ClusterQueue", "*", err)
	}
	u := Users{}
	add := func(key, cq string) {
		if !slices.Contains(u[key], cq) {
			u[key] = append(u[key], cq)
		}
	}
	checkNames := map[string]bool{}
	for _, cq := range cqs.Items {
		// A ClusterQueue being deleted that nothing holds is gone in a moment: counting it would make queues
		// destroyed together each keep the shared objects for the other. One that workloads hold stays, and with it
		// Kueue's hold on its flavors and checks, so it still counts.
		if cq.Name == self {
			continue
		}
		if cq.DeletionTimestamp != nil {
			if hs, err := FindHolders(ctx, c, cq.Name); err == nil && len(hs) == 0 {
				continue
			}
		}
		for _, g := range cq.Spec.ResourceGroups {
			for _, f := range g.Flavors {
				add("ResourceFlavor/"+string(f.Name), cq.Name)
			}
		}
		if s := cq.Spec.AdmissionChecksStrategy; s != nil {
			for _, r := range s.AdmissionChecks {
				add("AdmissionCheck/"+string(r.Name), cq.Name)
				checkNames[string(r.Name)] = true
			}
		}
	}
	if len(checkNames) == 0 {
		return u, nil
	}
	var acs *kueue.AdmissionCheckList
	err = kube.Retry(ctx, func() (err error) { acs, err = api.AdmissionChecks().List(ctx, metav1.ListOptions{}); return err })
	if err != nil {
		return nil, c.Explain("AdmissionCheck", "*", err)
	}
	for _, ac := range acs.Items {
		if p := ac.Spec.Parameters; checkNames[ac.Name] && p != nil && p.Kind == "ProvisioningRequestConfig" {
			for _, cq := range u.Of("AdmissionCheck", ac.Name) {
				add("ProvisioningRequestConfig/"+p.Name, cq)
			}
		}
	}
	return u, nil
}

// Unshared drops from names the objects of this kind that other ClusterQueues use, and says which were kept and why.
func (u Users) Unshared(kind string, names []string) (out, kept []string) {
	for _, n := range names {
		if others := u.Of(kind, n); len(others) > 0 {
			kept = append(kept, fmt.Sprintf("%s %s (used by ClusterQueue %s)", kind, n, strings.Join(others, ", ")))
			continue
		}
		out = append(out, n)
	}
	return out, kept
}
