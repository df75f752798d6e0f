// Command localstack runs the project's local stand-ins for the cloud: the GKE API emulator (and, as the local control
// plane grows, the Kubernetes side). It writes an env file with the export lines the provider, gcloud and the tests
// need, and removes it when it stops.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/localstack"
)

func main() {
	dir := flag.String("dir", ".local", "folder for the env file and state")
	addr := flag.String("gke-addr", "127.0.0.1:0", "address for the GKE API emulator (loopback; port 0 picks a free one)")
	project := flag.String("project", "dwsfallback-local", "project id written to the env file")
	delay := flag.Duration("operation-delay", 2*time.Second, "how long emulated GKE operations take")
	kube := flag.Bool("kubernetes", true, "also run the local Kubernetes control plane with Kueue, and point emulated clusters at it")
	binDir := flag.String("bin-dir", "", "folder with kube-apiserver, kube-controller-manager and kueue (default DIR/bin)")
	dwsDelay := flag.Duration("dws-delay", 3*time.Second, "how long the simulated DWS takes to provision a request")
	scaleDown := flag.Duration("scale-down-delay", 20*time.Second, "how long an autoscaled node stays empty before it goes (GKE: about 10 minutes)")
	spares := flag.Int("spare-planes", 0, "how many control planes of deleted clusters to keep, emptied, for the next clusters beside the first (0: each stops with its cluster)")
	timeScale := flag.Float64("autoscaler-time-scale", 0.01, "multiplies GKE's autoscaler timings: backoff after a failed scale-up (5 to 30 minutes) and flex-start capacity checks (15 minutes); 1 is GKE's clock")
	flag.Parse()
	if *timeScale <= 0 {
		log.Fatalf("localstack: -autoscaler-time-scale must be above 0, got %v", *timeScale)
	}
	if *binDir == "" {
		*binDir = filepath.Join(*dir, "bin")
	}
	gkeOpts := localstack.GKEOptions{DWSDelay: *dwsDelay, ScaleDownDelay: *scaleDown, TimeScale: *timeScale, SparePlanes: *spares}
	if err := run(*dir, *addr, *project, *delay, *kube, *binDir, gkeOpts); err != nil {
		log.Fatalf("localstack: %v", err)
	}
}

func run(dir, addr, project string, delay time.Duration, kube bool, binDir string, gkeOpts localstack.GKEOptions) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	token, err := randomToken()
	if err != nil {
		return err
	}
	emu := gkeemu.New(gkeemu.Options{OperationDelay: delay, Tokens: []string{token}})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening for the GKE emulator: %w", err)
	}
	srv := &http.Server{Handler: emu, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Printf("GKE emulator: %v", err)
			stop()
		}
	}()
	endpoint := "http://" + ln.Addr().String()
	envFile := filepath.Join(dir, "env")
	env := fmt.Sprintf(`# Written by localstack; removed when it stops. Source it: . %[1]s
export DWSFALLBACK_CONTAINER_ENDPOINT=%[2]s
export GOOGLE_PROJECT=%[3]s
export GOOGLE_OAUTH_ACCESS_TOKEN=%[4]s
`, envFile, endpoint, project, token)
	if kube {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		stack, err := localstack.Start(ctx, localstack.Options{Dir: filepath.Join(abs, "stack"), BinDir: binDir, Repo: ".", Tokens: []string{token}})
		if err != nil {
			return fmt.Errorf("starting the local control plane: %w", err)
		}
		defer func() {
			stack.Stop()
			for _, r := range stack.Restarts() {
				log.Printf("restarted: %s", r)
			}
		}()
		for _, t := range stack.Timings {
			log.Printf("  %-24s %s", t.Phase, t.Duration.Round(time.Millisecond))
		}
		// Emulated clusters point at the real control plane, as a GKE cluster's endpoint and CA point at its master.
		if err := stack.AttachGKE(ctx, emu, gkeOpts); err != nil {
			return err
		}
		env += fmt.Sprintf("export KUBECONFIG=%s\n", stack.Kubeconfig)
		log.Printf("Kubernetes API at %s with Kueue, kube-scheduler, kwok nodes and KubeRay (with the RayOperator add-on); kubeconfig %s", stack.Host, stack.Kubeconfig)
		log.Printf("component restarts are recorded in %s and served at %s/emulator/v1/restarts", stack.RestartLogPath(), endpoint)
	}
	// The token is a throwaway for the loopback emulator, but it is still a credential: owner-only.
	if err := os.WriteFile(envFile, []byte(env), 0o600); err != nil {
		return err
	}
	defer func() { _ = os.Remove(envFile) }()
	log.Printf("GKE emulator serving on %s (operations take %s); env in %s", endpoint, delay, envFile)
	<-ctx.Done()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}

func randomToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "local-" + hex.EncodeToString(b), nil
}
