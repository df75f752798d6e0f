package localstack

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
)

// GKEOptions tune what the GKE emulator plays on this control plane.
type GKEOptions struct {
	// DWSDelay is how long the simulated DWS takes to provision a request.
	DWSDelay time.Duration
	// ScaleDownDelay is how long an autoscaled node stays empty before it goes (GKE: about 10 minutes).
	ScaleDownDelay time.Duration
	// TimeScale multiplies GKE's autoscaler timings (backoffs of 5 to 30 minutes after a failed scale-up, 15-minute
	// flex-start capacity checks); 0 keeps GKE's.
	TimeScale float64
	// SparePlanes is how many control planes of deleted clusters are kept, emptied, for the next clusters that
	// need one beside the primary (0: each stops with its cluster). A test suite whose clusters come and go
	// beside each other starts a few instead of one per cluster.
	SparePlanes int
}

// AttachGKE makes the emulator's clusters live on control planes until ctx ends: this stack serves one cluster at a
// time, and every other cluster gets a control plane of its own (see planes). On each, DWS answers ProvisioningRequests,
// node pools have Node objects that scale as GKE's would, and KubeRay's operator runs while the cluster enables the
// RayOperator add-on.
func (s *Stack) AttachGKE(ctx context.Context, emu *gkeemu.Server, o GKEOptions) error {
	base, err := s.recordBaseline(ctx)
	if err != nil {
		return fmt.Errorf("recording what the control plane holds before any cluster: %w", err)
	}
	p := &planes{ctx: ctx, emu: emu, gke: o, primary: s, fronts: map[string]*front{}, live: map[*plane]bool{}, base: base}
	s.planes = p
	emu.HandleAdmin("restarts", http.HandlerFunc(s.serveRestarts))
	// Clusters first: the autoscaler scoped to p.holds would remove the nodes of a cluster not yet given a plane.
	if err := emu.SetControlPlanes(p); err != nil {
		return err
	}
	return s.serveGKE(ctx, emu, o, p.holds)
}

// serveGKE runs the emulator's part (DWS, autoscaler, the RayOperator add-on) on this control plane for the clusters
// in scope.
func (s *Stack) serveGKE(ctx context.Context, emu *gkeemu.Server, o GKEOptions, scope gkeemu.Scope) error {
	dws, err := emu.NewDWS(s.RESTConfig(), gkeemu.DWSProvision, o.DWSDelay)
	if err != nil {
		return err
	}
	dws.Within(scope)
	as, err := emu.NewAutoscaler(s.RESTConfig(), gkeemu.AutoscalerOptions{ScaleDownDelay: o.ScaleDownDelay, NodeIPPrefix: NodeIPPrefix, TimeScale: o.TimeScale, Clusters: scope})
	if err != nil {
		return err
	}
	go dws.Run(ctx)
	go as.Run(ctx)
	go s.followRayOperator(ctx, emu, scope)
	return nil
}

// followRayOperator starts and stops KubeRay's operator as the add-on setting of the clusters in scope comes and goes.
func (s *Stack) followRayOperator(ctx context.Context, emu *gkeemu.Server, scope gkeemu.Scope) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		want := emu.RayOperatorWanted(scope)
		switch {
		case want && !s.RayOperatorRunning():
			_ = s.StartRayOperator(ctx) // retried on the next tick if it failed
		case !want && s.rayOperatorStarted():
			s.StopRayOperator()
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// serveRestarts answers GET /emulator/v1/restarts: the stack's component restarts, oldest first.
func (s *Stack) serveRestarts(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "restarts is read with GET", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"restarts": s.Restarts(), "log": s.RestartLogPath()})
}
