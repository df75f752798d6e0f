package localstack

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// startNodes runs what places and "runs" pods: kube-scheduler, and kwok for the nodes' kubelets.
func (s *Stack) startNodes(ctx context.Context) error {
	f := func(name string) string { return filepath.Join(s.dir, name) }
	sched, err := startProcessEnv(s.childEnv(), s.dir, "kube-scheduler", filepath.Join(s.binDir, "kube-scheduler"),
		"--kubeconfig="+s.componentKubeconfig, "--leader-elect=false", "--secure-port=0")
	if err != nil {
		return err
	}
	s.addProc(sched)
	if err := os.WriteFile(f("kwok.yaml"), []byte(kwokConfig), 0o600); err != nil {
		return err
	}
	kwok, err := startProcessEnv(s.childEnv(), s.dir, "kwok", filepath.Join(s.binDir, "kwok"),
		"--kubeconfig="+s.componentKubeconfig, "--config="+f("kwok.yaml"), fmt.Sprintf("--server-address=127.0.0.1:%d", s.kwokPort))
	if err != nil {
		return err
	}
	s.addProc(kwok)
	return waitReady(ctx, kwok, fmt.Sprintf("http://127.0.0.1:%d/healthz", s.kwokPort), http.DefaultClient, nil)
}

// StartRayOperator runs KubeRay's operator, as GKE's RayOperator add-on does in a cluster that enables it, and waits
// until it serves. It is a no-op while the operator runs, or waits to be started again after an exit.
func (s *Stack) StartRayOperator(ctx context.Context) error {
	s.rayMu.Lock()
	defer s.rayMu.Unlock()
	if s.rayOperator != nil || s.stopping.Load() {
		return nil
	}
	// No leader election and probes on loopback; CLUSTER_DOMAIN is left at cluster.local, which the egress sink
	// answers for: the operator never resolves it.
	p, err := startProcessEnv(s.childEnv(), s.dir, "ray-operator", filepath.Join(s.binDir, "ray-operator"),
		"--kubeconfig="+s.componentKubeconfig, "-enable-leader-election=false",
		fmt.Sprintf("-health-probe-bind-address=127.0.0.1:%d", s.rayHealth),
		fmt.Sprintf("-metrics-addr=127.0.0.1:%d", s.rayMetrics), "-log-stdout-encoder=console")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	// A start that fails is this call's error, and the next tick of followRayOperator's tries again; an exit once
	// it served is a restart.
	if err := waitReady(ctx, p, fmt.Sprintf("http://127.0.0.1:%d/readyz", s.rayHealth), http.DefaultClient, nil); err != nil {
		p.stop(10 * time.Second)
		return err
	}
	s.rayOperator = p
	s.supervise(p)
	return nil
}

// StopRayOperator ends KubeRay's operator, as disabling the add-on does; the RayJobs and their objects stay.
func (s *Stack) StopRayOperator() {
	s.rayMu.Lock()
	defer s.rayMu.Unlock()
	if s.rayOperator != nil {
		s.rayOperator.stop(10 * time.Second)
		s.rayOperator = nil
	}
}

// RayOperatorRunning reports whether KubeRay's operator runs.
func (s *Stack) RayOperatorRunning() bool {
	s.rayMu.Lock()
	defer s.rayMu.Unlock()
	return s.rayOperator != nil && !s.rayOperator.exited()
}

// rayOperatorStarted is true from StartRayOperator to StopRayOperator, also while a restart is pending.
func (s *Stack) rayOperatorStarted() bool {
	s.rayMu.Lock()
	defer s.rayMu.Unlock()
	return s.rayOperator != nil
}
