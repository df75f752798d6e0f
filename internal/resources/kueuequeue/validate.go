package kueuequeue

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

// validateQueue checks what Kueue would refuse, or accept and then never admit, on the values known so far (unknown
// ones read as null and skip their checks).
func validateQueue(m *kueueQueueModel, u tfvalue.Unknowns, diags *diag.Diagnostics) {
	known := func(v interface{ IsNull() bool }) bool { return !v.IsNull() }
	seen := map[string]bool{}
	var want []string
	checks := map[string]*provisioningModel{}
	for i, f := range m.Flavors {
		p := path.Root("flavors").AtListIndex(i)
		if n := f.Name.ValueString(); known(f.Name) {
			if seen[n] {
				diags.AddAttributeError(p.AtName("name"), "Duplicate flavor", fmt.Sprintf("Flavor %q is listed twice; each flavor appears once, in fallback order.", n))
			}
			seen[n] = true
		}
		quotas := tfvalue.StringMap(f.Quotas)
		if known(f.Quotas) {
			got := slices.Sorted(maps.Keys(quotas))
			if want == nil {
				want = got
			} else if strings.Join(got, ",") != strings.Join(want, ",") {
				diags.AddAttributeError(p.AtName("quotas"), "Flavors quota different resources",
					fmt.Sprintf("Every flavor of a ClusterQueue must quota the same resources (Kueue's covered resources): the first flavor quotas [%s], flavor %q quotas [%s]. Give each the same keys, with 0 where it has none.",
						strings.Join(want, ", "), f.Name.ValueString(), strings.Join(got, ", ")))
			}
		}
		for _, lim := range []struct {
			attr string
			v    types.Map
		}{{"borrowing_limits", f.BorrowingLimits}, {"lending_limits", f.LendingLimits}} {
			if len(lim.v.Elements()) == 0 {
				continue
			}
			if m.Cohort.IsNull() && !u.At("cohort") {
				diags.AddAttributeError(p.AtName(lim.attr), "Limits without a cohort",
					fmt.Sprintf("%s only mean something between ClusterQueues of one cohort; set cohort, or drop them (Kueue refuses them otherwise).", lim.attr))
			}
			for k := range lim.v.Elements() {
				if _, ok := quotas[k]; known(f.Quotas) && !ok {
					diags.AddAttributeError(p.AtName(lim.attr).AtMapKey(k), "Limit on a resource without quota",
						fmt.Sprintf("Flavor %q has no quota for %q, so it cannot have a %s entry for it.", f.Name.ValueString(), k, strings.TrimSuffix(lim.attr, "s")))
				}
			}
		}
		if pr := f.Provisioning; pr != nil && known(pr.AdmissionCheck) {
			// A null side is a default not applied yet (at validate) or a value not known yet: compared again at plan.
			differ := func(a, b types.String) bool { return known(a) && known(b) && !a.Equal(b) }
			if other, ok := checks[pr.AdmissionCheck.ValueString()]; ok && (differ(other.Config, pr.Config) || differ(other.Class, pr.Class)) {
				diags.AddAttributeError(p.AtName("provisioning"), "One admission check, two configurations",
					fmt.Sprintf("Admission check %q is used with different config or class on two flavors; give the second its own admission_check name.", pr.AdmissionCheck.ValueString()))
			}
			checks[pr.AdmissionCheck.ValueString()] = pr
		}
	}
	validateTPUFlavors(m, u, diags)
	if known(m.AdmissionChecks) {
		for i, e := range m.AdmissionChecks.Elements() {
			if v, ok := e.(types.String); ok && known(v) && checks[v.ValueString()] != nil {
				diags.AddAttributeError(path.Root("admission_checks").AtListIndex(i), "Admission check listed twice",
					fmt.Sprintf("%q is a flavor's provisioning admission_check, which applies to that flavor only; admission_checks apply to every flavor. Use another name for one of them.", v.ValueString()))
			}
		}
	}
	queues := map[string]bool{}
	for i, lq := range m.LocalQueues {
		if !known(lq.Name) || !known(lq.Namespace) {
			continue
		}
		k := lq.Namespace.ValueString() + "/" + lq.Name.ValueString()
		if queues[k] {
			diags.AddAttributeError(path.Root("local_queues").AtListIndex(i), "Duplicate local queue", fmt.Sprintf("Local queue %s is listed twice.", k))
		}
		queues[k] = true
	}
}

// validateTPUFlavors refuses accelerator flavors that Kueue cannot tell apart. Kueue matches a job to a flavor only
// on the label keys the flavor lists: a flavor bound by its pool label alone matches a job of any TPU generation or
// GPU type, so with two pool pairs in one queue a v5e job can be admitted on the v6e pool, whose nodes it can never
// run on. When one flavor of an accelerator says which accelerator (or topology) it has, every one must.
func validateTPUFlavors(m *kueueQueueModel, u tfvalue.Unknowns, diags *diag.Diagnostics) {
	for _, a := range []struct {
		noun     string
		resource string
		keys     []string
		labels   string
	}{
		{"TPU", wellknown.TPUResource, []string{wellknown.TPUAcceleratorLabel, wellknown.TPUTopologyLabel}, "pool, accelerator and topology labels"},
		{"GPU", wellknown.GPUResource, []string{wellknown.GPUAcceleratorLabel}, "pool and GPU type labels"},
	} {
		validateAcceleratorFlavors(m, u, a.noun, a.resource, a.keys, a.labels, diags)
	}
}

func validateAcceleratorFlavors(m *kueueQueueModel, u tfvalue.Unknowns, noun, res string, keys []string, carried string, diags *diag.Diagnostics) {
	type accFlavor struct {
		i      int
		name   string
		labels map[string]string
	}
	var acc []accFlavor
	for i, f := range m.Flavors {
		q, ok := tfvalue.StringMap(f.Quotas)[res]
		if !ok || u.At("flavors", i, "node_labels") {
			continue // not known yet: checked again at plan and apply
		}
		if v, err := resource.ParseQuantity(q); err != nil || v.IsZero() {
			continue
		}
		acc = append(acc, accFlavor{i: i, name: f.Name.ValueString(), labels: tfvalue.StringMap(f.NodeLabels)})
	}
	for _, key := range keys {
		var with *accFlavor
		for i := range acc {
			if _, ok := acc[i].labels[key]; ok {
				with = &acc[i]
				break
			}
		}
		if with == nil {
			continue
		}
		for _, f := range acc {
			if _, ok := f.labels[key]; ok {
				continue
			}
			diags.AddAttributeError(path.Root("flavors").AtListIndex(f.i).AtName("node_labels"), noun+" flavors Kueue cannot tell apart",
				fmt.Sprintf("Flavor %q quotas %ss but its node_labels lack %s, which flavor %q has (%s). Kueue matches jobs to flavors only on "+
					"the labels a flavor lists, so jobs of any %s would be admitted on %q and never scheduled. Wire node_labels from the pool "+
					"pair (on_demand.node_labels, flex_start.node_labels), which carry the %s.",
					f.name, noun, key, with.name, key+"="+with.labels[key], noun, f.name, carried))
		}
	}
}
