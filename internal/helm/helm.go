// Package helm installs, upgrades, reads and uninstalls Helm releases through the Helm SDK, on a cluster reached with
// the provider's own REST configuration (so GKE's token is refreshed per request, as for every other client).
package helm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/cli"
	"helm.sh/helm/v3/pkg/registry"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ErrNotFound is a release that does not exist.
var ErrNotFound = driver.ErrReleaseNotFound

// getter hands Helm our REST configuration instead of a kubeconfig.
type getter struct {
	cfg *rest.Config
	ns  string
}

func (g getter) ToRESTConfig() (*rest.Config, error) { return rest.CopyConfig(g.cfg), nil }

func (g getter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(rest.CopyConfig(g.cfg))
	if err != nil {
		return nil, err
	}
	return memory.NewMemCacheClient(dc), nil
}

func (g getter) ToRESTMapper() (meta.RESTMapper, error) {
	dc, err := g.ToDiscoveryClient()
	if err != nil {
		return nil, err
	}
	return restmapper.NewDeferredDiscoveryRESTMapper(dc), nil
}

func (g getter) ToRawKubeConfigLoader() clientcmd.ClientConfig {
	return clientcmd.NewDefaultClientConfig(clientcmdapi.Config{}, &clientcmd.ConfigOverrides{Context: clientcmdapi.Context{Namespace: g.ns}})
}

// Client runs Helm actions in one namespace of one cluster.
type Client struct {
	cfg *action.Configuration
	ns  string
}

// New prepares Helm for namespace ns; log receives Helm's debug lines.
func New(cfg *rest.Config, ns string, log func(string)) (*Client, error) {
	ac := &action.Configuration{}
	if err := ac.Init(getter{cfg: cfg, ns: ns}, ns, "secret", func(format string, v ...any) { log(fmt.Sprintf(format, v...)) }); err != nil {
		return nil, fmt.Errorf("initialising Helm: %w", err)
	}
	return &Client{cfg: ac, ns: ns}, nil
}

// LoadChart reads a chart from a local path (a folder or .tgz), or pulls it from an oci:// reference at version.
func (c *Client) LoadChart(ref, version string) (*chart.Chart, error) {
	if !strings.HasPrefix(ref, "oci://") {
		return loader.Load(ref)
	}
	rc, err := registry.NewClient()
	if err != nil {
		return nil, err
	}
	c.cfg.RegistryClient = rc
	in := action.NewInstall(c.cfg) // carries the registry client into its chart locator
	in.Version = version
	path, err := in.LocateChart(ref, cli.New())
	if err != nil {
		return nil, fmt.Errorf("pulling chart %s %s: %w", ref, version, err)
	}
	return loader.Load(path)
}

// Install installs ch as release name with values.
func (c *Client) Install(ctx context.Context, name string, ch *chart.Chart, values map[string]any) (*release.Release, error) {
	in := action.NewInstall(c.cfg)
	in.ReleaseName, in.Namespace, in.CreateNamespace = name, c.ns, true
	return in.RunWithContext(ctx, ch, values)
}

// Upgrade upgrades release name to ch with values (which replace, not merge with, the previous ones).
func (c *Client) Upgrade(ctx context.Context, name string, ch *chart.Chart, values map[string]any) (*release.Release, error) {
	up := action.NewUpgrade(c.cfg)
	up.Namespace = c.ns
	return up.RunWithContext(ctx, name, ch, values)
}

// Get reads the release's latest revision.
func (c *Client) Get(name string) (*release.Release, error) {
	return action.NewGet(c.cfg).Run(name)
}

// Releases are the releases of chart chartName in namespace ns (every namespace when ""), by namespace and name:
// each release's latest revision, when that is deployed, failed or pending, as `helm list --all-namespaces --deployed --failed
// --pending` shows them. Helm reads every release's Secret in one LIST.
//
// Helm's debug lines are dropped here: Helm logs in whole a release Secret it cannot decode, and another chart's
// values may hold credentials.
func Releases(cfg *rest.Config, ns, chartName string) ([]*release.Release, error) {
	c, err := New(cfg, ns, func(string) {})
	if err != nil {
		return nil, err
	}
	l := action.NewList(c.cfg)
	l.AllNamespaces = ns == ""
	l.Deployed, l.Failed, l.Pending = true, true, true
	l.SetStateMask()
	all, err := l.Run()
	if err != nil {
		return nil, err
	}
	var out []*release.Release
	for _, r := range all {
		if r.Chart != nil && r.Chart.Metadata != nil && r.Chart.Metadata.Name == chartName {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *release.Release) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	return out, nil
}

// Uninstall removes the release and waits up to timeout for its objects to go; a release already gone is fine.
func (c *Client) Uninstall(name string, timeout time.Duration) error {
	un := action.NewUninstall(c.cfg)
	un.Wait, un.Timeout = true, timeout
	_, err := un.Run(name)
	if IsNotFound(err) {
		return nil
	}
	return err
}

// IsNotFound reports an error that says the release does not exist.
func IsNotFound(err error) bool {
	return errors.Is(err, driver.ErrReleaseNotFound) || err != nil && strings.Contains(err.Error(), "not found")
}
