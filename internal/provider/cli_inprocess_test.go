package provider

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/testutil"
)

// newTFRunInProcess is newTFRun with the provider served from this test process, as terraform-plugin-testing serves
// it: a server of its own for each terraform command, which terraform reaches through TF_REATTACH_PROVIDERS.
// Otherwise terraform starts the provider binary once per walk, three times a plan and four times an apply, each
// about 0.15 s of CPU (0.8 s against 0.2 s for a one-function apply, measured 2026-12-06); the drift tests run
// hundreds of commands on a suite that is CPU-bound. What only a plugin process shows (its logs, signals) is
// newTFRun's, and an earlier release is newTFRunWith's. The provider's process-wide caches (a cluster's API
// discovery, its flavors for 10 s) outlive one command here, as they do in a long terraform-plugin-testing run.
func newTFRunInProcess(t *testing.T, config string) *tfRun {
	t.Helper()
	testutil.RequireAcceptance(t)
	r := newTFRunWith(t, t.TempDir(), config) // dev_overrides to an empty folder: nothing to install, nothing to init
	r.inProcess = true
	return r
}

// reattach is one entry of TF_REATTACH_PROVIDERS.
type reattach struct {
	Protocol        string
	ProtocolVersion int
	Pid             int
	Test            bool
	Addr            struct{ Network, String string }
}

// serve starts a provider server for one terraform command and returns the environment that points terraform at
// it, and a func that stops the server once the command has ended.
func (r *tfRun) serve() (env []string, stop func()) {
	r.t.Helper()
	server, err := testProviders["dwsfallback"]()
	if err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	configs := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	go func() {
		err := tf6server.Serve(Address, func() tfprotov6.ProviderServer { return server },
			tf6server.WithDebug(ctx, configs, closed), tf6server.WithGoPluginLogger(hclog.NewNullLogger()),
			tf6server.WithLoggingSink(r.t), tf6server.WithoutLogStderrOverride())
		if err != nil {
			r.t.Errorf("serving the provider: %v", err)
		}
	}()
	var c *plugin.ReattachConfig
	select {
	case c = <-configs:
	case <-closed:
		cancel()
		r.t.Fatal("the in-process provider server stopped before it served")
	case <-time.After(30 * time.Second):
		cancel()
		r.t.Fatal("the in-process provider server gave no reattach configuration in 30s")
	}
	e := reattach{Protocol: string(c.Protocol), ProtocolVersion: c.ProtocolVersion, Pid: c.Pid, Test: c.Test}
	e.Addr.Network, e.Addr.String = c.Addr.Network(), c.Addr.String()
	b, err := json.Marshal(map[string]reattach{Address: e})
	if err != nil {
		cancel()
		r.t.Fatal(err)
	}
	env = append(append([]string(nil), r.env...), "TF_REATTACH_PROVIDERS="+string(b))
	return env, func() {
		cancel()
		select {
		case <-closed:
		case <-time.After(30 * time.Second):
			r.t.Error("the in-process provider server did not stop in 30s")
		}
	}
}
