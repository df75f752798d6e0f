package gke

import (
	"context"
	"fmt"

	container "cloud.google.com/go/container/apiv1"
	"golang.org/x/oauth2"
	"google.golang.org/api/option"
)

// Config says how to reach GKE.
type Config struct {
	// Endpoint overrides the GKE API address, e.g. the emulator's http://127.0.0.1:PORT. Empty means Google's.
	Endpoint string
	// TokenSource supplies (and refreshes) the OAuth2 access token sent with every request.
	TokenSource oauth2.TokenSource
	UserAgent   string
	Backoff     Backoff
}

// Connect builds a REST client for GKE. It makes no request.
func Connect(ctx context.Context, cfg Config) (*Client, error) {
	opts := []option.ClientOption{option.WithTokenSource(cfg.TokenSource)}
	if cfg.UserAgent != "" {
		opts = append(opts, option.WithUserAgent(cfg.UserAgent))
	}
	if cfg.Endpoint != "" {
		opts = append(opts, option.WithEndpoint(cfg.Endpoint))
	}
	api, err := container.NewClusterManagerRESTClient(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("creating the GKE client: %w", err)
	}
	return NewClient(api, cfg.Backoff), nil
}
