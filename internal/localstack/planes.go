package localstack

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
)

// planes gives every emulated cluster a control plane of its own, as GKE gives each cluster its master. The stack
// that AttachGKE was called on serves one cluster at a time: the first one created while it is free, so a run with
// one cluster at a time (the demo, the serial tests) starts nothing more. Every other cluster gets at once an
// endpoint of its own, a TLS front on loopback with a CA of its own, and behind it a control plane of its own, started
// on the cluster's first request: a cluster nobody talks to (GKE-only tests) costs one listening socket.
type planes struct {
	ctx     context.Context
	emu     *gkeemu.Server
	gke     GKEOptions
	primary *Stack

	// base is what the primary stack held before serving any cluster: a deleted holder's contents are what is
	// beyond it.
	base *baseline

	mu     sync.Mutex
	holder string            // the cluster the primary stack serves, "" while it is free
	fronts map[string]*front // the other clusters, by key
	seq    int

	versionMu   sync.Mutex
	versionJSON []byte // the primary's /version, once read
}

// Open implements gkeemu.ControlPlanes.
func (p *planes) Open(cluster string) (string, string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.holder == "" {
		p.holder = cluster
		return p.primary.Endpoint, p.primary.CABase64(), nil
	}
	p.seq++
	f, err := p.newFront(cluster, p.seq)
	if err != nil {
		return "", "", err
	}
	p.fronts[cluster] = f
	return f.endpoint, base64.StdEncoding.EncodeToString(f.ca.cert), nil
}

// Close implements gkeemu.ControlPlanes: the primary stack is free for the next cluster (the emulator's autoscaler
// removes the deleted cluster's nodes from it); any other cluster's control plane stops, and its data goes.
func (p *planes) Close(cluster string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.holder == cluster {
		p.holder = ""
		return
	}
	if f := p.fronts[cluster]; f != nil {
		delete(p.fronts, cluster)
		go f.close()
	}
}

// Empty implements gkeemu.Emptier: the primary stack outlives the cluster it served, so what that cluster held
// (its nodes, namespaces, Kueue's objects, ...) is deleted before the next one gets the stack. Another cluster's
// control plane goes with its data when it closes.
func (p *planes) Empty(cluster string) error {
	if !p.holds(cluster) || p.base == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(p.ctx, 2*time.Minute)
	defer cancel()
	return p.primary.empty(ctx, p.base, 10*time.Second)
}

// holds is the scope of the primary stack's DWS, autoscaler and add-ons.
func (p *planes) holds(cluster string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.holder == cluster
}

// stack is the control plane serving the cluster, nil when none has started.
func (p *planes) stack(cluster string) *Stack {
	p.mu.Lock()
	if p.holder == cluster {
		p.mu.Unlock()
		return p.primary
	}
	f := p.fronts[cluster]
	p.mu.Unlock()
	if f == nil {
		return nil
	}
	return f.started()
}

func (p *planes) stopAll() {
	p.mu.Lock()
	fs := p.fronts
	p.fronts = map[string]*front{}
	p.mu.Unlock()
	for _, f := range fs {
		f.close()
	}
}

// front is a cluster's endpoint while its control plane is not the primary stack: it terminates TLS with the
// cluster's own CA and forwards every request, credentials untouched, to the cluster's API server.
type front struct {
	p        *planes
	cluster  string
	dir      string
	endpoint string
	ca       *keyPair
	srv      *http.Server

	// ctx ends when the cluster is deleted, which stops a start under way.
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once
	begun  atomic.Bool
	ready  chan struct{}
	stk    *Stack
	err    error
	proxy  *httputil.ReverseProxy
}

var errClosed = errors.New("the cluster was deleted")

// version is the primary API server's /version, read once it answers.
func (p *planes) version(ctx context.Context) ([]byte, error) {
	p.versionMu.Lock()
	defer p.versionMu.Unlock()
	if p.versionJSON != nil {
		return p.versionJSON, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := rest.HTTPClientFor(p.primary.RESTConfig())
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.primary.Host+"/version", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("/version: %s", resp.Status)
	}
	v, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	p.versionJSON = v
	return v, nil
}

func (p *planes) newFront(cluster string, seq int) (*front, error) {
	ca, err := newCA("gke-emulator-" + lastSegment(cluster))
	if err != nil {
		return nil, err
	}
	serving, err := ca.serving("kube-apiserver", "kubernetes", "kubernetes.default", "kubernetes.default.svc")
	if err != nil {
		return nil, err
	}
	cert, err := tls.X509KeyPair(serving.cert, serving.key)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &front{p: p, cluster: cluster, ca: ca, endpoint: ln.Addr().String(), ready: make(chan struct{}),
		dir: filepath.Join(p.primary.dir, "planes", fmt.Sprintf("%d-%s", seq, lastSegment(cluster)))}
	f.ctx, f.cancel = context.WithCancel(p.ctx)
	f.srv = &http.Server{Handler: f, ReadHeaderTimeout: 30 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}
	go func() { _ = f.srv.ServeTLS(ln, "", "") }()
	return f, nil
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Every plane runs the primary's binaries, so the primary's /version is this one's: asking which Kubernetes a
	// cluster runs does not start its control plane.
	if r.Method == http.MethodGet && r.URL.Path == "/version" && !f.begun.Load() {
		if v, err := f.p.version(r.Context()); err == nil {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(v)
			return
		}
	}
	f.once.Do(func() { f.begun.Store(true); go f.start() })
	select {
	case <-f.ready:
	case <-r.Context().Done():
		return
	}
	if f.err != nil {
		http.Error(w, fmt.Sprintf("the control plane of %s did not start: %v", f.cluster, f.err), http.StatusServiceUnavailable)
		return
	}
	f.proxy.ServeHTTP(w, r)
}

// start runs the cluster's control plane as the primary stack runs (same binaries, same accepted tokens) with the
// emulator playing GKE's part for this cluster alone.
func (f *front) start() {
	defer close(f.ready)
	ctx := f.ctx
	o := f.p.primary.opts
	o.Dir, o.AuditLog, o.NoKueue, o.ca = f.dir, false, false, f.ca
	o.plane, o.restarts = lastSegment(f.cluster), f.p.primary.restarts
	sctx, scancel := context.WithTimeout(ctx, 5*time.Minute)
	defer scancel()
	stk, err := Start(sctx, o)
	if err != nil {
		f.err = err
		return
	}
	only := func(c string) bool { return c == f.cluster }
	if _, _, err := stk.serveGKE(ctx, f.p.emu, f.p.gke, only); err != nil {
		stk.Stop()
		f.err = err
		return
	}
	target, _ := url.Parse(stk.Host)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(stk.CAPEM)
	f.proxy = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = target.Host
		},
		Transport: &http.Transport{
			Proxy: nil, TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}, ForceAttemptHTTP2: true,
			MaxIdleConnsPerHost: 50, IdleConnTimeout: 90 * time.Second,
		},
		// Watches stream: every event is passed on at once.
		FlushInterval: -1,
	}
	f.stk = stk
}

// started is the control plane once it serves.
func (f *front) started() *Stack {
	select {
	case <-f.ready:
		return f.stk
	default:
		return nil
	}
}

func (f *front) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = f.srv.Shutdown(ctx)
	f.once.Do(func() { f.err = errClosed; close(f.ready) }) // never started: nothing to wait for
	f.cancel()                                              // a start under way gives up, and stops what it started
	<-f.ready
	if f.stk != nil {
		f.stk.Stop()
	}
	_ = os.RemoveAll(f.dir)
}

func lastSegment(key string) string {
	return key[strings.LastIndex(key, "/")+1:]
}

// ClusterStack is the control plane serving the emulated cluster (projects/P/locations/L/clusters/C): this stack, or
// the one started for the cluster; nil when the cluster has not been reached yet.
func (s *Stack) ClusterStack(cluster string) *Stack {
	if s.planes == nil {
		return nil
	}
	return s.planes.stack(cluster)
}

// withPlanes is this stack and the control planes started beside it.
func (s *Stack) withPlanes() []*Stack {
	out := []*Stack{s}
	if s.planes == nil {
		return out
	}
	s.planes.mu.Lock()
	fs := make([]*front, 0, len(s.planes.fronts))
	for _, f := range s.planes.fronts {
		fs = append(fs, f)
	}
	s.planes.mu.Unlock()
	for _, f := range fs {
		if st := f.started(); st != nil {
			out = append(out, st)
		}
	}
	return out
}
