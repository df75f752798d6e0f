package kueueuse

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

// Spec is an object a queue declares, as "Kind/name" and its spec in the words of FlavorWords, CheckWords and
// ConfigSpecWords.
type Spec struct {
	Kind, Name, Words string
}

// RefuseRedeclared fails when an object of declared already exists with another spec and another ClusterQueue uses
// it: applying over it would silently change that queue too. A live spec that is still what this queue (ClusterQueue
// self) last applied (mine, by "Kind/name"; nil on create) is no clash: every declarer of a shared object changes it in
// turn, and the first to apply must be let through (the others then find it as they declare it).
func RefuseRedeclared(ctx context.Context, c *kube.Clients, self string, declared []Spec, mine map[string]string, u Users) error {
	api := c.Kueue.KueueV1beta2()
	for _, d := range declared {
		if len(u.Of(d.Kind, d.Name)) == 0 {
			continue
		}
		var have string
		switch d.Kind {
		case "ResourceFlavor":
			live, err := api.ResourceFlavors().Get(ctx, d.Name, metav1.GetOptions{})
			if err != nil {
				continue // gone or unreadable: the apply reports it
			}
			have = FlavorWords(live.Spec.NodeLabels)
		case "AdmissionCheck":
			live, err := api.AdmissionChecks().Get(ctx, d.Name, metav1.GetOptions{})
			if err != nil {
				continue
			}
			have = DescribeCheck(live)
		case "ProvisioningRequestConfig":
			live, err := api.ProvisioningRequestConfigs().Get(ctx, d.Name, metav1.GetOptions{})
			if err != nil {
				continue
			}
			have = DescribeConfig(live)
		default:
			continue
		}
		if have == d.Words || mine[d.Kind+"/"+d.Name] == have {
			continue
		}
		return fmt.Errorf("%s %s is declared twice with different specs: ClusterQueue %s uses it with %s, and this queue (ClusterQueue %s) "+
			"declares %s. Shared objects must be declared alike everywhere: give this queue's its own name, or make both declarations equal "+
			"(if the live spec was changed by hand, apply the other queue's configuration first)",
			d.Kind, d.Name, strings.Join(u.Of(d.Kind, d.Name), ", "), have, self, d.Words)
	}
	return nil
}

// FlavorWords says what a ResourceFlavor's spec is: its node labels.
func FlavorWords(nodeLabels map[string]string) string {
	return "node labels " + LabelString(nodeLabels)
}

// CheckWords and DescribeCheck put a declared and a live AdmissionCheck in the same words.
func CheckWords(controller, paramsKind, paramsName string) string {
	if paramsKind == "" {
		return "controller " + controller
	}
	return fmt.Sprintf("controller %s and %s %s", controller, paramsKind, paramsName)
}

func DescribeCheck(ac *kueue.AdmissionCheck) string {
	if p := ac.Spec.Parameters; p != nil {
		return CheckWords(ac.Spec.ControllerName, p.Kind, p.Name)
	}
	return CheckWords(ac.Spec.ControllerName, "", "")
}

// ConfigSpecWords and DescribeConfig do the same for ProvisioningRequestConfigs, declared and live: class, managed
// resources, parameters and retry strategy, so that a second declaration differing in any of them is seen.
func ConfigSpecWords(prc *kueueac.ProvisioningRequestConfigSpecApplyConfiguration) string {
	var rs [3]*int32
	if r := prc.RetryStrategy; r != nil {
		rs = [3]*int32{r.BackoffLimitCount, r.BackoffBaseSeconds, r.BackoffMaxSeconds}
	}
	return configWords(ptrString(prc.ProvisioningClassName), prc.ManagedResources, prc.Parameters, rs)
}

func DescribeConfig(prc *kueue.ProvisioningRequestConfig) string {
	var rs [3]*int32
	if r := prc.Spec.RetryStrategy; r != nil {
		rs = [3]*int32{r.BackoffLimitCount, r.BackoffBaseSeconds, r.BackoffMaxSeconds}
	}
	return configWords(prc.Spec.ProvisioningClassName, prc.Spec.ManagedResources, prc.Spec.Parameters, rs)
}

// configWords takes the retry strategy's limit, base and max; Kueue's defaults (3, 60 s, 1800 s) stand for nil.
func configWords(class string, managedResources []corev1.ResourceName, parameters map[string]kueue.Parameter, rs [3]*int32) string {
	managed := make([]string, 0, len(managedResources))
	for _, r := range managedResources {
		managed = append(managed, string(r))
	}
	sort.Strings(managed) // a set to Kueue
	params := make(map[string]string, len(parameters))
	for k, v := range parameters {
		params[k] = string(v)
	}
	retry := [3]int32{3, 60, 1800}
	for i, v := range rs {
		if v != nil {
			retry[i] = *v
		}
	}
	return fmt.Sprintf("class %s for %v, parameters %s, retries %d (%d s to %d s)", class, managed, LabelString(params), retry[0], retry[1], retry[2])
}

func ptrString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// LabelString is a map of labels as {k=v, ...}, sorted by key.
func LabelString(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
