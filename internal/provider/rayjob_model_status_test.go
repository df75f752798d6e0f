package provider

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

func TestFlattenJobStatus(t *testing.T) {
	admitted := &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Name: "rayjob-x-1"},
		Status: kueue.WorkloadStatus{
			Conditions: []metav1.Condition{{Type: kueue.WorkloadAdmitted, Status: metav1.ConditionTrue}},
			Admission: &kueue.Admission{PodSetAssignments: []kueue.PodSetAssignment{
				{Name: "head", Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{"cpu": "default-cpu"}},
				{Name: "tpu-group", Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{"cpu": "dws", "google.com/tpu": "dws"}},
			}},
			AdmissionChecks: []kueue.AdmissionCheckState{{Name: "dws-prov", State: kueue.CheckStateReady}},
		},
	}
	pending := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Name: "rayjob-x-2"}}
	cases := []struct {
		name              string
		job               *rayv1.RayJob
		wl                *kueue.Workload
		wantAdmitted      bool
		wantFlavor, wantM string
		wantChecks        map[string]attr.Value
	}{
		{name: "no status, no workload yet", job: &rayv1.RayJob{}, wantChecks: map[string]attr.Value{}},
		{name: "workload queued", job: &rayv1.RayJob{}, wl: pending, wantM: "queued (no QuotaReserved condition yet)", wantChecks: map[string]attr.Value{}},
		{name: "admitted on dws", job: &rayv1.RayJob{Status: rayv1.RayJobStatus{JobDeploymentStatus: rayv1.JobDeploymentStatusInitializing}}, wl: admitted,
			wantAdmitted: true, wantFlavor: "dws", wantM: "admitted on dws; KubeRay deployment Initializing",
			wantChecks: map[string]attr.Value{"dws-prov": types.StringValue("Ready")}},
	}
	for _, tc := range cases {
		var m rayJobStatusModel
		flattenJobStatus(&m, jobProgress{job: tc.job, wl: tc.wl})
		if m.Admitted.ValueBool() != tc.wantAdmitted || m.AdmittedFlavor.ValueString() != tc.wantFlavor || m.Message.ValueString() != tc.wantM {
			t.Errorf("%s: admitted=%v flavor=%q message=%q; want %v %q %q", tc.name, m.Admitted.ValueBool(), m.AdmittedFlavor.ValueString(), m.Message.ValueString(), tc.wantAdmitted, tc.wantFlavor, tc.wantM)
		}
		if diff := cmp.Diff(types.MapValueMust(types.StringType, tc.wantChecks), m.AdmissionChecks); diff != "" {
			t.Errorf("%s: admission checks (-want +got):\n%s", tc.name, diff)
		}
		if m.StartTime.IsNull() || m.JobStatus.IsNull() {
			t.Errorf("%s: status attributes must be known, got null", tc.name)
		}
	}
}

// Read skips writing state when equal says nothing changed: every status attribute must be compared.
func TestStatusEqualSeesEveryAttribute(t *testing.T) {
	var m rayJobStatusModel
	setUnknownStatus(&m)
	v := reflect.ValueOf(&m).Elem()
	for i := 0; i < v.NumField(); i++ {
		o := m
		f := reflect.ValueOf(&o).Elem().Field(i)
		switch f.Interface().(type) {
		case types.String:
			f.Set(reflect.ValueOf(types.StringValue("changed")))
		case types.Bool:
			f.Set(reflect.ValueOf(types.BoolValue(true)))
		case types.Map:
			f.Set(reflect.ValueOf(types.MapNull(types.StringType)))
		default:
			t.Fatalf("field %s has a type this test does not change", v.Type().Field(i).Name)
		}
		if m.equal(o) {
			t.Errorf("equal misses a change of %s", v.Type().Field(i).Name)
		}
	}
}
