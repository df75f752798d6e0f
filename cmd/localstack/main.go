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
)

func main() {
	dir := flag.String("dir", ".local", "folder for the env file and state")
	addr := flag.String("gke-addr", "127.0.0.1:0", "address for the GKE API emulator (loopback; port 0 picks a free one)")
	project := flag.String("project", "dwsfallback-local", "project id written to the env file")
	delay := flag.Duration("operation-delay", 2*time.Second, "how long emulated GKE operations take")
	flag.Parse()
	if err := run(*dir, *addr, *project, *delay); err != nil {
		log.Fatalf("localstack: %v", err)
	}
}

func run(dir, addr, project string, delay time.Duration) error {
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
	// The token is a throwaway for the loopback emulator, but it is still a credential: owner-only.
	if err := os.WriteFile(envFile, []byte(env), 0o600); err != nil {
		return err
	}
	defer os.Remove(envFile)
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
