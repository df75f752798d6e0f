package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/listing"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// listed is one result of a list resource, comparable with cmp.
type listed struct {
	DisplayName string
	Identity    map[string]string
	Diagnostics []string
	State       map[string]string // the included resource's string attributes that the test names
}

// TestAccList_rayJobs drives the RayJob list resource through the provider's protocol server, as `terraform query`
// does (Terraform 1.14; CI's Terraform has no list blocks), against jobs made with kubectl on the local stack:
// the namespace's jobs, one queue's, a limit, pages smaller than the namespace, the jobs' full state as an import
// makes it, and a list that names no cluster.
func TestAccList_rayJobs(t *testing.T) {
	stackTest(t, 1)
	cp := on(t, createTestCluster(t, "acc-list"))
	const ns = "acc-list"
	cp.kubectl("", "create", "namespace", ns)
	t.Cleanup(func() { cp.kubectl("", "delete", "namespace", ns, "--wait=false") })
	queues := []string{"team-a", "team-a", "team-a", "team-b", "team-b"}
	var manifests strings.Builder
	for i, q := range queues {
		fmt.Fprintf(&manifests, `---
apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: job-%d
  namespace: %s
  labels:
    kueue.x-k8s.io/queue-name: %s
spec:
  suspend: true
  shutdownAfterJobFinishes: true
  entrypoint: python train.py --job %d
  rayClusterSpec:
    headGroupSpec:
      rayStartParams: {}
      template:
        spec:
          containers:
          - name: ray-head
            image: rayproject/ray:2.41.0
`, i, ns, q, i)
	}
	cp.kubectl(manifests.String(), "apply", "-f", "-")

	lc := newListClient(t)
	job := func(i int, state bool) listed {
		l := listed{DisplayName: fmt.Sprintf("%s/job-%d", ns, i), Identity: map[string]string{
			"project": testProject, "location": testLocation, "cluster": "acc-list", "namespace": ns, "name": fmt.Sprintf("job-%d", i)}}
		if state {
			l.State = map[string]string{
				"id":      fmt.Sprintf("projects/%s/locations/%s/clusters/acc-list/namespaces/%s/rayJobs/job-%d", testProject, testLocation, ns, i),
				"cluster": "acc-list", "namespace": ns, "name": fmt.Sprintf("job-%d", i), "queue": queues[i],
				"entrypoint": fmt.Sprintf("python train.py --job %d", i),
			}
		}
		return l
	}
	inCluster := map[string]any{"cluster": "acc-list", "namespace": ns}
	withQueue := map[string]any{"cluster": "acc-list", "namespace": ns, "queue": "team-b"}
	cases := []struct {
		name    string
		config  map[string]any
		include bool
		limit   int64
		page    int64
		want    []listed
	}{
		{"the namespace", inCluster, false, 0, 0, []listed{job(0, false), job(1, false), job(2, false), job(3, false), job(4, false)}},
		{"one queue", withQueue, false, 0, 0, []listed{job(3, false), job(4, false)}},
		{"a limit", inCluster, false, 2, 0, []listed{job(0, false), job(1, false)}},
		{"pages of two", inCluster, false, 0, 2, []listed{job(0, false), job(1, false), job(2, false), job(3, false), job(4, false)}},
		{"a limit across pages", inCluster, false, 3, 2, []listed{job(0, false), job(1, false), job(2, false)}},
		{"with the resources", withQueue, true, 0, 0, []listed{job(3, true), job(4, true)}},
		{"no cluster", map[string]any{"namespace": ns}, false, 0, 0, []listed{{Diagnostics: []string{
			"No cluster: Set cluster (the GKE cluster's name or id), or give the provider a kubernetes block that names the cluster."}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.page > 0 {
				ctx = listing.WithPageSize(ctx, tc.page)
			}
			if diff := cmp.Diff(tc.want, lc.listIn(ctx, t, "dwsfallback_rayjob", tc.config, tc.include, tc.limit, rayJobListed)); diff != "" {
				t.Errorf("list (-want +got):\n%s", diff)
			}
		})
	}
}

// stringAttrs are an object's string attributes, those named or all; a null one is left out.
func stringAttrs(t *testing.T, typ tftypes.Type, dv *tfprotov6.DynamicValue, names []string) map[string]string {
	t.Helper()
	if dv == nil {
		return nil
	}
	v, err := dv.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for n, a := range attrs {
		if names != nil && !slices.Contains(names, n) {
			continue
		}
		var s *string
		if a.Type().Is(tftypes.String) && a.As(&s) == nil && s != nil {
			out[n] = *s
		}
	}
	return out
}

// rayJobListed are the attributes of an included RayJob that the list test compares.
var rayJobListed = []string{"id", "cluster", "namespace", "name", "queue", "entrypoint"}

// listClient calls list resources through the provider's protocol server, as Terraform 1.14 does.
type listClient struct {
	ls      tfprotov6.ListResourceServer
	schemas *tfprotov6.GetProviderSchemaResponse
	ids     map[string]tftypes.Type
}

func newListClient(t *testing.T) *listClient {
	t.Helper()
	return newListClientWith(t, map[string]any{}) // all from the environment
}

// newListClientWith configures the provider with the attributes in config, the rest from the environment.
func newListClientWith(t *testing.T, config map[string]any) *listClient {
	t.Helper()
	s, schemas := configuredServer(t, config)
	return &listClient{ls: s.(tfprotov6.ListResourceServer), schemas: schemas, ids: identityTypes(t, context.Background(), s)}
}

// configuredServer is a protocol server whose provider is configured with the attributes in config, the rest from
// the environment.
func configuredServer(t *testing.T, config map[string]any) (tfprotov6.ProviderServer, *tfprotov6.GetProviderSchemaResponse) {
	t.Helper()
	s, schemas := testServer(t)
	cfg := buildValue(t, schemas.Provider.ValueType(), config)
	if cr, err := s.ConfigureProvider(context.Background(), &tfprotov6.ConfigureProviderRequest{Config: dynamic(t, schemas.Provider.ValueType(), cfg)}); err != nil || len(cr.Diagnostics) > 0 {
		t.Fatalf("configure: %v %v", err, cr.Diagnostics)
	}
	return s, schemas
}

// list runs one list, with the included resources' attributes named in attrs.
func (c *listClient) list(t *testing.T, typeName string, config map[string]any, include bool, limit int64, attrs []string) []listed {
	t.Helper()
	return c.listIn(context.Background(), t, typeName, config, include, limit, attrs)
}

func (c *listClient) listIn(ctx context.Context, t *testing.T, typeName string, config map[string]any, include bool, limit int64, attrs []string) []listed {
	t.Helper()
	listTyp := c.schemas.ListResourceSchemas[typeName].ValueType()
	stream, err := c.ls.ListResource(ctx, &tfprotov6.ListResourceRequest{
		TypeName: typeName, Config: dynamic(t, listTyp, buildValue(t, listTyp, config)), IncludeResource: include, Limit: limit,
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []listed
	for r := range stream.Results {
		l := listed{DisplayName: r.DisplayName}
		for _, d := range r.Diagnostics {
			l.Diagnostics = append(l.Diagnostics, d.Summary+": "+d.Detail)
		}
		if r.Identity != nil {
			l.Identity = stringAttrs(t, c.ids[typeName], r.Identity.IdentityData, nil)
		}
		if include && r.Resource != nil {
			l.State = stringAttrs(t, c.schemas.ResourceSchemas[typeName].ValueType(), r.Resource, attrs)
		}
		out = append(out, l)
	}
	return out
}

// TestAccList_everyKind lists each other kind through the protocol server: pool pairs that gcloud made (the
// tutorial's TPU pair and a GPU pair in one cluster, each list leaving the other kind's pools out), the cluster
// itself, and the Kubernetes kinds made with kubectl. A list of a cluster-scoped kind is checked for this test's
// objects.
func TestAccList_everyKind(t *testing.T) {
	stackTest(t, 1)
	ref := createTestCluster(t, "acc-list-kinds")
	cp := on(t, ref)
	g := testutil.NewGcloud(t, emuEndpoint, testProject, testToken)
	for _, cmd := range testutil.TutorialPools(ref.Name, "od", "dws") {
		g.Run(cmd...)
	}
	for _, cmd := range testutil.GPUPools(ref.Name, "gpu-od", "gpu-dws", "a3-highgpu-8g", "type=nvidia-h100-80gb,count=8,gpu-driver-version=latest", true) {
		g.Run(cmd...)
	}
	objects := `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: acc-list-cq
spec:
  namespaceSelector: {}
---
apiVersion: cloud.google.com/v1
kind: ComputeClass
metadata:
  name: acc-list-class
spec:
  priorities:
  - machineFamily: n2
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata:
  name: acc-list-worker
spec:
  clusterSource:
    kubeConfig:
      locationType: Secret
      location: acc-list-worker
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueConfig
metadata:
  name: acc-list-config
spec:
  clusters: [acc-list-worker]
`
	cp.kubectl(objects, "apply", "-f", "-")
	t.Cleanup(func() { cp.kubectl(objects, "delete", "-f", "-", "--wait=false") })
	lc := newListClient(t)
	scope := map[string]any{"cluster": ref.Name}
	pair := func(noun, od, dws, shape string) listed {
		return listed{
			DisplayName: noun + " pools " + od + " and " + dws + " (" + shape + ")",
			Identity: map[string]string{"project": testProject, "location": testLocation, "cluster": ref.Name,
				"on_demand_pool": od, "flex_start_pool": dws},
			State: map[string]string{"id": ref.String() + "/nodePools/" + od + "," + dws, "cluster": ref.Name},
		}
	}
	pairAttrs := []string{"id", "cluster"}
	t.Run("pool pairs", func(t *testing.T) {
		calls := emu.For(ref.Name)
		calls.ResetCalls()
		if diff := cmp.Diff([]listed{pair("TPU", "od", "dws", "ct6e-standard-4t 4x4")},
			lc.list(t, "dwsfallback_tpu_pool_pair", scope, true, 0, pairAttrs)); diff != "" {
			t.Errorf("TPU pairs (-want +got):\n%s", diff)
		}
		// Finding the pairs and reading the one found share one read of the pools.
		if n := calls.Calls()["ListNodePools"]; n != 1 {
			t.Errorf("the TPU list with its resources called ListNodePools %d times, want 1", n)
		}
		if diff := cmp.Diff([]listed{pair("GPU", "gpu-od", "gpu-dws", "a3-highgpu-8g")},
			lc.list(t, "dwsfallback_gpu_pool_pair", scope, true, 0, pairAttrs)); diff != "" {
			t.Errorf("GPU pairs (-want +got):\n%s", diff)
		}
		if got := lc.list(t, "dwsfallback_tpu_pool_pair", map[string]any{"cluster": ref.Name, "machine_type": "ct5p-hightpu-4t"}, false, 0, nil); len(got) != 0 {
			t.Errorf("pairs of another machine type: %+v", got)
		}
	})
	// contains finds the result named name among a list of objects other tests make too.
	contains := func(t *testing.T, typeName string, config map[string]any, attrs []string, want listed) {
		t.Helper()
		for _, l := range lc.list(t, typeName, config, attrs != nil, 0, attrs) {
			if l.DisplayName == want.DisplayName {
				if diff := cmp.Diff(want, l); diff != "" {
					t.Errorf("%s (-want +got):\n%s", typeName, diff)
				}
				return
			}
		}
		t.Errorf("%s: no %s listed", typeName, want.DisplayName)
	}
	t.Run("cluster", func(t *testing.T) {
		want := listed{
			DisplayName: ref.Name + " (" + testLocation + ")",
			Identity:    map[string]string{"project": testProject, "location": testLocation, "name": ref.Name},
			State:       map[string]string{"id": ref.String(), "name": ref.Name},
		}
		contains(t, "dwsfallback_cluster", map[string]any{}, []string{"id", "name"}, want)
		contains(t, "dwsfallback_cluster", map[string]any{"location": "-"}, []string{"id", "name"}, want) // every location
	})
	named := func(typeName, name string) {
		t.Run(typeName, func(t *testing.T) {
			contains(t, typeName, scope, nil, listed{
				DisplayName: name,
				Identity:    map[string]string{"project": testProject, "location": testLocation, "cluster": ref.Name, "name": name},
			})
		})
	}
	named("dwsfallback_kueue_queue", "acc-list-cq")
	named("dwsfallback_compute_class", "acc-list-class")
	named("dwsfallback_multikueue_worker", "acc-list-worker")
	named("dwsfallback_multikueue_config", "acc-list-config")
}
