// Package provider implements the dwsfallback Terraform provider: schemas, plan-time validation and CRUD for the
// resources of the DWS + Kueue TPU fallback setup. It reaches GKE through internal/gke.
package provider

import (
	"context"
	"net/url"
	"os"
	"strconv"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework-validators/providervalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
)

var (
	_ provider.Provider                     = (*dwsProvider)(nil)
	_ provider.ProviderWithConfigValidators = (*dwsProvider)(nil)
)

// New returns a constructor for the provider, as providerserver.Serve wants.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &dwsProvider{version: version} }
}

type dwsProvider struct {
	version string
	// backoff paces retries and operation polls; zero means GKE-scale defaults. Tests shorten it.
	backoff gke.Backoff
}

type providerModel struct {
	Project                   types.String `tfsdk:"project"`
	Location                  types.String `tfsdk:"location"`
	AccessToken               types.String `tfsdk:"access_token"`
	Credentials               types.String `tfsdk:"credentials"`
	ImpersonateServiceAccount types.String `tfsdk:"impersonate_service_account"`
	ContainerEndpoint         types.String `tfsdk:"container_endpoint"`
}

func (p *dwsProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "dwsfallback"
	resp.Version = p.version
}

func (p *dwsProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Makes GKE's DWS + Kueue TPU fallback setup declarative: TPU node pools on demand with a " +
			"Dynamic Workload Scheduler (flex-start) fallback, the Kueue queue that prefers the first and falls back to " +
			"the second, and the RayJobs that run on them.",
		Attributes: map[string]schema.Attribute{
			"project": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Default Google Cloud project for resources. Falls back to `GOOGLE_PROJECT`, `GOOGLE_CLOUD_PROJECT` or `CLOUDSDK_CORE_PROJECT`.",
			},
			"location": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Default location (zone or region) of clusters, e.g. `us-east5-b`. Falls back to `GOOGLE_ZONE`, then `GOOGLE_REGION`.",
			},
			"access_token": schema.StringAttribute{
				Optional:            true,
				Sensitive:           true,
				MarkdownDescription: "An OAuth2 access token. Falls back to `GOOGLE_OAUTH_ACCESS_TOKEN`. Conflicts with `credentials`. Never written to state.",
			},
			"credentials": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				MarkdownDescription: "A service account or authorized user key: the JSON itself or a path to it. Falls back to " +
					"`GOOGLE_CREDENTIALS`, then to Application Default Credentials. Conflicts with `access_token`.",
			},
			"impersonate_service_account": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "A service account email to impersonate with the credentials above. Falls back to `GOOGLE_IMPERSONATE_SERVICE_ACCOUNT`.",
			},
			"container_endpoint": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Custom GKE API endpoint, such as the local emulator's `http://127.0.0.1:PORT`. " +
					"Falls back to `DWSFALLBACK_CONTAINER_ENDPOINT`, then Google's endpoint.",
			},
		},
	}
}

func (p *dwsProvider) ConfigValidators(context.Context) []provider.ConfigValidator {
	return []provider.ConfigValidator{
		providervalidator.Conflicting(path.MatchRoot("access_token"), path.MatchRoot("credentials")),
	}
}

func (p *dwsProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	pick := func(v types.String, envs ...string) string {
		if !v.IsNull() && !v.IsUnknown() {
			return v.ValueString()
		}
		for _, e := range envs {
			if s := os.Getenv(e); s != "" {
				return s
			}
		}
		return ""
	}
	creds := gke.Credentials{
		AccessToken:               pick(cfg.AccessToken, "GOOGLE_OAUTH_ACCESS_TOKEN"),
		JSON:                      pick(cfg.Credentials, "GOOGLE_CREDENTIALS"),
		ImpersonateServiceAccount: pick(cfg.ImpersonateServiceAccount, "GOOGLE_IMPERSONATE_SERVICE_ACCOUNT"),
	}
	// Configured values win over the environment; only when both come from one place is it ambiguous.
	if !cfg.AccessToken.IsNull() && cfg.Credentials.IsNull() {
		creds.JSON = ""
	}
	if !cfg.Credentials.IsNull() && cfg.AccessToken.IsNull() {
		creds.AccessToken = ""
	}
	if creds.AccessToken != "" && creds.JSON != "" {
		resp.Diagnostics.AddError("Conflicting credentials",
			"Both an access token (access_token or GOOGLE_OAUTH_ACCESS_TOKEN) and a key (credentials or GOOGLE_CREDENTIALS) are set. Unset one of them.")
		return
	}
	if creds.JSON != "" {
		if _, err := gke.ReadCredentialsJSON(creds.JSON); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("credentials"), "Unreadable credentials", err.Error())
			return
		}
	}
	endpoint := pick(cfg.ContainerEndpoint, "DWSFALLBACK_CONTAINER_ENDPOINT")
	if endpoint != "" {
		u, err := url.Parse(endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			resp.Diagnostics.AddAttributeError(path.Root("container_endpoint"), "Malformed GKE endpoint",
				"container_endpoint (or DWSFALLBACK_CONTAINER_ENDPOINT) must be an http or https URL such as http://127.0.0.1:8080, got "+strconv.Quote(endpoint)+".")
			return
		}
	}
	data := &providerData{
		project:  pick(cfg.Project, "GOOGLE_PROJECT", "GOOGLE_CLOUD_PROJECT", "CLOUDSDK_CORE_PROJECT"),
		location: pick(cfg.Location, "GOOGLE_ZONE", "GOOGLE_REGION"),
		connect: func(ctx context.Context) (*gke.Client, error) {
			ts, err := gke.TokenSource(ctx, creds)
			if err != nil {
				return nil, err
			}
			return gke.Connect(ctx, gke.Config{Endpoint: endpoint, TokenSource: ts, UserAgent: "terraform-provider-dwsfallback/" + p.version, Backoff: p.backoff})
		},
	}
	tflog.Debug(ctx, "configured provider", map[string]any{"project": data.project, "location": data.location, "container_endpoint": endpoint})
	resp.ResourceData = data
	resp.DataSourceData = data
}

func (p *dwsProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewTPUPoolPairResource,
	}
}

func (p *dwsProvider) DataSources(context.Context) []func() datasource.DataSource {
	return nil
}

// clients is what resources get from the provider. It is an interface so a unit test can hand in its own.
type clients interface {
	// GKE returns the GKE client, made on first use so that planning never needs credentials or the network.
	GKE(ctx context.Context) (*gke.Client, error)
	// Defaults are the provider's project and location, either possibly empty.
	Defaults() (project, location string)
}

type providerData struct {
	project, location string
	connect           func(context.Context) (*gke.Client, error)

	once   sync.Once
	client *gke.Client
	err    error
}

func (d *providerData) GKE(ctx context.Context) (*gke.Client, error) {
	d.once.Do(func() {
		// The client outlives this request's context: it serves every resource of the run.
		d.client, d.err = d.connect(context.WithoutCancel(ctx))
	})
	return d.client, d.err
}

func (d *providerData) Defaults() (string, string) { return d.project, d.location }
