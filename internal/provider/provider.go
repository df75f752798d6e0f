package provider

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework-validators/providervalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"golang.org/x/oauth2"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gke"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/listing"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/resources/cluster"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/resources/computeclass"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/resources/kueuequeue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/resources/multikueue"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/resources/poolpair"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/resources/rayjob"
)

// Address is the provider's source address in the registry: the one main.go serves it under and the one a
// configuration's required_providers (source = "dwsfallback/dwsfallback") stands for.
const Address = "registry.terraform.io/dwsfallback/dwsfallback"

var (
	_ provider.Provider                     = (*dwsProvider)(nil)
	_ provider.ProviderWithConfigValidators = (*dwsProvider)(nil)
	_ provider.ProviderWithFunctions        = (*dwsProvider)(nil)
	_ provider.ProviderWithListResources    = (*dwsProvider)(nil)
)

// New returns a constructor for the provider, as providerserver.Serve wants.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &dwsProvider{version: version} }
}

type dwsProvider struct {
	version string
	// backoff paces retries and operation polls; zero means GKE-scale defaults. Tests shorten it.
	backoff gke.Backoff
	// configured holds the clients of the last Configure, for the server's unchanged-plan shortcut.
	configured atomic.Pointer[providerData]
	// server is the protocol server serving this provider, through which list resources import what they list.
	server *server
}

type providerModel struct {
	Project                   types.String     `tfsdk:"project"`
	Location                  types.String     `tfsdk:"location"`
	AccessToken               types.String     `tfsdk:"access_token"`
	Credentials               types.String     `tfsdk:"credentials"`
	ImpersonateServiceAccount types.String     `tfsdk:"impersonate_service_account"`
	ContainerEndpoint         types.String     `tfsdk:"container_endpoint"`
	ComputeEndpoint           types.String     `tfsdk:"compute_endpoint"`
	Kubernetes                *kubernetesModel `tfsdk:"kubernetes"`
}

// kubernetesModel points Kubernetes-side resources at a cluster directly, instead of through GKE.
type kubernetesModel struct {
	ConfigPath           types.String `tfsdk:"config_path"`
	ConfigContext        types.String `tfsdk:"config_context"`
	Host                 types.String `tfsdk:"host"`
	Token                types.String `tfsdk:"token"`
	ClusterCACertificate types.String `tfsdk:"cluster_ca_certificate"`
	Insecure             types.Bool   `tfsdk:"insecure"`
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
			"compute_endpoint": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Custom Compute Engine API base, such as the local emulator's `http://127.0.0.1:PORT/compute/v1/`; " +
					"plans read the reservations a TPU or GPU pair names through it. Falls back to `DWSFALLBACK_COMPUTE_ENDPOINT`, " +
					"then, when a GKE endpoint is set, to that address's `/compute/v1/` (the emulator serves both), then Google's endpoint.",
			},
		},
		Blocks: map[string]schema.Block{
			"kubernetes": schema.SingleNestedBlock{
				MarkdownDescription: "Reach Kubernetes directly (kind, on-prem, a cluster not on GKE) instead of through the GKE cluster " +
					"named by each resource. Without this block, the provider reads each cluster's endpoint and CA from GKE and " +
					"authenticates with the provider's Google credentials, as GKE expects.",
				Attributes: map[string]schema.Attribute{
					"config_path": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "Path to a kubeconfig file; `KUBECONFIG` is honoured only when this names it (`config_path = pathexpand(\"~/.kube/config\")`).",
					},
					"config_context": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "Context of the kubeconfig to use; default its current context.",
					},
					"host": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "API server URL, e.g. `https://127.0.0.1:6443`.",
					},
					"token": schema.StringAttribute{
						Optional:            true,
						Sensitive:           true,
						MarkdownDescription: "Bearer token for `host`. Never written to state.",
					},
					"cluster_ca_certificate": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "PEM CA certificate of `host`.",
					},
					"insecure": schema.BoolAttribute{
						Optional:            true,
						MarkdownDescription: "Skip TLS verification of `host` (test clusters only).",
					},
				},
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
	// The framework gives resources what this call returns, nothing when it fails: so do the server's shortcuts.
	p.configured.Store(nil)
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
	computeEndpoint := pick(cfg.ComputeEndpoint, "DWSFALLBACK_COMPUTE_ENDPOINT")
	if !checkEndpoint("container_endpoint", "DWSFALLBACK_CONTAINER_ENDPOINT", "GKE", endpoint, "http://127.0.0.1:8080", &resp.Diagnostics) ||
		!checkEndpoint("compute_endpoint", "DWSFALLBACK_COMPUTE_ENDPOINT", "Compute Engine", computeEndpoint, "http://127.0.0.1:8080/compute/v1/", &resp.Diagnostics) {
		return
	}
	if computeEndpoint == "" && endpoint != "" {
		// A GKE endpoint of one's own is never Google's: reservations are read there too, not from Google.
		computeEndpoint = strings.TrimSuffix(endpoint, "/") + "/compute/v1/"
	}
	data := &providerData{
		project:   pick(cfg.Project, "GOOGLE_PROJECT", "GOOGLE_CLOUD_PROJECT", "CLOUDSDK_CORE_PROJECT"),
		location:  pick(cfg.Location, "GOOGLE_ZONE", "GOOGLE_REGION"),
		userAgent: "terraform-provider-dwsfallback/" + p.version,
		newTokens: func(ctx context.Context) (oauth2.TokenSource, error) { return gke.TokenSource(ctx, creds) },
		kubeCache: map[string]*kubeEntry{},
	}
	data.connect = func(ctx context.Context) (*gke.Client, error) {
		ts, err := data.tokens(ctx)
		if err != nil {
			return nil, err
		}
		return gke.Connect(ctx, gke.Config{Endpoint: endpoint, ComputeEndpoint: computeEndpoint, TokenSource: ts, UserAgent: data.userAgent, Backoff: p.backoff})
	}
	if k := cfg.Kubernetes; k != nil {
		data.kubeTarget = &kube.Target{
			Kubeconfig: k.ConfigPath.ValueString(), Context: k.ConfigContext.ValueString(),
			Host: k.Host.ValueString(), BearerToken: k.Token.ValueString(), CAData: []byte(k.ClusterCACertificate.ValueString()),
			Insecure: k.Insecure.ValueBool(), UserAgent: data.userAgent,
		}
		// A host or kubeconfig that is not known yet (another resource's output, such as a cluster's endpoint made in
		// the same apply) is fine at plan time: nothing connects before apply, and Terraform configures again then.
		known := !k.Host.IsUnknown() && !k.ConfigPath.IsUnknown()
		if known && data.kubeTarget.Kubeconfig == "" && data.kubeTarget.Host == "" {
			resp.Diagnostics.AddAttributeError(path.Root("kubernetes"), "Incomplete kubernetes block",
				"The kubernetes block needs config_path (a kubeconfig) or host (with token and cluster_ca_certificate).")
			return
		}
	}
	tflog.Debug(ctx, "configured provider", map[string]any{"project": data.project, "location": data.location, "container_endpoint": endpoint, "compute_endpoint": computeEndpoint})
	data.server = p.server
	resp.ResourceData = data
	resp.DataSourceData = data
	resp.ListResourceData = data
	p.configured.Store(data)
}

func (p *dwsProvider) Resources(context.Context) []func() resource.Resource {
	return append([]func() resource.Resource{
		cluster.New,
		poolpair.NewTPU,
		poolpair.NewGPU,
		kueuequeue.New,
		rayjob.New,
		computeclass.New,
		multikueue.NewWorker,
		multikueue.NewConfig,
	}, helmResources...)
}

// ListResources are the list resources of `terraform query` (Terraform 1.14 and later).
func (p *dwsProvider) ListResources(context.Context) []func() list.ListResource {
	return append([]func() list.ListResource{
		listing.New(cluster.ListKind()),
		listing.New(poolpair.ListTPUKind()),
		listing.New(poolpair.ListGPUKind()),
		listing.New(kueuequeue.ListKind()),
		listing.New(rayjob.ListKind()),
		listing.New(computeclass.ListKind()),
		listing.New(multikueue.ListWorkerKind()),
		listing.New(multikueue.ListConfigKind()),
	}, helmLists...)
}

func (p *dwsProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		rayjob.NewDataSource,
		rayjob.NewWorkloadsDataSource,
	}
}

func (p *dwsProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{
		NewTPUSliceFunction,
	}
}

type providerData struct {
	server                       *server
	project, location, userAgent string
	connect                      func(context.Context) (*gke.Client, error)
	newTokens                    func(context.Context) (oauth2.TokenSource, error)
	// kubeTarget, from the provider's kubernetes block, overrides reaching clusters through GKE.
	kubeTarget *kube.Target

	once   sync.Once
	client *gke.Client
	err    error

	tokensOnce sync.Once
	ts         oauth2.TokenSource
	tsErr      error

	kubeMu    sync.Mutex
	kubeCache map[string]*kubeEntry
}

// kubeEntry is one cluster's clients, made under the entry's own lock: a GKE read for one cluster must not hold up
// every other cluster's resources.
type kubeEntry struct {
	mu sync.Mutex
	c  *kube.Clients
}

func (d *providerData) tokens(ctx context.Context) (oauth2.TokenSource, error) {
	d.tokensOnce.Do(func() { d.ts, d.tsErr = d.newTokens(context.WithoutCancel(ctx)) })
	return d.ts, d.tsErr
}

// Kube returns the clients of a cluster: from the kubernetes block if there is one, else from GKE's view of the
// cluster (endpoint and CA) with the provider's Google token, refreshed per request. Made once per cluster and run.
func (d *providerData) Kube(ctx context.Context, ref clusterscope.Ref) (*kube.Clients, error) {
	key := ref.String()
	if d.kubeTarget != nil {
		key = "kubernetes-block"
	}
	d.kubeMu.Lock()
	e := d.kubeCache[key]
	if e == nil {
		e = &kubeEntry{}
		d.kubeCache[key] = e
	}
	d.kubeMu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.c != nil {
		return e.c, nil
	}
	target := d.kubeTarget
	if target == nil {
		t, err := d.gkeTarget(ctx, ref)
		if err != nil {
			return nil, err
		}
		target = t
	}
	c, err := kube.New(*target)
	if err != nil {
		return nil, err
	}
	if d.kubeTarget == nil {
		d.followWorker(ref, c)
	}
	e.c = c
	return c, nil
}

func (d *providerData) gkeTarget(ctx context.Context, ref clusterscope.Ref) (*kube.Target, error) {
	client, err := d.GKE(ctx)
	if err != nil {
		return nil, err
	}
	cl, err := gke.Read(ctx, client, func(ctx context.Context) (*containerpb.Cluster, error) {
		return client.API().GetCluster(ctx, &containerpb.GetClusterRequest{Name: ref.String()})
	})
	if err != nil {
		return nil, fmt.Errorf("reading cluster %s for its Kubernetes endpoint: %w", ref, err)
	}
	if cl.GetEndpoint() == "" {
		return nil, fmt.Errorf("cluster %s has no endpoint yet (status %s)", ref, cl.GetStatus())
	}
	ca, err := base64.StdEncoding.DecodeString(cl.GetMasterAuth().GetClusterCaCertificate())
	if err != nil {
		return nil, fmt.Errorf("cluster %s reports an unreadable CA certificate: %w", ref, err)
	}
	ts, err := d.tokens(ctx)
	if err != nil {
		return nil, err
	}
	return &kube.Target{Host: "https://" + cl.GetEndpoint(), CAData: ca, TokenSource: ts, UserAgent: d.userAgent}, nil
}

// HasKubernetesBlock reports whether Kubernetes-side resources may omit their cluster.
func (d *providerData) HasKubernetesBlock() bool { return d.kubeTarget != nil }

func (d *providerData) GKE(ctx context.Context) (*gke.Client, error) {
	d.once.Do(func() {
		// The client outlives this request's context: it serves every resource of the run.
		d.client, d.err = d.connect(context.WithoutCancel(ctx))
	})
	return d.client, d.err
}

func (d *providerData) Defaults() (string, string) { return d.project, d.location }

// checkEndpoint says whether an endpoint setting is empty or an http(s) URL, and adds the error when it is not.
func checkEndpoint(attr, env, api, value, example string, diags *diag.Diagnostics) bool {
	if value == "" {
		return true
	}
	if u, err := url.Parse(value); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return true
	}
	diags.AddAttributeError(path.Root(attr), "Malformed "+api+" endpoint",
		fmt.Sprintf("%s (or %s) must be an http or https URL such as %s, got %q.", attr, env, example, value))
	return false
}
