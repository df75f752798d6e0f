package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/provider"
)

// Generate the docs from the schema, templates/ and examples/ (see GNUmakefile's generate target).
//go:generate sh -c "cd tools && go tool tfplugindocs generate --provider-dir .. --provider-name dwsfallback"

// version is this source's release: the top entry of CHANGELOG.md (main_test.go checks), which the release tag
// v<version> names. goreleaser sets it from the tag through ldflags.
var version = "0.2.0"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()
	quietLogsUnlessAsked()
	gcForShortLife()
	defer profileCPUIfAsked()()
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	newServer := provider.NewDefaultServer(version)
	err := tf6server.Serve(provider.Address, func() tfprotov6.ProviderServer {
		s, err := newServer()
		if err != nil {
			log.Fatal(err.Error())
		}
		return s
	}, opts...)
	if err != nil {
		log.Fatal(err.Error())
	}
}

// gcForShortLife makes the collector run less often than Go's default, unless GOGC or GOMEMLIMIT says otherwise. A
// provider process lives for one Terraform walk and its live heap is small (the state it is sent, the shared LISTs),
// so at the default GOGC=100 the collector ran every few milliseconds in a 1000-job plan, a sixth of the provider's CPU
// (bench/README.md). A soft limit keeps the larger headroom from growing the process past it.
func gcForShortLife() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(512 << 20)
}

// quietLogsUnlessAsked turns the provider's and the plugin SDK's logging off when no TF_LOG variable asks for logs.
// The SDK otherwise writes every TRACE line as JSON for Terraform to throw away, which cost about a tenth of the
// provider's CPU in a 100-job plan (bench/results.md). With any TF_LOG variable set, nothing changes.
func quietLogsUnlessAsked() {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "TF_LOG") && k != "TF_LOG_PATH" {
			return
		}
	}
	for _, k := range []string{"TF_LOG_PROVIDER", "TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"} {
		_ = os.Setenv(k, "OFF")
	}
}

// profileCPUIfAsked writes a CPU profile of this process to DWSFALLBACK_CPU_PROFILE_DIR/cpu-<pid>.pprof when that
// variable is set: Terraform starts the provider itself, once per command, so a flag cannot reach it (bench/README.md
// says how to read the profiles). The returned func stops the profile; Terraform waits for the process to exit after
// it has asked it to stop, so the profile is complete.
func profileCPUIfAsked() func() {
	dir := os.Getenv("DWSFALLBACK_CPU_PROFILE_DIR")
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("cpu-%d.pprof", os.Getpid())))
	if err != nil {
		log.Printf("[WARN] CPU profile: %v", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Printf("[WARN] CPU profile: %v", err)
		_ = f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}
