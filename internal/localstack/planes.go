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
// one cluster at a time (the tutorial's demo) starts nothing more. Every other cluster gets at once an
// endpoint of its own, a TLS front on loopback with a CA of its own, and behind it a control plane, taken on the
// cluster's first request: a cluster nobody talks to (GKE-only tests) costs one listening socket. That control plane
// is one a deleted cluster left, emptied, when GKEOptions.SparePlanes keeps them; else a new one.
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
	spares []*plane          // control planes that serve no cluster, emptied
	live   map[*plane]bool   // every plane started beside the primary and not stopped
	seq    int
	ending bool // stopAll has begun: a closing front's plane stops

	closing sync.WaitGroup // fronts of deleted clusters still closing

	versionMu   sync.Mutex
	versionJSON []byte // the primary's /version, once read
}

// plane is a control plane started beside the primary: it serves one cluster at a time, behind that cluster's
// front, and its DWS, autoscaler and add-ons follow whichever cluster that is.
type plane struct {
	p      *planes
	stk    *Stack
	base   *baseline
	ca     *keyPair // the CA its API server serves with: the one of the first cluster it served
	cancel context.CancelFunc
	dir    string

	mu     sync.Mutex
	holder string
}

func (pl *plane) holds(cluster string) bool {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.holder == cluster
}

func (pl *plane) serve(cluster string) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.holder = cluster
}

func (pl *plane) stop() {
	pl.p.mu.Lock()
	delete(pl.p.live, pl)
	pl.p.mu.Unlock()
	pl.cancel()
	pl.stk.Stop()
	_ = os.RemoveAll(pl.dir)
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
// removes the deleted cluster's nodes from it); any other cluster's endpoint closes, and its control plane is kept
// for the next cluster when it was emptied and a spare is wanted, or stops with its data.
func (p *planes) Close(cluster string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.holder == cluster {
		p.holder = ""
		return
	}
	if f := p.fronts[cluster]; f != nil {
		delete(p.fronts, cluster)
		p.closing.Add(1)
		go func() {
			defer p.closing.Done()
			f.close()
		}()
	}
}

// Empty implements gkeemu.Emptier: a stack that outlives the cluster it served (the primary, a plane kept as a
// spare) is emptied of what that cluster held (its nodes, namespaces, Kueue's objects, ...) before the next one gets
// it.
func (p *planes) Empty(cluster string) error {
	ctx, cancel := context.WithTimeout(p.ctx, 2*time.Minute)
	defer cancel()
	if p.holds(cluster) {
		if p.base == nil {
			return nil
		}
		return p.primary.empty(ctx, p.base, 10*time.Second)
	}
	p.mu.Lock()
	f := p.fronts[cluster]
	wanted := len(p.spares) < p.gke.SparePlanes
	p.mu.Unlock()
	if f == nil || !wanted {
		return nil
	}
	pl := f.plane()
	if pl == nil {
		return nil
	}
	// The cluster is STOPPING: nothing may write to it while it is emptied, neither a client through the front nor
	// the emulator's DWS, autoscaler and add-on, or the spare would keep what they wrote.
	f.draining.Store(true)
	pl.serve("")
	if err := pl.stk.empty(ctx, pl.base, 10*time.Second); err != nil {
		return err
	}
	f.emptied.Store(true)
	return nil
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
	if pl := f.plane(); pl != nil {
		return pl.stk
	}
	return nil
}

// takeSpare hands a kept control plane to the cluster, nil when none is kept.
func (p *planes) takeSpare(cluster string) *plane {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.spares) == 0 {
		return nil
	}
	pl := p.spares[len(p.spares)-1]
	p.spares = p.spares[:len(p.spares)-1]
	pl.serve(cluster)
	return pl
}

// keep makes an emptied control plane a spare, false when enough are kept or the stack is stopping.
func (p *planes) keep(pl *plane) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ending || len(p.spares) >= p.gke.SparePlanes {
		return false
	}
	pl.serve("")
	p.spares = append(p.spares, pl)
	return true
}

func (p *planes) stopAll() {
	p.mu.Lock()
	fs, spares := p.fronts, p.spares
	p.fronts, p.spares, p.ending = map[string]*front{}, nil, true
	p.mu.Unlock()
	for _, f := range fs {
		f.close()
	}
	p.closing.Wait()
	for _, pl := range spares {
		pl.stop()
	}
}

// front is a cluster's endpoint while its control plane is not the primary stack: it terminates TLS with the
// cluster's own CA and forwards every request, credentials untouched, to the cluster's API server.
type front struct {
	p        *planes
	cluster  string
	seq      int
	endpoint string
	ca       *keyPair
	serving  *keyPair
	srv      *http.Server

	// ctx ends when the cluster is deleted, which stops a start under way.
	ctx      context.Context
	cancel   context.CancelFunc
	once     sync.Once
	begun    atomic.Bool
	ready    chan struct{}
	pl       *plane
	err      error
	proxy    *httputil.ReverseProxy
	cert     atomic.Pointer[tls.Certificate]
	emptied  atomic.Bool // Empty left the plane as the cluster found it
	draining atomic.Bool // Empty has begun: no request reaches the plane any more
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
	f := &front{p: p, cluster: cluster, seq: seq, ca: ca, serving: serving, endpoint: ln.Addr().String(), ready: make(chan struct{})}
	f.cert.Store(&cert)
	f.ctx, f.cancel = context.WithCancel(p.ctx)
	f.srv = &http.Server{Handler: f, ReadHeaderTimeout: 30 * time.Second,
		TLSConfig: &tls.Config{MinVersion: tls.VersionTLS12,
			GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return f.cert.Load(), nil }}}
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
	if f.draining.Load() {
		http.Error(w, fmt.Sprintf("the cluster %s is being deleted", lastSegment(f.cluster)), http.StatusServiceUnavailable)
		return
	}
	// A request of the deleted cluster's (a watch, an exec stream) ends with it: its plane may serve another next.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(f.ctx, cancel)()
	f.proxy.ServeHTTP(w, r.WithContext(ctx))
}

// start gives the cluster a control plane: a spare, or a new one that runs as the primary stack runs (same
// binaries, same accepted tokens) with the emulator playing GKE's part for the cluster it serves.
func (f *front) start() {
	defer close(f.ready)
	if f.ctx.Err() != nil {
		f.err = errClosed
		return
	}
	pl := f.p.takeSpare(f.cluster)
	if pl == nil {
		var err error
		if pl, err = f.newPlane(); err != nil {
			f.err = err
			return
		}
	}
	if pl.ca != f.ca {
		// A spare's API server serves with the CA of the first cluster it served, which is also the ca.crt of its
		// service account tokens: the front sends this cluster's CA signed by that one beside its certificate, so
		// that clients that trust either (GetCluster's CA, a kubeconfig made from a token Secret) trust the front.
		cross, err := pl.ca.crossSign(f.ca)
		if err != nil {
			f.err = err
			f.p.release(pl)
			return
		}
		cert, err := tls.X509KeyPair(append(append([]byte(nil), f.serving.cert...), cross...), f.serving.key)
		if err != nil {
			f.err = err
			f.p.release(pl)
			return
		}
		f.cert.Store(&cert)
	}
	stk := pl.stk
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
	f.pl = pl
}

// newPlane starts a control plane for the cluster, with the cluster's CA.
func (f *front) newPlane() (*plane, error) {
	o := f.p.primary.opts
	o.Dir = filepath.Join(f.p.primary.dir, "planes", fmt.Sprintf("%d-%s", f.seq, lastSegment(f.cluster)))
	o.AuditLog, o.NoKueue, o.ca = false, false, f.ca
	o.plane, o.restarts = lastSegment(f.cluster), f.p.primary.restarts
	sctx, scancel := context.WithTimeout(f.ctx, 5*time.Minute)
	defer scancel()
	stk, err := Start(sctx, o)
	if err != nil {
		return nil, err
	}
	base, err := stk.recordBaseline(sctx)
	if err != nil {
		stk.Stop()
		return nil, err
	}
	pl := &plane{p: f.p, stk: stk, base: base, ca: f.ca, dir: o.Dir, holder: f.cluster}
	f.p.mu.Lock()
	f.p.live[pl] = true
	f.p.mu.Unlock()
	// The plane's DWS, autoscaler and add-on outlive this cluster when the plane is kept for the next.
	gctx, cancel := context.WithCancel(f.p.ctx)
	pl.cancel = cancel
	if err := stk.serveGKE(gctx, f.p.emu, f.p.gke, pl.holds); err != nil {
		pl.stop()
		return nil, err
	}
	return pl, nil
}

// release keeps a plane the cluster will not use, or stops it: it serves nothing of the cluster's.
func (p *planes) release(pl *plane) {
	if !p.keep(pl) {
		pl.stop()
	}
}

// plane is the control plane once it serves.
func (f *front) plane() *plane {
	select {
	case <-f.ready:
		return f.pl
	default:
		return nil
	}
}

func (f *front) close() {
	f.cancel() // a start under way gives up, and stops what it started; requests under way end
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = f.srv.Shutdown(ctx)
	_ = f.srv.Close()
	f.once.Do(func() { f.err = errClosed; close(f.ready) }) // never started: nothing to wait for
	<-f.ready
	if f.pl == nil {
		return
	}
	if f.emptied.Load() && f.p.keep(f.pl) {
		return
	}
	f.pl.stop()
}

func lastSegment(key string) string {
	return key[strings.LastIndex(key, "/")+1:]
}

// ClusterStack is the control plane serving the emulated cluster (projects/P/locations/L/clusters/C): this stack, or
// the one behind the cluster's endpoint; nil when the cluster has not been reached yet.
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
	defer s.planes.mu.Unlock()
	for pl := range s.planes.live {
		out = append(out, pl.stk)
	}
	return out
}

// ClusterPlane is the control plane serving the emulated cluster, given it now when nobody has reached the cluster
// yet (as a first request to its endpoint would).
func (s *Stack) ClusterPlane(ctx context.Context, cluster string) (*Stack, error) {
	p := s.planes
	if p == nil {
		return nil, errors.New("the stack serves no emulated clusters")
	}
	p.mu.Lock()
	if p.holder == cluster {
		p.mu.Unlock()
		return s, nil
	}
	f := p.fronts[cluster]
	p.mu.Unlock()
	if f == nil {
		return nil, fmt.Errorf("no cluster %s", cluster)
	}
	f.once.Do(func() { f.begun.Store(true); go f.start() })
	select {
	case <-f.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if f.err != nil {
		return nil, f.err
	}
	return f.pl.stk, nil
}
