package kueuequeue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/wellknown"
)

type kueueQueueModel struct {
	ID                types.String      `tfsdk:"id"`
	Cluster           types.String      `tfsdk:"cluster"`
	Project           types.String      `tfsdk:"project"`
	Location          types.String      `tfsdk:"location"`
	Name              types.String      `tfsdk:"name"`
	NamespaceSelector types.Map         `tfsdk:"namespace_selector"`
	QueueingStrategy  types.String      `tfsdk:"queueing_strategy"`
	FlavorFungibility *fungibilityModel `tfsdk:"flavor_fungibility"`
	Cohort            types.String      `tfsdk:"cohort"`
	Preemption        *preemptionModel  `tfsdk:"preemption"`
	Flavors           []flavorModel     `tfsdk:"flavors"`
	LocalQueues       []localQueueModel `tfsdk:"local_queues"`
	AdmissionChecks   types.List        `tfsdk:"admission_checks"`
	ForceConflicts    types.Bool        `tfsdk:"force_conflicts"`
	StopPolicy        types.String      `tfsdk:"stop_policy"`
	Drift             types.List        `tfsdk:"drift"`
	Active            types.Bool        `tfsdk:"active"`
	ActiveMessage     types.String      `tfsdk:"active_message"`
	PendingWorkloads  types.Int64       `tfsdk:"pending_workloads"`
	AdmittedWorkloads types.Int64       `tfsdk:"admitted_workloads"`
	Timeouts          timeouts.Value    `tfsdk:"timeouts"`
}

type fungibilityModel struct {
	WhenCanBorrow  types.String `tfsdk:"when_can_borrow"`
	WhenCanPreempt types.String `tfsdk:"when_can_preempt"`
}

type preemptionModel struct {
	ReclaimWithinCohort types.String `tfsdk:"reclaim_within_cohort"`
	BorrowWithinCohort  types.String `tfsdk:"borrow_within_cohort"`
	WithinClusterQueue  types.String `tfsdk:"within_cluster_queue"`
}

type flavorModel struct {
	Name            types.String       `tfsdk:"name"`
	NodeLabels      types.Map          `tfsdk:"node_labels"`
	Quotas          types.Map          `tfsdk:"quotas"`
	BorrowingLimits types.Map          `tfsdk:"borrowing_limits"`
	LendingLimits   types.Map          `tfsdk:"lending_limits"`
	Provisioning    *provisioningModel `tfsdk:"provisioning"`
}

type provisioningModel struct {
	AdmissionCheck   types.String `tfsdk:"admission_check"`
	Config           types.String `tfsdk:"config"`
	Class            types.String `tfsdk:"class"`
	ManagedResources types.List   `tfsdk:"managed_resources"`
	Parameters       types.Map    `tfsdk:"parameters"`
	Retry            *retryModel  `tfsdk:"retry"`
}

type retryModel struct {
	BackoffLimitCount  types.Int64 `tfsdk:"backoff_limit_count"`
	BackoffBaseSeconds types.Int64 `tfsdk:"backoff_base_seconds"`
	BackoffMaxSeconds  types.Int64 `tfsdk:"backoff_max_seconds"`
}

type localQueueModel struct {
	Namespace  types.String `tfsdk:"namespace"`
	Name       types.String `tfsdk:"name"`
	StopPolicy types.String `tfsdk:"stop_policy"`
}

// checkModel is one AdmissionCheck with its config and the flavors it applies to.
type checkModel struct {
	p       *provisioningModel
	flavors []kueue.ResourceFlavorReference
}

// checks groups the flavors' provisioning blocks by AdmissionCheck, in flavor order.
func (m *kueueQueueModel) checks() []checkModel {
	var out []checkModel
	index := map[string]int{}
	for _, f := range m.Flavors {
		if f.Provisioning == nil {
			continue
		}
		name := f.Provisioning.AdmissionCheck.ValueString()
		i, ok := index[name]
		if !ok {
			i = len(out)
			index[name] = i
			out = append(out, checkModel{p: f.Provisioning})
		}
		out[i].flavors = append(out[i].flavors, kueue.ResourceFlavorReference(f.Name.ValueString()))
	}
	return out
}

// resourceOrder is the order of covered resources: cpu and memory first, as Kubernetes lists them, then the rest by
// name. It makes the provider's ClusterQueue the same as the tutorial's, whose order Kueue keeps.
func resourceOrder(quotas map[string]string) []string {
	rank := func(s string) int {
		switch s {
		case "cpu":
			return 0
		case "memory":
			return 1
		case "ephemeral-storage":
			return 2
		}
		return 3
	}
	names := make([]string, 0, len(quotas))
	for k := range quotas {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if rank(names[i]) != rank(names[j]) {
			return rank(names[i]) < rank(names[j])
		}
		return names[i] < names[j]
	})
	return names
}

func expandResourceFlavor(f flavorModel) *kueueac.ResourceFlavorApplyConfiguration {
	spec := kueueac.ResourceFlavorSpec()
	if labels := tfvalue.StringMap(f.NodeLabels); len(labels) > 0 {
		spec.WithNodeLabels(labels)
	}
	return kueueac.ResourceFlavor(f.Name.ValueString()).WithSpec(spec)
}

// expandClusterQueue builds the ClusterQueue; it fails, rather than panics, on a quantity that does not parse (plan-time
// validation refuses those, so this guards against a value that only became known at apply).
func expandClusterQueue(m *kueueQueueModel) (*kueueac.ClusterQueueApplyConfiguration, error) {
	group := kueueac.ResourceGroup()
	var covered []string
	if len(m.Flavors) > 0 { // none only while releaseTerminating holds every flavor out
		covered = resourceOrder(tfvalue.StringMap(m.Flavors[0].Quotas))
	}
	for _, r := range covered {
		group.WithCoveredResources(corev1.ResourceName(r))
	}
	for _, f := range m.Flavors {
		quotas, borrow, lend := tfvalue.StringMap(f.Quotas), tfvalue.StringMap(f.BorrowingLimits), tfvalue.StringMap(f.LendingLimits)
		fq := kueueac.FlavorQuotas().WithName(kueue.ResourceFlavorReference(f.Name.ValueString()))
		for _, r := range covered {
			q, err := parseQuantity(f.Name.ValueString(), r, quotas[r])
			if err != nil {
				return nil, err
			}
			rq := kueueac.ResourceQuota().WithName(corev1.ResourceName(r)).WithNominalQuota(q)
			if v, ok := borrow[r]; ok {
				if q, err = parseQuantity(f.Name.ValueString(), r, v); err != nil {
					return nil, err
				}
				rq.WithBorrowingLimit(q)
			}
			if v, ok := lend[r]; ok {
				if q, err = parseQuantity(f.Name.ValueString(), r, v); err != nil {
					return nil, err
				}
				rq.WithLendingLimit(q)
			}
			fq.WithResources(rq)
		}
		group.WithFlavors(fq)
	}
	selector := metav1ac.LabelSelector()
	if labels := tfvalue.StringMap(m.NamespaceSelector); len(labels) > 0 {
		selector.WithMatchLabels(labels)
	}
	spec := kueueac.ClusterQueueSpec().
		WithNamespaceSelector(selector).
		WithStopPolicy(kueue.StopPolicy(stopPolicyOr(m.StopPolicy))).
		WithQueueingStrategy(kueue.QueueingStrategy(m.QueueingStrategy.ValueString()))
	if len(m.Flavors) > 0 {
		spec.WithResourceGroups(group)
	}
	if f := m.FlavorFungibility; f != nil {
		spec.WithFlavorFungibility(kueueac.FlavorFungibility().
			WithWhenCanBorrow(kueue.FlavorFungibilityPolicy(f.WhenCanBorrow.ValueString())).
			WithWhenCanPreempt(kueue.FlavorFungibilityPolicy(f.WhenCanPreempt.ValueString())))
	}
	if c := m.Cohort.ValueString(); c != "" {
		spec.WithCohortName(kueue.CohortReference(c))
	}
	if p := m.Preemption; p != nil {
		pre := kueueac.ClusterQueuePreemption().
			WithReclaimWithinCohort(kueue.PreemptionPolicy(p.ReclaimWithinCohort.ValueString())).
			WithWithinClusterQueue(kueue.PreemptionPolicy(p.WithinClusterQueue.ValueString()))
		if b := p.BorrowWithinCohort.ValueString(); b != "" && b != string(kueue.BorrowWithinCohortPolicyNever) {
			pre.WithBorrowWithinCohort(kueueac.BorrowWithinCohort().WithPolicy(kueue.BorrowWithinCohortPolicy(b)))
		}
		spec.WithPreemption(pre)
	}
	if checks, all := m.checks(), tfvalue.StringList(m.AdmissionChecks); len(checks)+len(all) > 0 {
		strategy := kueueac.AdmissionChecksStrategy()
		for _, c := range checks {
			strategy.WithAdmissionChecks(kueueac.AdmissionCheckStrategyRule().
				WithName(kueue.AdmissionCheckReference(c.p.AdmissionCheck.ValueString())).
				WithOnFlavors(c.flavors...))
		}
		// A rule without flavors applies to every flavor (Kueue's AdmissionCheckStrategyRule.onFlavors).
		for _, name := range all {
			strategy.WithAdmissionChecks(kueueac.AdmissionCheckStrategyRule().WithName(kueue.AdmissionCheckReference(name)))
		}
		spec.WithAdmissionChecksStrategy(strategy)
	}
	return kueueac.ClusterQueue(m.Name.ValueString()).
		WithAnnotations(map[string]string{quotaSpellingAnnotation: m.quotaSpellings()}).
		WithSpec(spec), nil
}

func parseQuantity(flavor, res, s string) (resource.Quantity, error) {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return q, fmt.Errorf("flavor %s: %s = %q is not a Kubernetes quantity (examples: 2, 500m, 4Gi)", flavor, res, s)
	}
	return q, nil
}

func expandAdmissionCheck(p *provisioningModel) *kueueac.AdmissionCheckApplyConfiguration {
	return kueueac.AdmissionCheck(p.AdmissionCheck.ValueString()).WithSpec(kueueac.AdmissionCheckSpec().
		WithControllerName(wellknown.ProvisioningRequestController).
		WithParameters(kueueac.AdmissionCheckParametersReference().
			WithAPIGroup(kueue.GroupVersion.Group).WithKind("ProvisioningRequestConfig").WithName(p.Config.ValueString())))
}

func expandProvisioningRequestConfig(p *provisioningModel) *kueueac.ProvisioningRequestConfigApplyConfiguration {
	spec := kueueac.ProvisioningRequestConfigSpec().WithProvisioningClassName(p.Class.ValueString())
	for _, r := range tfvalue.StringList(p.ManagedResources) {
		spec.WithManagedResources(corev1.ResourceName(r))
	}
	if params := tfvalue.StringMap(p.Parameters); len(params) > 0 {
		typed := map[string]kueue.Parameter{}
		for k, v := range params {
			typed[k] = kueue.Parameter(v)
		}
		spec.WithParameters(typed)
	}
	if r := p.Retry; r != nil {
		spec.WithRetryStrategy(kueueac.ProvisioningRequestRetryStrategy().
			WithBackoffLimitCount(int32(r.BackoffLimitCount.ValueInt64())).
			WithBackoffBaseSeconds(int32(r.BackoffBaseSeconds.ValueInt64())).
			WithBackoffMaxSeconds(int32(r.BackoffMaxSeconds.ValueInt64())))
	}
	return kueueac.ProvisioningRequestConfig(p.Config.ValueString()).WithSpec(spec)
}

func expandLocalQueue(lq localQueueModel, clusterQueue string) *kueueac.LocalQueueApplyConfiguration {
	return kueueac.LocalQueue(lq.Name.ValueString(), lq.Namespace.ValueString()).
		WithSpec(kueueac.LocalQueueSpec().WithClusterQueue(kueue.ClusterQueueReference(clusterQueue)).
			WithStopPolicy(kueue.StopPolicy(stopPolicyOr(lq.StopPolicy))))
}

// quantityMap reads quotas back, keeping the spelling in prior wherever the value is the same: the API server hands
// back its canonical form (1000000000 becomes 1G), which is not a change.
func quantityMap(quotas []kueue.ResourceQuota, prior types.Map) types.Map {
	was := tfvalue.StringMap(prior)
	vals := map[string]attr.Value{}
	for _, q := range quotas {
		s := q.NominalQuota.String()
		if p, ok := was[string(q.Name)]; ok {
			if pq, err := resource.ParseQuantity(p); err == nil && pq.Cmp(q.NominalQuota) == 0 {
				s = p
			}
		}
		vals[string(q.Name)] = types.StringValue(s)
	}
	return types.MapValueMust(types.StringType, vals)
}

// kueueObjects are the live objects behind one queue resource.
type kueueObjects struct {
	cq      *kueue.ClusterQueue
	flavors map[string]*kueue.ResourceFlavor
	checks  map[string]*kueue.AdmissionCheck
	configs map[string]*kueue.ProvisioningRequestConfig
	queues  map[string]*kueue.LocalQueue // by namespace/name
	// terminating names the objects the ClusterQueue refers to that are being deleted ("Kind name").
	terminating []string
}

// flattenQueue sets m from the live objects. prior supplies quantity spellings and which local queues and node-label
// maps were configured. An object that is gone drops out of m, so the plan shows it being made again.
func flattenQueue(m *kueueQueueModel, o *kueueObjects, prior *kueueQueueModel) {
	spec := o.cq.Spec
	m.Name = types.StringValue(o.cq.Name)
	m.QueueingStrategy = types.StringValue(string(spec.QueueingStrategy))
	if spec.QueueingStrategy == "" {
		m.QueueingStrategy = types.StringValue(string(kueue.BestEffortFIFO))
	}
	sel := map[string]attr.Value{}
	if spec.NamespaceSelector != nil {
		for k, v := range spec.NamespaceSelector.MatchLabels {
			sel[k] = types.StringValue(v)
		}
	}
	m.NamespaceSelector = types.MapValueMust(types.StringType, sel)
	m.StopPolicy = types.StringValue(stopPolicyOf(spec.StopPolicy))
	if ff := spec.FlavorFungibility; ff != nil {
		m.FlavorFungibility = &fungibilityModel{WhenCanBorrow: types.StringValue(string(ff.WhenCanBorrow)), WhenCanPreempt: types.StringValue(string(ff.WhenCanPreempt))}
	}
	m.Cohort = types.StringNull()
	if spec.CohortName != "" {
		m.Cohort = types.StringValue(string(spec.CohortName))
	}
	m.Preemption = flattenPreemption(spec.Preemption)
	priorFlavors := map[string]flavorModel{}
	for _, f := range prior.Flavors {
		priorFlavors[f.Name.ValueString()] = f
	}
	recorded := recordedSpellings(o.cq)
	checkOf := map[string]string{}
	var all []attr.Value
	if s := spec.AdmissionChecksStrategy; s != nil {
		for _, rule := range s.AdmissionChecks {
			for _, f := range rule.OnFlavors {
				checkOf[string(f)] = string(rule.Name)
			}
			if len(rule.OnFlavors) == 0 {
				all = append(all, types.StringValue(string(rule.Name)))
			}
		}
	}
	m.AdmissionChecks = types.ListNull(types.StringType)
	if len(all) > 0 || (!prior.AdmissionChecks.IsNull() && !prior.AdmissionChecks.IsUnknown()) {
		m.AdmissionChecks = types.ListValueMust(types.StringType, all)
	}
	m.Flavors = nil
	for _, g := range spec.ResourceGroups {
		for _, fq := range g.Flavors {
			rf := o.flavors[string(fq.Name)]
			was := priorFlavors[string(fq.Name)]
			if was.Quotas.IsNull() || len(was.Quotas.Elements()) == 0 {
				was.Quotas = tfvalue.MapValue(recorded[string(fq.Name)])
			}
			// The quotas live in the ClusterQueue, so they are read even when the ResourceFlavor is gone: an import
			// of such a queue generates a configuration that validates.
			f := flavorModel{Name: types.StringValue(string(fq.Name)), Quotas: quantityMap(fq.Resources, was.Quotas)}
			f.BorrowingLimits, f.LendingLimits = limitMaps(fq.Resources, was)
			switch {
			case rf == nil && was.NodeLabels.IsNull():
				// Deleted out of band (or held terminating by Kueue): the flavor keeps its place in the list, and
				// its node labels read as what the configuration does not say (an empty map where it has none), so
				// the plan shows that one flavor being made again rather than every later flavor shifting up.
				f.NodeLabels = types.MapValueMust(types.StringType, map[string]attr.Value{})
			case rf == nil:
				f.NodeLabels = types.MapNull(types.StringType)
			default:
				f.NodeLabels = tfvalue.MapValue(rf.Spec.NodeLabels)
				if f.NodeLabels.IsNull() && !was.NodeLabels.IsNull() && len(was.NodeLabels.Elements()) == 0 {
					f.NodeLabels = was.NodeLabels
				}
			}
			f.Provisioning = flattenProvisioning(o, checkOf[string(fq.Name)])
			m.Flavors = append(m.Flavors, f)
		}
	}
	var lqs []localQueueModel
	for _, lq := range prior.LocalQueues {
		if live := o.queues[lq.Namespace.ValueString()+"/"+lq.Name.ValueString()]; live != nil && string(live.Spec.ClusterQueue) == o.cq.Name {
			lq.StopPolicy = types.StringValue(stopPolicyOf(live.Spec.StopPolicy))
			lqs = append(lqs, lq)
		}
	}
	if prior.LocalQueues == nil && len(o.queues) > 0 {
		// Import: every LocalQueue that points here was discovered.
		keys := make([]string, 0, len(o.queues))
		for k := range o.queues {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			lq := o.queues[k]
			lqs = append(lqs, localQueueModel{Namespace: types.StringValue(lq.Namespace), Name: types.StringValue(lq.Name),
				StopPolicy: types.StringValue(stopPolicyOf(lq.Spec.StopPolicy))})
		}
	}
	m.LocalQueues = lqs
	setQueueStatus(m, o.cq)
}

// limitMaps reads a flavor's borrowing and lending limits back, keeping prior's spelling where the value is the same.
func limitMaps(quotas []kueue.ResourceQuota, prior flavorModel) (types.Map, types.Map) {
	var borrow, lend []kueue.ResourceQuota
	for _, q := range quotas {
		if q.BorrowingLimit != nil {
			borrow = append(borrow, kueue.ResourceQuota{Name: q.Name, NominalQuota: *q.BorrowingLimit})
		}
		if q.LendingLimit != nil {
			lend = append(lend, kueue.ResourceQuota{Name: q.Name, NominalQuota: *q.LendingLimit})
		}
	}
	read := func(qs []kueue.ResourceQuota, was types.Map) types.Map {
		if len(qs) == 0 {
			if !was.IsNull() && len(was.Elements()) == 0 {
				return was
			}
			return types.MapNull(types.StringType)
		}
		return quantityMap(qs, was)
	}
	return read(borrow, prior.BorrowingLimits), read(lend, prior.LendingLimits)
}

// flattenPreemption reads spec.preemption; the API server defaults every policy to Never.
func flattenPreemption(p *kueue.ClusterQueuePreemption) *preemptionModel {
	policy := func(s string) types.String {
		if s == "" {
			s = string(kueue.PreemptionPolicyNever)
		}
		return types.StringValue(s)
	}
	if p == nil {
		return &preemptionModel{ReclaimWithinCohort: policy(""), BorrowWithinCohort: policy(""), WithinClusterQueue: policy("")}
	}
	borrow := ""
	if p.BorrowWithinCohort != nil {
		borrow = string(p.BorrowWithinCohort.Policy)
	}
	return &preemptionModel{ReclaimWithinCohort: policy(string(p.ReclaimWithinCohort)), BorrowWithinCohort: policy(borrow),
		WithinClusterQueue: policy(string(p.WithinClusterQueue))}
}

// flattenProvisioning reads a flavor's admission check and its config; nil when the flavor has no check or either
// object is gone or is not a provisioning-request check.
func flattenProvisioning(o *kueueObjects, check string) *provisioningModel {
	ac := o.checks[check]
	if check == "" || ac == nil || ac.Spec.ControllerName != wellknown.ProvisioningRequestController || ac.Spec.Parameters == nil {
		return nil
	}
	prc := o.configs[ac.Spec.Parameters.Name]
	if prc == nil {
		return nil
	}
	p := &provisioningModel{
		AdmissionCheck: types.StringValue(check),
		Config:         types.StringValue(prc.Name),
		Class:          types.StringValue(prc.Spec.ProvisioningClassName),
	}
	var managed []attr.Value
	for _, r := range prc.Spec.ManagedResources {
		managed = append(managed, types.StringValue(string(r)))
	}
	p.ManagedResources = types.ListValueMust(types.StringType, managed)
	params := map[string]string{}
	for k, v := range prc.Spec.Parameters {
		params[k] = string(v)
	}
	p.Parameters = tfvalue.MapValue(params)
	p.Retry = &retryModel{BackoffLimitCount: types.Int64Value(3), BackoffBaseSeconds: types.Int64Value(60), BackoffMaxSeconds: types.Int64Value(1800)}
	if rs := prc.Spec.RetryStrategy; rs != nil {
		set := func(dst *types.Int64, v *int32) {
			if v != nil {
				*dst = types.Int64Value(int64(*v))
			}
		}
		set(&p.Retry.BackoffLimitCount, rs.BackoffLimitCount)
		set(&p.Retry.BackoffBaseSeconds, rs.BackoffBaseSeconds)
		set(&p.Retry.BackoffMaxSeconds, rs.BackoffMaxSeconds)
	}
	return p
}

func setQueueStatus(m *kueueQueueModel, cq *kueue.ClusterQueue) {
	m.Active, m.ActiveMessage = types.BoolValue(false), types.StringValue("")
	for _, c := range cq.Status.Conditions {
		if c.Type == kueue.ClusterQueueActive {
			m.Active = types.BoolValue(c.Status == "True")
			m.ActiveMessage = types.StringValue(c.Message)
		}
	}
	m.PendingWorkloads = types.Int64Value(int64(cq.Status.PendingWorkloads))
	m.AdmittedWorkloads = types.Int64Value(int64(cq.Status.AdmittedWorkloads))
}

// The API server keeps quantities in canonical form (1000000000 becomes 1G), so on import the spelling the user
// wrote is lost unless someone kept it. kubectl keeps it in its last-applied-configuration annotation; the provider
// keeps its own in quotaSpellingAnnotation. Either lets an import plan no change.
const quotaSpellingAnnotation = "dwsfallback/quota-spelling"

// quotaSpellings is flavor -> resource -> quantity as written.
type quotaSpellings map[string]map[string]string

func (m *kueueQueueModel) quotaSpellings() string {
	out := quotaSpellings{}
	for _, f := range m.Flavors {
		out[f.Name.ValueString()] = tfvalue.StringMap(f.Quotas)
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
	s, ok := cq.Annotations[corev1.LastAppliedConfigAnnotation]
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

// removedObjects is what was applied before (prior state and the private record) and plan no longer names.
func removedObjects(before queueObjectNames, plan *kueueQueueModel) queueObjectNames {
	keep := plan.objectNames()
	return queueObjectNames{
		Flavors:     subtract(before.Flavors, keep.Flavors),
		Checks:      subtract(before.Checks, keep.Checks),
		Configs:     subtract(before.Configs, keep.Configs),
		LocalQueues: subtract(before.LocalQueues, keep.LocalQueues),
	}
}

func subtract(a, b []string) []string {
	drop := map[string]bool{}
	for _, s := range b {
		drop[s] = true
	}
	var out []string
	for _, s := range a {
		if !drop[s] {
			out = append(out, s)
		}
	}
	return out
}

// stopPolicyOr is the stop policy to apply: Kueue's default, None, unless one is set.
func stopPolicyOr(v types.String) string {
	if v.IsNull() || v.IsUnknown() || v.ValueString() == "" {
		return string(kueue.None)
	}
	return v.ValueString()
}

// stopPolicyOf reads a live stop policy; Kueue's CRD defaults it, so a missing one is None.
func stopPolicyOf(p *kueue.StopPolicy) string {
	if p == nil || *p == "" {
		return string(kueue.None)
	}
	return string(*p)
}

// live lists the objects read, under the keys their baselines are kept by.
func (o *kueueObjects) live() []tfdrift.Object {
	gv := kueue.GroupVersion
	var out []tfdrift.Object
	if o.cq != nil {
		out = append(out, tfdrift.Object{Key: "ClusterQueue/" + o.cq.Name, GVK: gv.WithKind("ClusterQueue"), Obj: o.cq})
	}
	for _, n := range slices.Sorted(maps.Keys(o.flavors)) {
		out = append(out, tfdrift.Object{Key: "ResourceFlavor/" + n, GVK: gv.WithKind("ResourceFlavor"), Obj: o.flavors[n]})
	}
	for _, n := range slices.Sorted(maps.Keys(o.checks)) {
		out = append(out, tfdrift.Object{Key: "AdmissionCheck/" + n, GVK: gv.WithKind("AdmissionCheck"), Obj: o.checks[n]})
	}
	for _, n := range slices.Sorted(maps.Keys(o.configs)) {
		out = append(out, tfdrift.Object{Key: "ProvisioningRequestConfig/" + n, GVK: gv.WithKind("ProvisioningRequestConfig"), Obj: o.configs[n]})
	}
	for _, n := range slices.Sorted(maps.Keys(o.queues)) {
		out = append(out, tfdrift.Object{Key: "LocalQueue/" + n, GVK: gv.WithKind("LocalQueue"), Obj: o.queues[n]})
	}
	return out
}
