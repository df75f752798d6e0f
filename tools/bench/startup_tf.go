package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
)

// startupAsTerraform starts the provider with go-plugin's client as Terraform configures it (protocol 6 over gRPC,
// AutoMTLS: both sides make a P-521 certificate and shake hands over TLS), and returns the time until the
// GetProviderSchema answer arrived. It is the start-up each of a plan's three provider processes pays.
func startupAsTerraform(binary string) (time.Duration, error) {
	start := time.Now()
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig: plugin.HandshakeConfig{ProtocolVersion: 6, MagicCookieKey: "TF_PLUGIN_MAGIC_COOKIE",
			MagicCookieValue: "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2"},
		Plugins:          map[string]plugin.Plugin{},
		Cmd:              exec.Command(binary),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		Managed:          false,
		Logger:           hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off}),
		SyncStdout:       io.Discard,
		SyncStderr:       io.Discard,
	})
	defer client.Kill()
	proto, err := client.Client()
	if err != nil {
		return 0, err
	}
	gc, ok := proto.(*plugin.GRPCClient)
	if !ok {
		return 0, fmt.Errorf("go-plugin gave a %T, not a gRPC client", proto)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, resp := []byte{}, []byte{}
	if err := gc.Conn.Invoke(ctx, "/tfplugin6.Provider/GetProviderSchema", &req, &resp, grpc.ForceCodec(rawCodec{})); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}
