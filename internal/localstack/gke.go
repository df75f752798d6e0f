package localstack

import (
	"context"
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
}

// AttachGKE makes the emulator's clusters live on this control plane, until ctx ends: their endpoint and CA are the
// API server's, DWS answers ProvisioningRequests, node pools have Node objects that scale as GKE's would, and KubeRay's
// operator runs while a cluster enables the RayOperator add-on.
func (s *Stack) AttachGKE(ctx context.Context, emu *gkeemu.Server, o GKEOptions) (*gkeemu.DWS, *gkeemu.Autoscaler, error) {
	emu.SetClusterEndpoint(s.Endpoint, s.CABase64())
	dws, err := emu.NewDWS(s.RESTConfig(), gkeemu.DWSProvision, o.DWSDelay)
	if err != nil {
		return nil, nil, err
	}
	as, err := emu.NewAutoscaler(s.RESTConfig(), gkeemu.AutoscalerOptions{ScaleDownDelay: o.ScaleDownDelay, NodeIPPrefix: NodeIPPrefix, TimeScale: o.TimeScale})
	if err != nil {
		return nil, nil, err
	}
	go dws.Run(ctx)
	go as.Run(ctx)
	go s.followRayOperator(ctx, emu)
	return dws, as, nil
}

// followRayOperator starts and stops KubeRay's operator as the emulated clusters' add-on setting comes and goes.
func (s *Stack) followRayOperator(ctx context.Context, emu *gkeemu.Server) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		want := emu.RayOperatorWanted()
		switch {
		case want && !s.RayOperatorRunning():
			_ = s.StartRayOperator(ctx) // retried on the next tick if it failed
		case !want && s.RayOperatorRunning():
			s.StopRayOperator()
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
