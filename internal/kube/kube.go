// Package kube builds the provider's Kubernetes clients for one cluster: the typed clientsets Kueue and KubeRay publish and
// client-go's core/v1 client, never discovery or OpenAPI at plan time. It knows nothing of Terraform types.
package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	rayclient "github.com/ray-project/kuberay/ray-operator/pkg/client/clientset/versioned"
	"golang.org/x/oauth2"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/dynamic"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	rbacv1client "k8s.io/client-go/kubernetes/typed/rbac/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"
)

// FieldManager is the server-side-apply manager name of everything the provider writes.
const FieldManager = "terraform-provider-dwsfallback"

// Target says how to reach an API server: a kubeconfig, or a host with CA and credentials.
type Target struct {
	Kubeconfig, Context string

	Host        string
	CAData      []byte
	Insecure    bool
	BearerToken string
	// TokenSource supplies a fresh bearer token per request (the Google token GKE accepts); it wins over BearerToken.
	TokenSource oauth2.TokenSource
	UserAgent   string
}

// Clients are the typed clients of one cluster.
type Clients struct {
	Kueue kueueclient.Interface
	Ray   rayclient.Interface
	Core  corev1client.CoreV1Interface
	RBAC  rbacv1client.RbacV1Interface
	// Dynamic reaches what no typed client covers: GKE's ComputeClasses.
	Dynamic dynamic.Interface
	// Config is the client configuration, for clients made elsewhere (Helm).
	Config *rest.Config
	// Host names the cluster in messages.
	Host string
	// Worker, when set, reaches the MultiKueue worker cluster a manager's MultiKueueCluster name stands for, so that
	// a job dispatched there is followed to its pods.
	Worker func(ctx context.Context, multiKueueCluster string) (*Clients, error)
}

// RESTConfig turns t into a client configuration.
func RESTConfig(t Target) (*rest.Config, error) {
	var cfg *rest.Config
	switch {
	case t.Kubeconfig != "":
		rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: t.Kubeconfig}
		c, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: t.Context}).ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("loading kubeconfig %s: %w", t.Kubeconfig, err)
		}
		cfg = c
	case t.Host != "":
		cfg = &rest.Config{Host: t.Host, BearerToken: t.BearerToken,
			TLSClientConfig: rest.TLSClientConfig{CAData: t.CAData, Insecure: t.Insecure}}
	default:
		return nil, errors.New("no Kubernetes API server: neither a kubeconfig nor a host")
	}
	if t.TokenSource != nil {
		ts := t.TokenSource
		cfg.BearerToken = ""
		cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return &oauth2.Transport{Source: ts, Base: rt} }
	}
	// Deliberate limits. A refresh reads about three objects per RayJob, all at once: a burst of 500 lets a plan of
	// 150 jobs through without client-side waits (at 50/100, a 100-job plan waited about 4 s), and the API server's
	// priority and fairness still protects it from more.
	cfg.QPS, cfg.Burst = 100, 500
	if t.UserAgent != "" {
		cfg.UserAgent = t.UserAgent
	}
	return cfg, nil
}

// New builds the clients; it makes no request.
func New(t Target) (*Clients, error) {
	cfg, err := RESTConfig(t)
	if err != nil {
		return nil, err
	}
	kq, err := kueueclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ray, err := rayclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	core, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	rbac, err := rbacv1client.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Clients{Kueue: kq, Ray: ray, Core: core, RBAC: rbac, Dynamic: dyn, Config: cfg, Host: cfg.Host}, nil
}

// ServerVersion is the API server's /version: the Kubernetes it runs.
func (c *Clients) ServerVersion(ctx context.Context) (*version.Info, error) {
	raw, err := c.Core.RESTClient().Get().AbsPath("/version").Do(ctx).Raw()
	if err != nil {
		return nil, fmt.Errorf("reading /version of %s: %w", c.Host, err)
	}
	var v version.Info
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("reading /version of %s: %w", c.Host, err)
	}
	return &v, nil
}
