package gke

import (
	"context"
	"fmt"

	container "cloud.google.com/go/container/apiv1"
	"golang.org/x/oauth2"
	"google.golang.org/api/compute/v1"
	"google.golang.org/api/option"
)

// Config says how to reach GKE.
type Config struct {
	// Endpoint overrides the GKE API address, e.g. the emulator's http://127.0.0.1:PORT. Empty means Google's.
	Endpoint string
	// ComputeEndpoint overrides Compute Engine's API base, e.g. http://127.0.0.1:PORT/compute/v1/. Empty means
	// Google's.
	ComputeEndpoint string
	// TokenSource supplies (and refreshes) the OAuth2 access token sent with every request.
	TokenSource oauth2.TokenSource
	UserAgent   string
	Backoff     Backoff
}

// Connect builds REST clients for GKE and for Compute Engine's reservations. It makes no request.
func Connect(ctx context.Context, cfg Config) (*Client, error) {
	api, err := container.NewClusterManagerRESTClient(ctx, cfg.options(cfg.Endpoint)...)
	if err != nil {
		return nil, fmt.Errorf("creating the GKE client: %w", err)
	}
	svc, err := compute.NewService(ctx, cfg.options(cfg.ComputeEndpoint)...)
	if err != nil {
		return nil, fmt.Errorf("creating the Compute Engine client: %w", err)
	}
	c := NewClient(api, cfg.Backoff)
	c.compute = svc.Reservations
	return c, nil
}

// options are a client's: the token and User-Agent, and endpoint unless it is empty (Google's).
func (cfg Config) options(endpoint string) []option.ClientOption {
	opts := []option.ClientOption{option.WithTokenSource(cfg.TokenSource)}
	if cfg.UserAgent != "" {
		opts = append(opts, option.WithUserAgent(cfg.UserAgent))
	}
	if endpoint != "" {
		opts = append(opts, option.WithEndpoint(endpoint))
	}
	return opts
}
