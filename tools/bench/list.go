package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/googleapis/gax-go/v2"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"golang.org/x/oauth2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/provider"
)

// The list resources' cost on a fleet: what `terraform query` asks of the provider. Terraform 1.14 sends
// ListResource; the bench's Terraform (1.11) has no list blocks, so the bench calls the provider's protocol server in
// this process, as Terraform would over gRPC, and counts the requests at the servers as for the Terraform operations.

// fleetPairs is how many TPU pool pairs the fleet cluster has.
const fleetPairs = 50

// listRun is one list and what it cost.
type listRun struct {
	What    string
	Include bool
	Results int
	Time    time.Duration
	Calls   calls
}

// lister calls list resources through a configured protocol server.
type lister struct {
	ls      tfprotov6.ListResourceServer
	schemas *tfprotov6.GetProviderSchemaResponse
}

// newLister configures a provider in this process from the environment Terraform runs get.
func (b *bench) newLister(ctx context.Context) (*lister, error) {
	for _, kv := range b.env {
		k, v, _ := strings.Cut(kv, "=")
		if err := os.Setenv(k, v); err != nil {
			return nil, err
		}
	}
	srv, err := provider.NewDefaultServer("bench")()
	if err != nil {
		return nil, err
	}
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return nil, err
	}
	cfg, err := object(schemas.Provider.ValueType(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: cfg})
	if err != nil {
		return nil, err
	}
	if err := diagErr(resp.Diagnostics); err != nil {
		return nil, fmt.Errorf("configuring the provider: %w", err)
	}
	ls, ok := srv.(tfprotov6.ListResourceServer)
	if !ok {
		return nil, fmt.Errorf("the provider's server serves no list resources")
	}
	return &lister{ls: ls, schemas: schemas}, nil
}

// list runs one list to its end and counts its results; a result with an error fails it.
func (l *lister) list(ctx context.Context, typeName string, config map[string]string, include bool) (int, error) {
	s, ok := l.schemas.ListResourceSchemas[typeName]
	if !ok {
		return 0, fmt.Errorf("no list resource %s", typeName)
	}
	cfg, err := object(s.ValueType(), config)
	if err != nil {
		return 0, err
	}
	stream, err := l.ls.ListResource(ctx, &tfprotov6.ListResourceRequest{TypeName: typeName, Config: cfg, IncludeResource: include})
	if err != nil {
		return 0, err
	}
	n := 0
	for r := range stream.Results {
		if err := diagErr(r.Diagnostics); err != nil {
			return n, fmt.Errorf("%s: %w", typeName, err)
		}
		if include && r.Resource == nil {
			return n, fmt.Errorf("%s: %s came without its resource", typeName, r.DisplayName)
		}
		n++
	}
	return n, nil
}

// object is a value of typ with the named string attributes set and the rest null.
func object(typ tftypes.Type, attrs map[string]string) (*tfprotov6.DynamicValue, error) {
	ot, ok := typ.(tftypes.Object)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", typ)
	}
	vals := map[string]tftypes.Value{}
	for name, at := range ot.AttributeTypes {
		if v, ok := attrs[name]; ok {
			vals[name] = tftypes.NewValue(at, v)
		} else {
			vals[name] = tftypes.NewValue(at, nil)
		}
	}
	for name := range attrs {
		if _, ok := ot.AttributeTypes[name]; !ok {
			return nil, fmt.Errorf("no attribute %q", name)
		}
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, vals))
	return &dv, err
}

func diagErr(ds []*tfprotov6.Diagnostic) error {
	for _, d := range ds {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return fmt.Errorf("%s: %s", d.Summary, d.Detail)
		}
	}
	return nil
}

// measureList lists the RayJobs of namespace default (the setup's) and the pool pairs of the fleet cluster, each
// without and with their resources.
func (b *bench) measureList() ([]listRun, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	l, err := b.newLister(ctx)
	if err != nil {
		return nil, err
	}
	// Every job there must be listed. What other stages deleted must be gone first: a job that went during the
	// lists would leave them one short.
	jobs, err := b.admin.Ray.RayV1().RayJobs("default").List(ctx, metav1.ListOptions{})
	for err == nil && slices.ContainsFunc(jobs.Items, func(j rayv1.RayJob) bool { return j.DeletionTimestamp != nil }) {
		if err = gax.Sleep(ctx, 500*time.Millisecond); err == nil {
			jobs, err = b.admin.Ray.RayV1().RayJobs("default").List(ctx, metav1.ListOptions{})
		}
	}
	if err != nil {
		return nil, fmt.Errorf("waiting for the namespace's deleted RayJobs to go: %w", err)
	}
	var runs []listRun
	for _, q := range []struct {
		what, typeName string
		config         map[string]string
		want           int
	}{
		{fmt.Sprintf("%d RayJobs in one namespace", len(jobs.Items)), "dwsfallback_rayjob", map[string]string{"cluster": "tpu-cluster", "namespace": "default"}, len(jobs.Items)},
		{fmt.Sprintf("%d TPU pool pairs in one cluster", fleetPairs), "dwsfallback_tpu_pool_pair", map[string]string{"cluster": fleetCluster}, fleetPairs},
	} {
		for _, include := range []bool{false, true} {
			r := listRun{What: q.what, Include: include}
			var err error
			r.Time, r.Calls, err = b.timed(func() error {
				r.Results, err = l.list(ctx, q.typeName, q.config, include)
				return err
			})
			if err != nil {
				return runs, err
			}
			if r.Results != q.want {
				return runs, fmt.Errorf("%s: %d results, want %d", q.what, r.Results, q.want)
			}
			log.Printf("list %s (include_resource %t): %s", q.what, include, r.Time)
			runs = append(runs, r)
		}
	}
	return runs, nil
}

// fleetCluster holds fleetPairs pairs of the tutorial's TPU pools, made through the GKE API once per bench run.
const fleetCluster = "fleet-cluster"

// makeFleet makes the fleet cluster and its pools, without operation delays: how long GKE takes is not measured here.
func (b *bench) makeFleet(endpoint string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	b.emu.SetOperationDelay(0)
	defer b.emu.SetOperationDelay(200 * time.Millisecond)
	c, err := gke.Connect(ctx, gke.Config{Endpoint: endpoint, TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}),
		Backoff: gke.Backoff{Initial: 10 * time.Millisecond, Max: 100 * time.Millisecond, Multiplier: 1.5}})
	if err != nil {
		return err
	}
	parent := "projects/bench/locations/us-east5-b"
	cluster := parent + "/clusters/" + fleetCluster
	if err := c.Mutate(ctx, cluster, func(ctx context.Context) (*containerpb.Operation, error) {
		return c.API().CreateCluster(ctx, &containerpb.CreateClusterRequest{Parent: parent,
			Cluster: &containerpb.Cluster{Name: fleetCluster, InitialNodeCount: 1}})
	}, nil); err != nil {
		return fmt.Errorf("creating the fleet cluster: %w", err)
	}
	for i := range fleetPairs {
		for _, np := range fleetPools(i) {
			if err := c.Mutate(ctx, cluster, func(ctx context.Context) (*containerpb.Operation, error) {
				return c.API().CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: cluster, NodePool: np})
			}, nil); err != nil {
				return fmt.Errorf("creating pool %s: %w", np.Name, err)
			}
		}
	}
	return nil
}

// fleetPools are the tutorial's two pools (../shared/tutorial/commands.sh), the i-th pair's names.
func fleetPools(i int) []*containerpb.NodePool {
	pool := func(name string) *containerpb.NodePool {
		return &containerpb.NodePool{Name: name, InitialNodeCount: 0,
			Config:          &containerpb.NodeConfig{MachineType: "ct6e-standard-4t"},
			PlacementPolicy: &containerpb.NodePool_PlacementPolicy{TpuTopology: "4x4"},
			Autoscaling:     &containerpb.NodePoolAutoscaling{Enabled: true, MinNodeCount: 0, MaxNodeCount: 4}}
	}
	od, dws := pool(fmt.Sprintf("od-%02d", i)), pool(fmt.Sprintf("dws-%02d", i))
	od.Config.ReservationAffinity = &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_NO_RESERVATION}
	flex := true
	dws.Config.FlexStart = &flex
	dws.QueuedProvisioning = &containerpb.NodePool_QueuedProvisioning{Enabled: true}
	return []*containerpb.NodePool{od, dws}
}

// listAlone applies the setup at each n and lists it, and nothing else.
func (b *bench) listAlone(dir string, sizes []int) error {
	for _, n := range sizes {
		tf, err := newWorkdir(filepath.Join(dir, fmt.Sprintf("list%d", n)), b.binary, stackConfig(n), b.env)
		if err != nil {
			return err
		}
		log.Printf("N=%d: apply", n)
		if err := tf.run("apply", "-auto-approve"); err != nil {
			return err
		}
		r := result{N: n}
		if r.List, err = b.measureList(); err != nil {
			return err
		}
		b.results = append(b.results, r)
		if n < 1000 {
			if err := tf.run("destroy", "-auto-approve"); err != nil {
				return err
			}
		}
	}
	return nil
}

// listRows is the report's section on the list resources.
func (b *bench) listRows() string {
	var s strings.Builder
	s.WriteString("\n## Listing for `terraform query`\n\nTerraform 1.14's `terraform query` calls the provider's list resources; " +
		"the bench's Terraform has none, so the bench calls the provider's protocol server in its own process, as Terraform " +
		"would over gRPC. With `include_resource`, each result carries the state an import of it makes (an import and a read " +
		"through the same server). The RayJobs are the setup's N, in one namespace; the pool pairs are " +
		fmt.Sprint(fleetPairs) + " pairs of the tutorial's TPU pools in one cluster. Kubernetes objects are listed in pages of 500.\n\n")
	s.WriteString("| N | list | include_resource | results | time | GKE | Kubernetes |\n|---|---|---|---|---|---|---|\n")
	for _, r := range b.results {
		for _, l := range r.List {
			fmt.Fprintf(&s, "| %d | %s | %t | %d | %s | %s | %s |\n", r.N, l.What, l.Include, l.Results, secs(l.Time), callCell(l.Calls.GKE), callCell(l.Calls.Kube))
		}
	}
	return s.String()
}

// callCell is a request count with its split, as in the requests table.
func callCell(m map[string]int) string {
	n := 0
	for _, v := range m {
		n += v
	}
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", n, byKey(m))
}

// writeList writes the list section alone to list.md, for `make bench-list`.
func (b *bench) writeList(out string) error {
	md := fmt.Sprintf("# Listing benchmarks\n\nWritten by `make bench-list` on %s. Machine: %s. `make bench` measures the same "+
		"after each N's create, in bench/results.md.\n%s", time.Now().UTC().Format("2006-01-02 15:04 MST"), machine(), b.listRows())
	fmt.Print(md)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "list.md"), []byte(md), 0o644)
}
