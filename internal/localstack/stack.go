// Package localstack runs a real Kubernetes control plane on loopback for the provider's demo and tests: etcd (Debian's
// etcd-server), kube-apiserver and kube-controller-manager built from k8s.io/kubernetes, the CRDs of Kueue, KubeRay
// and ProvisioningRequest from the module cache, and the real Kueue manager with its webhooks. Every process binds
// free loopback ports and is ended by PID (its process group) on Stop.
package localstack

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/dynamic"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/gkeemu"
)

// Options configure a stack.
type Options struct {
	// Dir holds the stack's data, certificates, configuration and logs. It is emptied first.
	Dir string
	// BinDir holds kube-apiserver, kube-controller-manager and kueue (see the GNUmakefile's stack-bins target).
	BinDir string
	// Repo is a folder inside this Go module, used to find the CRDs' modules in the module cache.
	Repo string
	// Tokens are bearer tokens the API server accepts as cluster admins, besides the stack's own: the provider's
	// Google access token goes here, as GKE accepts the caller's OAuth token.
	Tokens []string
	// Etcd is the etcd binary; empty means "etcd" on PATH (Debian's etcd-server).
	Etcd string
	// NoKueue stops after the Kubernetes control plane: no CRDs, no Kueue. A place to install Kueue's own chart,
	// whose webhooks would otherwise shadow the running Kueue's.
	NoKueue bool
	// AuditLog makes the API server write one JSON line per request (metadata only: verb, URI, user agent) to
	// Stack.AuditLogPath, so that benchmarks count requests where they arrive.
	AuditLog bool

	// ca, when set, signs the API server's serving certificate instead of a CA of the stack's own: a cluster's
	// control plane behind its front shares the front's CA, as a GKE cluster's tokens carry the CA its endpoint
	// serves with (ca.crt), which kubeconfigs made from a token Secret rely on.
	ca *keyPair
	// plane names a control plane started beside the first one (its cluster), and restarts is the first one's
	// record, which such a plane's restarts join.
	plane    string
	restarts *restartLog
}

// Stack is a running control plane.
type Stack struct {
	// Host is the API server's URL, https://127.0.0.1:PORT; Endpoint is 127.0.0.1:PORT, as GKE reports an endpoint.
	Host, Endpoint string
	// CAPEM is the CA that signed the API server's serving certificate.
	CAPEM []byte
	// AdminToken is a cluster-admin bearer token; Kubeconfig a kubectl configuration that uses it, for people and
	// their tools: gcloud and kubectl may rewrite it. The stack's own processes read componentKubeconfig, which
	// nothing else writes, so that a context gcloud adds (authenticating through gke-gcloud-auth-plugin) never
	// becomes theirs on a restart.
	AdminToken, Kubeconfig string
	componentKubeconfig    string
	// Timings records how long each phase took.
	Timings []Timing
	// AuditLogPath is the API server's audit log when Options.AuditLog is set.
	AuditLogPath string

	procMu       sync.Mutex
	procs        []*process
	restartCount map[string]int
	restarts     *restartLog
	// stopping is set, and done closed, when Stop begins: no restart after that.
	stopping   atomic.Bool
	done       chan struct{}
	stopOnce   sync.Once
	restarting sync.WaitGroup
	egress     *egressSink
	// rayOperator is KubeRay's operator while it runs (StartRayOperator); its ports are fixed at Start.
	rayMu                 sync.Mutex
	rayOperator           *process
	rayHealth, rayMetrics int
	kwokPort              int
	ports                 *portClaim
	dir, binDir           string
	// opts is how the stack started, for the control planes started beside it; planes is set by AttachGKE.
	opts   Options
	planes *planes
}

// Timing is how long one phase of Start took.
type Timing struct {
	Phase    string
	Duration time.Duration
}

// CABase64 is the CA as GKE reports masterAuth.clusterCaCertificate.
func (s *Stack) CABase64() string { return base64.StdEncoding.EncodeToString(s.CAPEM) }

// RESTConfig is an admin client configuration.
func (s *Stack) RESTConfig() *rest.Config {
	return &rest.Config{Host: s.Host, BearerToken: s.AdminToken, TLSClientConfig: rest.TLSClientConfig{CAData: s.CAPEM}, QPS: 100, Burst: 200}
}

// Start brings the control plane up and returns when Kueue is ready to serve. On error, whatever started is stopped.
func Start(ctx context.Context, o Options) (*Stack, error) {
	// The ports are claimed (ports.go), but a process that is not a stack may still bind one before the children
	// do. Such a start is made again on other ports.
	for attempt := 1; ; attempt++ {
		s, err := start(ctx, o)
		if err == nil || !errors.Is(err, errPortTaken) || attempt == 3 {
			return s, err
		}
	}
}

func start(ctx context.Context, o Options) (s *Stack, err error) {
	if err := os.RemoveAll(o.Dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, err
	}
	bins := []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok", "ray-operator", "kueue"}
	if o.NoKueue {
		bins = bins[:2]
	}
	for _, b := range bins {
		if _, err := os.Stat(filepath.Join(o.BinDir, b)); err != nil {
			return nil, fmt.Errorf("%s is not built in %s (run `make stack-bins`): %w", b, o.BinDir, err)
		}
	}
	etcdBin := o.Etcd
	if etcdBin == "" {
		if etcdBin, err = exec.LookPath("etcd"); err != nil {
			return nil, errors.New("etcd is not installed (apt-get install etcd-server)")
		}
	}
	s = &Stack{dir: o.Dir, binDir: o.BinDir, opts: o, restartCount: map[string]int{}, done: make(chan struct{}), restarts: o.restarts}
	if s.restarts == nil {
		if s.restarts, err = newRestartLog(filepath.Join(o.Dir, "restarts.log")); err != nil {
			return nil, err
		}
	}
	started := s // each error return sets s to nil
	defer func() {
		if err != nil {
			started.Stop()
		}
	}()
	phase := time.Now()
	mark := func(name string) {
		s.Timings = append(s.Timings, Timing{name, time.Since(phase)})
		phase = time.Now()
	}
	if s.ports, err = claimPorts(9); err != nil {
		return nil, err
	}
	ports := s.ports.ports
	etcdPort, peerPort, apiPort, healthPort, metricsPort, webhookPort := ports[0], ports[1], ports[2], ports[3], ports[4], ports[5]
	s.rayHealth, s.rayMetrics, s.kwokPort = ports[6], ports[7], ports[8]
	if s.egress, err = startEgressSink(); err != nil {
		return nil, err
	}

	// Certificates: the API server's CA and serving certificate, and the service-account signing key.
	ca := o.ca
	if ca == nil {
		if ca, err = newCA("dwsfallback-local-ca"); err != nil {
			return nil, err
		}
	}
	serving, err := ca.serving("kube-apiserver", "kubernetes", "kubernetes.default", "kubernetes.default.svc")
	if err != nil {
		return nil, err
	}
	sa, err := newCA("service-accounts")
	if err != nil {
		return nil, err
	}
	saPub, err := publicKeyPEM(sa)
	if err != nil {
		return nil, err
	}
	s.AdminToken, err = randomToken()
	if err != nil {
		return nil, err
	}
	tokens := fmt.Sprintf("%s,admin,admin,\"system:masters\"\n", s.AdminToken)
	for i, t := range o.Tokens {
		tokens += fmt.Sprintf("%s,google-user-%d,google-user-%d,\"system:masters\"\n", t, i, i)
	}
	files := map[string][]byte{
		"ca.crt": ca.cert, "apiserver.crt": serving.cert, "apiserver.key": serving.key,
		"sa.key": sa.key, "sa.pub": saPub, "tokens.csv": []byte(tokens),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(o.Dir, name), b, 0o600); err != nil {
			return nil, err
		}
	}
	f := func(name string) string { return filepath.Join(o.Dir, name) }

	etcd, err := startProcess(o.Dir, "etcd", etcdBin, "--name=local", "--data-dir="+f("etcd"),
		"--listen-client-urls=http://127.0.0.1:"+itoa(etcdPort), "--advertise-client-urls=http://127.0.0.1:"+itoa(etcdPort),
		"--listen-peer-urls=http://127.0.0.1:"+itoa(peerPort), "--initial-advertise-peer-urls=http://127.0.0.1:"+itoa(peerPort),
		"--initial-cluster=local=http://127.0.0.1:"+itoa(peerPort), "--unsafe-no-fsync", "--log-level=warn",
		// Progress notifications keep the API server's watch cache current while a resource sees no writes; without
		// them a watch opened "from now" can wait for the cache and fail with "Too large resource version".
		"--experimental-watch-progress-notify-interval=100ms")
	if err != nil {
		return nil, err
	}
	s.addProc(etcd)
	if err := waitReady(ctx, etcd, fmt.Sprintf("http://127.0.0.1:%d/health", etcdPort), http.DefaultClient, nil); err != nil {
		return nil, err
	}
	mark("etcd")

	var audit []string
	if o.AuditLog {
		if err := os.WriteFile(f("audit-policy.yaml"), []byte(auditPolicy), 0o600); err != nil {
			return nil, err
		}
		s.AuditLogPath = f("audit.log")
		audit = []string{"--audit-policy-file=" + f("audit-policy.yaml"), "--audit-log-path=" + s.AuditLogPath,
			"--audit-log-format=json", "--audit-log-mode=blocking", "--audit-log-maxsize=0"}
	}
	apiArgs := append([]string{"--etcd-servers=http://127.0.0.1:" + itoa(etcdPort), "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port=" + itoa(apiPort), "--tls-cert-file=" + f("apiserver.crt"), "--tls-private-key-file=" + f("apiserver.key"),
		"--client-ca-file=" + f("ca.crt"), "--service-cluster-ip-range=10.0.0.0/24", "--token-auth-file=" + f("tokens.csv"),
		"--authorization-mode=RBAC", "--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + f("sa.pub"), "--service-account-signing-key-file=" + f("sa.key"),
		// No node lifecycle controller runs to lift the not-ready taint that TaintNodesByCondition puts on new
		// nodes; kwok reports them Ready at once, which is what that taint would wait for.
		"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
		// Debian's etcd (3.4.23) cannot answer the progress requests that streaming watch-lists wait on: with the
		// feature on, such a watch hangs until it times out, and a client's informer lags by seconds. Off, clients are
		// refused at once and fall back to list and watch.
		"--feature-gates=WatchList=false", "--cert-dir=" + f("apiserver-certs")}, audit...)
	api, err := startProcess(o.Dir, "kube-apiserver", filepath.Join(o.BinDir, "kube-apiserver"), apiArgs...)
	if err != nil {
		return nil, err
	}
	s.addProc(api)
	s.CAPEM, s.Endpoint = ca.cert, fmt.Sprintf("127.0.0.1:%d", apiPort)
	s.Host = "https://" + s.Endpoint
	auth := http.Header{"Authorization": {"Bearer " + s.AdminToken}}
	if err := waitReady(ctx, api, s.Host+"/readyz", tlsClient(ca.cert), auth); err != nil {
		return nil, err
	}
	mark("kube-apiserver")

	s.Kubeconfig, s.componentKubeconfig = f("kubeconfig"), f("components.kubeconfig")
	for _, path := range []string{s.Kubeconfig, s.componentKubeconfig} {
		if err := os.WriteFile(path, []byte(s.kubeconfig()), 0o600); err != nil {
			return nil, err
		}
	}
	// job runs KubeRay's submitter; podgc removes the pods of nodes the emulator's autoscaler has deleted.
	startKCM := func() error {
		kcm, err := startProcessEnv(s.childEnv(), o.Dir, "kube-controller-manager", filepath.Join(o.BinDir, "kube-controller-manager"),
			"--kubeconfig="+s.componentKubeconfig, "--controllers=garbagecollector,namespace,serviceaccount-token,job,podgc",
			"--leader-elect=false", "--use-service-account-credentials=false", "--service-account-private-key-file="+f("sa.key"),
			"--secure-port=0")
		if err != nil {
			return err
		}
		s.addProc(kcm)
		return nil
	}
	if o.NoKueue {
		if err := startKCM(); err != nil {
			return nil, err
		}
		s.superviseAll()
		return s, nil
	}
	if err := s.startNodes(ctx); err != nil {
		return nil, err
	}
	mark("kube-scheduler, kwok")

	cfg := s.RESTConfig()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	core, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	crds, err := crdFiles(o.Repo)
	if err != nil {
		return nil, err
	}
	// GKE installs the ComputeClass CRD on every cluster.
	if err := os.WriteFile(f("computeclass-crd.yaml"), gkeemu.ComputeClassCRD, 0o600); err != nil {
		return nil, err
	}
	crds = append(crds, f("computeclass-crd.yaml"))
	webhookURL := fmt.Sprintf("https://127.0.0.1:%d", webhookPort)
	kcerts, err := newKueueCerts()
	if err != nil {
		return nil, err
	}
	if err := installCRDs(ctx, dyn, crds, webhookURL, kcerts.ca.cert); err != nil {
		return nil, err
	}
	mark("CRDs")
	// After the CRDs, as on GKE, where they are there before anyone deletes a job: the garbage collector watches the
	// resources its discovery found at start, and others only from its next discovery, up to 30 s later. Started
	// before them, it left the Workloads of a deleted RayJob uncollected that long on a new control plane.
	if err := startKCM(); err != nil {
		return nil, err
	}

	kueueDir, err := moduleDir(o.Repo, KueueModule)
	if err != nil {
		return nil, err
	}
	if err := prepareKueue(ctx, core, dyn, kueueDir, f("kueue-certs"), kcerts, webhookURL); err != nil {
		return nil, err
	}
	if err := os.WriteFile(f("kueue-config.yaml"), []byte(kueueConfig(healthPort, metricsPort, webhookPort, f("kueue-certs"))), 0o600); err != nil {
		return nil, err
	}
	kueue, err := startProcessEnv(s.childEnv(), o.Dir, "kueue", filepath.Join(o.BinDir, "kueue"), "--config="+f("kueue-config.yaml"), "--kubeconfig="+s.componentKubeconfig)
	if err != nil {
		return nil, err
	}
	s.addProc(kueue)
	if err := waitReady(ctx, kueue, fmt.Sprintf("http://127.0.0.1:%d/readyz", healthPort), http.DefaultClient, nil); err != nil {
		return nil, err
	}
	mark("kueue")
	s.superviseAll()
	return s, nil
}

// superviseAll watches every process once the stack has started: an exit before that fails the start instead.
func (s *Stack) superviseAll() {
	s.procMu.Lock()
	procs := append([]*process(nil), s.procs...)
	s.procMu.Unlock()
	for _, p := range procs {
		s.supervise(p)
	}
}

// Stop ends every process, newest first.
func (s *Stack) Stop() {
	s.stopping.Store(true)
	s.stopOnce.Do(func() { close(s.done) })
	if s.planes != nil {
		s.planes.stopAll()
	}
	s.StopRayOperator()
	s.procMu.Lock()
	procs := s.procs
	s.procs = nil
	s.procMu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].stop(10 * time.Second)
	}
	s.restarting.Wait()
	if s.egress != nil {
		s.egress.stop()
	}
	if s.ports != nil {
		s.ports.release()
	}
}

// running is every process of the stack, KubeRay's operator included while it runs.
func (s *Stack) running() []*process {
	s.procMu.Lock()
	out := append([]*process(nil), s.procs...)
	s.procMu.Unlock()
	s.rayMu.Lock()
	defer s.rayMu.Unlock()
	if s.rayOperator != nil {
		out = append(out, s.rayOperator)
	}
	return out
}

// PIDs are the processes' ids, for callers that record them.
func (s *Stack) PIDs() []int {
	s.procMu.Lock()
	defer s.procMu.Unlock()
	var out []int
	for _, p := range s.procs {
		out = append(out, p.cmd.Process.Pid)
	}
	return out
}

func (s *Stack) kubeconfig() string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: admin
  user:
    token: %s
contexts:
- name: local
  context: {cluster: local, user: admin, namespace: default}
current-context: local
`, s.Host, s.CABase64(), s.AdminToken)
}

// StopAPIServer stops the kube-apiserver, as a control-plane upgrade or crash does; clients get connection refused
// until StartAPIServer.
func (s *Stack) StopAPIServer() {
	if p := s.proc("kube-apiserver"); p != nil {
		p.stop(10 * time.Second)
	}
}

// StartAPIServer starts the stopped kube-apiserver again, with the same port and data, and waits until it is ready.
func (s *Stack) StartAPIServer(ctx context.Context) error {
	p := s.proc("kube-apiserver")
	if p == nil {
		return errors.New("no kube-apiserver in this stack")
	}
	if !p.exited() {
		return errors.New("the kube-apiserver runs: StopAPIServer first")
	}
	np, err := startProcessEnv(p.env, p.dir, p.name, p.bin, p.args...)
	if err != nil {
		return err
	}
	if !s.replace(p, np) {
		np.stop(10 * time.Second)
		return errors.New("the stack stopped")
	}
	s.supervise(np)
	return waitReady(ctx, np, s.Host+"/readyz", tlsClient(s.CAPEM), http.Header{"Authorization": {"Bearer " + s.AdminToken}})
}

func (s *Stack) proc(name string) *process {
	s.procMu.Lock()
	defer s.procMu.Unlock()
	for _, p := range s.procs {
		if p.name == name {
			return p
		}
	}
	return nil
}

// auditPolicy logs every request once, when its response is complete, without bodies.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted"]
rules:
- level: Metadata
`
