package main

import (
	"encoding/json"
	"fmt"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// statusQuo is the same setup written as kubernetes_manifest resources, measured elsewhere and kept in a data file
// (bench/status-quo.json) that says on what machine and when: a figure from another run is never passed off as one
// from this machine.
type statusQuo struct {
	What        string             `json:"what"`
	Machine     string             `json:"machine"`
	Measured    string             `json:"measured"`
	PlanSeconds map[string]float64 `json:"plan_seconds"`
	Notes       string             `json:"notes"`
}

func (s *statusQuo) plan(n int) (float64, bool) {
	if s == nil {
		return 0, false
	}
	v, ok := s.PlanSeconds[strconv.Itoa(n)]
	return v, ok
}

func readStatusQuo(path string) (*statusQuo, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s statusQuo
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

func (b *bench) report(out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var md strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&md, format, args...) }
	w("# Benchmarks\n\nWritten by `make bench` on %s. Machine: %s.\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), machine())
	w("The setup: the tutorial's cluster, TPU pool pair and Kueue queue (7 Kueue objects) plus N RayJobs (each with its\n"+
		"ConfigMap), on the local stack: the GKE emulator (200 ms operations) and a real kube-apiserver, etcd and Kueue. Requests\n"+
		"are counted where they arrive: by the GKE emulator, and by the kube-apiserver's audit log (the provider's user agent\n"+
		"only). Times are the median of %d runs.\n\n", b.runs)

	w("## Time, memory and state\n\n")
	w("| N | objects | create | `plan` | `plan -parallelism=100` | no-change `apply` | destroy | CPU per plan: provider / terraform | provider peak RSS | terraform peak RSS | state | state per RayJob |\n")
	w("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range b.results {
		perJob := "-"
		if len(b.results) > 1 && r.N > b.results[0].N {
			perJob = kb(float64(r.StateBytes-b.results[0].StateBytes) / float64(r.N-b.results[0].N))
		}
		destroy := "not run"
		if r.Destroy > 0 {
			destroy = secs(r.Destroy)
		}
		w("| %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.N, r.ManagedObjects, secs(r.Create), secs(r.Plan),
			secs(r.PlanParallel), secs(r.NoopApply), destroy, ms(r.PlanProviderCPU)+" / "+ms(r.PlanTerraformCPU), mib(r.ProviderRSS), mib(r.TerraformRSS),
			kb(float64(r.StateBytes)), perJob)
	}

	ratio := func(a, b time.Duration) string {
		if b <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f×", a.Seconds()/b.Seconds())
	}
	w("\n## Create against the apply floor\n\nThe apply floor is the same N RayJobs and ConfigMaps made by one `kubectl apply` and " +
		"waited for to the same point as ours (every job admitted by Kueue; at N = 1000, where ours does not wait, created only): " +
		"what no provider that creates them through the API server goes below. Our create also makes the cluster, the pool pair and " +
		"the queue (GKE operations of 200 ms each), which weigh most at small N.\n\n")
	w("| N | create: ours | apply floor | ours over it |\n|---|---|---|---|\n")
	for _, r := range b.results {
		w("| %d | %s | %s | %s |\n", r.N, secs(r.Create), secs(r.ApplyFloor), ratio(r.Create, r.ApplyFloor))
	}

	w("\n## Against Terraform's own floor\n\nTwo floors, on the same machine. Terraform's floor, run after ours, is a plan of as many " +
		"`terraform_data` resources (built into Terraform: no provider process) carrying about as much state; the target at N = 100 is " +
		"≤ 2× of it. The plugin floor is a plan of our own configuration and state against the echo provider (internal/echoprovider): " +
		"this provider's binary and schema, validating, reading and planning nothing. It is what Terraform and the plugin protocol " +
		"spend on these resources, which no provider of this schema can go below; ours over it is what the provider itself adds. Its " +
		"plans alternate with ours (one of ours, one of the floor's), so both meet the same load from Kueue and the API server.\n\n")
	w("| N | resources | state: ours / floor's | `plan`: ours | Terraform's floor | ours over it | plugin floor | ours over it | plugin floor's CPU: terraform / echo provider | terraform peak RSS: ours / floor's |\n" +
		"|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range b.results {
		w("| %d | %d | %s / %s | %s | %s | %s | %s | %s | %s / %s | %s / %s |\n", r.N, r.Floor.Resources, kb(float64(r.StateBytes)),
			kb(float64(r.Floor.StateBytes)), secs(r.Plan), secs(r.Floor.Plan), ratio(r.Plan, r.Floor.Plan), secs(r.Floor.Plugin),
			ratio(r.Plan, r.Floor.Plugin), ms(r.Floor.PluginTerraformCPU), ms(r.Floor.PluginProviderCPU), mib(r.TerraformRSS),
			mib(r.Floor.TerraformRSS))
	}

	w("\n## Requests per operation\n\nGKE requests by method; Kubernetes requests by verb; discovery counts `/api`, `/apis`, `/apis/GROUP` and `/openapi` requests.\n\n")
	w("| N | operation | GKE | Kubernetes | discovery/OpenAPI | reads per managed object |\n|---|---|---|---|---|---|\n")
	for _, r := range b.results {
		for _, op := range []struct {
			name string
			c    calls
		}{{"`plan` (refresh)", r.PlanCalls}, {"no-change `apply`", r.NoopCalls}, {"create", r.CreateCalls}, {"destroy", r.DestroyCalls}} {
			g, k := op.c.total()
			perObj := "-"
			if strings.HasPrefix(op.name, "`plan`") {
				perObj = fmt.Sprintf("%.2f", float64(g+k)/float64(r.ManagedObjects))
			}
			w("| %d | %s | %d (%s) | %d (%s) | %d | %s |\n", r.N, op.name, g, byKey(op.c.GKE), k, byKey(op.c.Kube), op.c.Discovery, perObj)
		}
	}

	w("\n## Start-up, size and waits\n\n| measure | value | target |\n|---|---|---|\n")
	w("| provider start-up to GetProviderSchema answered, without mTLS (median of %d cold starts) | %s (min %s, max %s) | |\n",
		len(b.startup), ms(median(b.startup)), ms(minD(b.startup)), ms(maxD(b.startup)))
	w("| of which: until the go-plugin handshake line | %s | |\n", ms(median(b.handshake)))
	w("| the same as Terraform starts it (go-plugin's client with AutoMTLS; median of %d) | %s (min %s, max %s) | < 100 ms |\n",
		len(b.startupTF), ms(median(b.startupTF)), ms(minD(b.startupTF)), ms(maxD(b.startupTF)))
	w("| schema size | %s | |\n", kb(float64(b.schemaBytes)))
	w("| binary, stripped (`-s -w`, every resource) | %s | < 100 MB |\n", mib(b.binaryBytes))
	if b.noHelm != nil {
		w("| the same without the Helm SDK (`-tags nohelm`, no `dwsfallback_kueue_install`): start-up / binary | %s / %s | |\n",
			ms(median(b.noHelm.startup)), mib(b.noHelm.bytes))
	}
	w("| wait_for = admitted: Kueue admits → the wait returns (median / max of %d) | %s / %s | ≤ 250 ms |\n",
		len(b.latency.Admitted), ms(median(b.latency.Admitted)), ms(maxD(b.latency.Admitted)))
	w("| wait_for = running: job marked Running (KubeRay's status) → the wait returns (median / max of %d) | %s / %s | ≤ 250 ms |\n",
		len(b.latency.Running), ms(median(b.latency.Running)), ms(maxD(b.latency.Running)))
	w("| wait_for = complete: job marked Complete → the wait returns (median / max of %d) | %s / %s | ≤ 250 ms |\n",
		len(b.latency.Completed), ms(median(b.latency.Completed)), ms(maxD(b.latency.Completed)))

	w("%s", b.runningDestroy.rows())
	w("%s", b.listRows())

	if sq := b.statusQuo; sq != nil {
		w("\n## Against the status quo\n\n%s Measured on %s, %s (bench/status-quo.json), not in this run: set them beside "+
			"this run's figures knowing that. %s\n\n| N | status quo `plan` (%s) | this provider's `plan` (this run) | faster by |\n|---|---|---|---|\n",
			sq.What, sq.Machine, sq.Measured, sq.Notes, sq.Machine)
		for _, r := range b.results {
			if v, ok := sq.plan(r.N); ok {
				w("| %d | %.1f s | %s | %.0f× |\n", r.N, v, secs(r.Plan), v/r.Plan.Seconds())
			}
		}
	}
	w("\n![plan time against N](cost.png)\n")
	if err := os.WriteFile(filepath.Join(out, "results.md"), []byte(md.String()), 0o644); err != nil {
		return err
	}
	fmt.Print(md.String())
	if len(b.results) == 0 {
		return nil
	}
	return b.plot(filepath.Join(out, "cost.png"))
}

// plot draws plan and no-change apply time against N, ours and the status quo's, on log axes.
func (b *bench) plot(path string) error {
	p := plot.New()
	p.Title.Text = "terraform plan: tutorial stack + N RayJobs"
	p.X.Label.Text = "N (RayJobs)"
	p.Y.Label.Text = "seconds"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	var plan, noop, sq plotter.XYs
	for _, r := range b.results {
		plan = append(plan, plotter.XY{X: float64(r.N), Y: r.Plan.Seconds()})
		noop = append(noop, plotter.XY{X: float64(r.N), Y: r.NoopApply.Seconds()})
		if v, ok := b.statusQuo.plan(r.N); ok {
			sq = append(sq, plotter.XY{X: float64(r.N), Y: v})
		}
	}
	for _, l := range []struct {
		name string
		xy   plotter.XYs
		c    color.RGBA
	}{
		{"dwsfallback: plan", plan, color.RGBA{B: 200, A: 255}},
		{"dwsfallback: no-change apply", noop, color.RGBA{G: 140, A: 255}},
		{"kubernetes_manifest: plan (status-quo.json)", sq, color.RGBA{R: 200, A: 255}},
	} {
		if len(l.xy) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(l.xy)
		if err != nil {
			return err
		}
		line.Color, points.Color = l.c, l.c
		p.Add(line, points)
		p.Legend.Add(l.name, line, points)
	}
	return p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}

func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				model = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		_, _ = fmt.Sscanf(strings.SplitN(string(b), "\n", 2)[0], "MemTotal: %d kB", &kb)
		mem = fmt.Sprintf(", %.0f GiB RAM", float64(kb)/(1<<20))
	}
	tf, _ := exec.Command("terraform", "version").Output()
	return fmt.Sprintf("%d × %s%s, %s/%s, %s, %s", runtime.NumCPU(), model, mem, runtime.GOOS, runtime.GOARCH, runtime.Version(),
		strings.SplitN(strings.TrimSpace(string(tf)), "\n", 2)[0])
}

func byKey(m map[string]int) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
func ms(d time.Duration) string   { return fmt.Sprintf("%d ms", d.Milliseconds()) }
func mib(n int64) string          { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
func kb(n float64) string         { return fmt.Sprintf("%.1f KB", n/1000) }

func minD(ds []time.Duration) time.Duration {
	m := ds[0]
	for _, d := range ds {
		m = min(m, d)
	}
	return m
}

func maxD(ds []time.Duration) time.Duration {
	m := ds[0]
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}
