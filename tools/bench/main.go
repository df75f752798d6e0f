// Command bench measures what the provider costs on the local stack: API requests per Terraform operation (counted by
// the GKE emulator and by the kube-apiserver's audit log), plan and no-change apply wall time, provider start-up,
// binary size, peak memory, state size and wait latency, for the tutorial stack plus N RayJobs. It writes
// bench/results.md and bench/cost.png. `make bench` runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/localstack"
)

// benchEnv is every Terraform run's environment but for the emulator's address.
var benchEnv = []string{"GOOGLE_OAUTH_ACCESS_TOKEN=" + token, "GOOGLE_PROJECT=bench", "GOOGLE_ZONE=us-east5-b",
	"CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1"}

const (
	token     = "bench-google-token"
	userAgent = "terraform-provider-dwsfallback/"
)

func main() {
	ns := flag.String("n", "1,10,100,1000", "numbers of RayJobs")
	runs := flag.Int("runs", 5, "runs of each timed command (the median is reported)")
	binary := flag.String("provider", ".local/bench/terraform-provider-dwsfallback", "stripped provider binary")
	binDir := flag.String("stack-bin", ".local/bin", "kube-apiserver, kube-controller-manager and kueue")
	out := flag.String("out", "bench", "where results.md and cost.png go")
	startupOnly := flag.Bool("startup-only", false, "measure the provider's start-up only, and print it")
	noHelm := flag.String("nohelm", "", "a provider binary built with -tags nohelm, to weigh what the Helm SDK costs")
	statusQuoFile := flag.String("status-quo", "bench/status-quo.json", "figures of the status quo, with where and when they were measured")
	echo := flag.String("echo", "", "the echo provider (internal/echoprovider), to measure the plugin floor")
	hold := flag.Bool("hold", false, "apply the first -n and keep the stack up until interrupted, for profiling by hand")
	runningOnly := flag.Bool("running-destroy-only", false, "measure the destroy of running jobs alone (at -running-n), and print it")
	runningN := flag.Int("running-n", 0, "jobs in the destroy of running jobs; 0 is the largest -n up to 100")
	listOnly := flag.Bool("list-only", false, "measure the list resources alone (at each -n), and print it")
	flag.Parse()
	log.SetFlags(log.Ltime)

	var sizes []int
	for _, s := range strings.FieldsFunc(*ns, func(r rune) bool { return r == ',' }) {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			log.Fatalf("-n: %v", err)
		}
		sizes = append(sizes, n)
	}
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	b := &bench{binary: abs(*binary), runs: *runs, startupOnly: *startupOnly, hold: *hold, runningN: *runningN, listOnly: *listOnly}
	if *echo != "" {
		b.echo = abs(*echo)
	}
	if *noHelm != "" {
		b.noHelm = &variant{binary: abs(*noHelm)}
	}
	if *statusQuoFile != "" {
		sq, err := readStatusQuo(*statusQuoFile)
		if err != nil {
			log.Fatalf("-status-quo: %v", err)
		}
		b.statusQuo = sq
	}
	if *runningOnly {
		if err := b.runningDestroyOnly(abs(*binDir), sizes); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := b.run(abs(*binDir), sizes); err != nil {
		log.Fatal(err)
	}
	if b.startupOnly || b.hold {
		return
	}
	if b.listOnly {
		if err := b.writeList(abs(*out)); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := b.report(abs(*out)); err != nil {
		log.Fatal(err)
	}
}

type bench struct {
	binary      string
	runs        int
	statusQuo   *statusQuo
	startupOnly bool
	hold        bool
	listOnly    bool
	runningN    int
	echo        string
	noHelm      *variant
	emu         *gkeemu.Server
	stack       *localstack.Stack
	admin       *kube.Clients
	audit       *auditCounter
	env         []string

	startup     []time.Duration
	startupTF   []time.Duration
	handshake   []time.Duration
	schemaBytes int
	binaryBytes int64
	results     []result
	latency     latency
	// runningDestroy is the destroy of jobs KubeRay works on (destroy_running.go).
	runningDestroy *runningDestroy
}

// runningDestroyN is -running-n, or the largest N of the run up to 100: the destroy of 1000 running jobs would take
// most of an hour on 2 cores, the API server's garbage collector more than the provider.
func (b *bench) runningDestroyN(sizes []int) int {
	if b.runningN > 0 {
		return b.runningN
	}
	n := 0
	for _, s := range sizes {
		if s <= 100 && s > n {
			n = s
		}
	}
	return n
}

// result is what one N cost.
type result struct {
	N                                     int
	Create, Plan, PlanParallel, NoopApply time.Duration
	Destroy                               time.Duration
	CreateCalls, PlanCalls, NoopCalls     calls
	DestroyCalls                          calls
	StateBytes                            int64
	ProviderRSS, TerraformRSS             int64
	ManagedObjects                        int
	PlanProviderCPU, PlanTerraformCPU     time.Duration
	// List is what terraform query's calls cost on this N (list.go).
	List []listRun
	// ApplyFloor is the same RayJobs and ConfigMaps made by one kubectl apply, waited for as ours (floor_apply.go).
	ApplyFloor time.Duration
	// Floor is Terraform's own cost for the same number of resources carrying the same state: terraform_data.
	Floor floor
}

// calls are requests counted at the servers.
type calls struct {
	GKE       map[string]int
	Kube      map[string]int
	Discovery int
}

func (c calls) total() (gke, kube int) {
	for _, n := range c.GKE {
		gke += n
	}
	for _, n := range c.Kube {
		kube += n
	}
	return
}

// variant is another build of the provider, measured for start-up and size only.
type variant struct {
	binary  string
	bytes   int64
	startup []time.Duration
}

func (v *variant) measure() error {
	fi, err := os.Stat(v.binary)
	if err != nil {
		return err
	}
	v.bytes = fi.Size()
	for i := 0; i < 20; i++ {
		d, _, _, err := startup(v.binary)
		if err != nil {
			return err
		}
		v.startup = append(v.startup, d)
	}
	return nil
}

type latency struct {
	Admitted, Running, Completed []time.Duration
}

func (b *bench) run(binDir string, sizes []int) error {
	fi, err := os.Stat(b.binary)
	if err != nil {
		return fmt.Errorf("the provider binary (make bench builds it): %w", err)
	}
	b.binaryBytes = fi.Size()
	for i := 0; i < 20; i++ {
		d, n, h, err := startup(b.binary)
		if err != nil {
			return fmt.Errorf("provider start-up: %w", err)
		}
		b.startup, b.schemaBytes, b.handshake = append(b.startup, d), n, append(b.handshake, h)
	}
	for i := 0; i < 20; i++ {
		d, err := startupAsTerraform(b.binary)
		if err != nil {
			return fmt.Errorf("provider start-up as Terraform starts it: %w", err)
		}
		b.startupTF = append(b.startupTF, d)
	}
	log.Printf("start-up: median %s over %d starts (handshake %s; as Terraform starts it, with mTLS: %s)", median(b.startup),
		len(b.startup), median(b.handshake), median(b.startupTF))
	if b.noHelm != nil {
		if err := b.noHelm.measure(); err != nil {
			return fmt.Errorf("the build without Helm: %w", err)
		}
		log.Printf("without Helm: start-up median %s, %d bytes", median(b.noHelm.startup), b.noHelm.bytes)
	}
	if b.startupOnly {
		return nil
	}

	dir, err := os.MkdirTemp("", "dwsfallback-bench-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b.stack, err = localstack.Start(ctx, localstack.Options{Dir: filepath.Join(dir, "stack"), BinDir: binDir, Repo: ".",
		Tokens: []string{token}, AuditLog: true})
	if err != nil {
		return err
	}
	defer b.stack.Stop()
	b.emu = gkeemu.New(gkeemu.Options{OperationDelay: 200 * time.Millisecond, Tokens: []string{token}})
	b.emu.SetClusterEndpoint(b.stack.Endpoint, b.stack.CABase64())
	srv := httptest.NewServer(b.emu)
	defer srv.Close()
	b.admin, err = kube.New(kube.Target{Host: b.stack.Host, CAData: b.stack.CAPEM, BearerToken: b.stack.AdminToken})
	if err != nil {
		return err
	}
	b.audit = &auditCounter{path: b.stack.AuditLogPath, userAgent: userAgent}
	b.env = append([]string{"DWSFALLBACK_CONTAINER_ENDPOINT=" + srv.URL}, benchEnv...)

	if b.hold {
		return b.holdStack(filepath.Join(dir, "hold"), sizes[0])
	}
	if err := b.makeFleet(srv.URL); err != nil {
		return err
	}
	if b.listOnly {
		return b.listAlone(dir, sizes)
	}
	// Latency first: the largest N is left standing (not destroyed), and its jobs would queue ahead of the latency
	// stage's in Kueue.
	if err := b.measureLatency(filepath.Join(dir, "latency")); err != nil {
		return err
	}
	// On a stack of its own, stopped before the plan stages; at -running-n jobs.
	if n := b.runningDestroyN(sizes); n > 0 {
		if b.runningDestroy, err = b.measureRunningDestroy(filepath.Join(dir, "running"), binDir, n); err != nil {
			return fmt.Errorf("the destroy of running jobs: %w", err)
		}
	}
	for _, n := range sizes {
		r, err := b.measure(filepath.Join(dir, fmt.Sprintf("n%d", n)), n)
		if err != nil {
			return fmt.Errorf("N=%d: %w", n, err)
		}
		b.results = append(b.results, r)
	}
	return nil
}

// measure applies the tutorial stack with n RayJobs, plans and applies it again without changes, and destroys it.
func (b *bench) measure(dir string, n int) (result, error) {
	r := result{N: n}
	tf, err := newWorkdir(dir, b.binary, stackConfig(n), b.env)
	if err != nil {
		return r, err
	}
	log.Printf("N=%d: apply", n)
	r.Create, r.CreateCalls, err = b.timed(func() error { return tf.run("apply", "-auto-approve") })
	if err != nil {
		return r, err
	}
	if fi, err := os.Stat(filepath.Join(dir, "terraform.tfstate")); err == nil {
		r.StateBytes = fi.Size()
	}
	if r.ManagedObjects, err = managedObjects(filepath.Join(dir, "terraform.tfstate")); err != nil {
		return r, err
	}
	if r.List, err = b.measureList(); err != nil {
		return r, fmt.Errorf("the list resources: %w", err)
	}
	echo, err := b.pluginFloorDir(dir+"-echo", dir)
	if err != nil {
		return r, fmt.Errorf("the plugin floor: %w", err)
	}
	defer func() { _ = os.RemoveAll(dir + "-echo") }()
	var plans, echoPlans, wide, noops []time.Duration
	for i := 0; i < b.runs; i++ {
		d, c, err := b.timed(func() error { return tf.run("plan", "-detailed-exitcode") })
		if err != nil {
			return r, fmt.Errorf("plan is not empty or failed: %w", err)
		}
		plans, r.PlanCalls = append(plans, d), c
		if echo != nil {
			if d, err = pluginFloorPlan(echo); err != nil {
				return r, err
			}
			echoPlans = append(echoPlans, d)
		}
		d, _, err = b.timed(func() error { return tf.run("plan", "-detailed-exitcode", "-parallelism=100") })
		if err != nil {
			return r, err
		}
		wide = append(wide, d)
	}
	r.Plan, r.PlanParallel = median(plans), median(wide)
	peaks, cpu, err := usage([]string{"terraform", "terraform-provider-dwsfallback"}, func() error {
		return tf.run("plan", "-detailed-exitcode")
	})
	if err != nil {
		return r, err
	}
	r.TerraformRSS, r.ProviderRSS = peaks["terraform"], peaks["terraform-provider-dwsfallback"]
	r.PlanProviderCPU, r.PlanTerraformCPU = cpu["terraform-provider-dwsfallback"], cpu["terraform"]
	for i := 0; i < max(3, b.runs/2); i++ {
		d, c, err := b.timed(func() error { return tf.run("apply", "-auto-approve") })
		if err != nil {
			return r, err
		}
		noops, r.NoopCalls = append(noops, d), c
	}
	r.NoopApply = median(noops)
	if r.Floor, err = b.measureFloor(dir+"-floor", filepath.Join(dir, "terraform.tfstate")); err != nil {
		return r, fmt.Errorf("the terraform_data floor: %w", err)
	}
	if echo != nil {
		r.Floor.Plugin = median(echoPlans)
		if err = pluginFloorCPU(&r.Floor, echo); err != nil {
			return r, fmt.Errorf("the plugin floor: %w", err)
		}
	}
	// Before the destroy, which takes the LocalQueue the floor's jobs are admitted through.
	if r.ApplyFloor, err = b.measureApplyFloor(dir+"-apply", n, n < 1000); err != nil {
		return r, fmt.Errorf("the apply floor: %w", err)
	}
	log.Printf("N=%d: create %s (apply floor %s), plan %s (parallelism 100: %s; floor %s, plugin floor %s), no-change apply %s", n,
		r.Create, r.ApplyFloor, r.Plan, r.PlanParallel, r.Floor.Plan, r.Floor.Plugin, r.NoopApply)
	if n >= 1000 {
		// Destroying 1000 RayJobs one foreground deletion at a time takes the local API server most of an hour
		// on 2 cores (its garbage collector, not the provider); the stack goes with the bench instead.
		return r, nil
	}
	log.Printf("N=%d: destroy", n)
	r.Destroy, r.DestroyCalls, err = b.timed(func() error { return tf.run("destroy", "-auto-approve") })
	return r, err
}

// timed runs fn and returns its wall time and the requests both servers saw from the provider meanwhile.
func (b *bench) timed(fn func() error) (time.Duration, calls, error) {
	b.emu.ResetCalls()
	b.audit.mark()
	start := time.Now()
	err := fn()
	d := time.Since(start)
	k, disc := b.audit.counts()
	return d, calls{GKE: b.emu.Calls(), Kube: k, Discovery: disc}, err
}

// runningDestroyOnly measures the destroy of running jobs alone, and prints it.
func (b *bench) runningDestroyOnly(binDir string, sizes []int) error {
	dir, err := os.MkdirTemp("", "dwsfallback-bench-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	b.env = benchEnv
	r, err := b.measureRunningDestroy(dir, binDir, b.runningDestroyN(sizes))
	if err != nil {
		return err
	}
	fmt.Print(r.rows())
	return nil
}
