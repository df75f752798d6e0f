// Package gkeemu emulates the GKE v1 REST API (the JSON wire format of containerpb) closely enough that the real gcloud
// CLI and cloud.google.com/go/container's REST client cannot tell it from GKE for the calls the DWS fallback setup makes:
// clusters, node pools, long-running operations, GKE's validation and error shapes. It also carries fault injection
// for tests. It never imports provider code: it stands in for GKE and must not share the provider's assumptions, beyond
// the TPU hardware catalog.
package gkeemu

import (
	"crypto/rsa"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"k8s.io/apimachinery/pkg/types"
)

// Options configure an emulator.
type Options struct {
	// OperationDelay is how long an operation stays PENDING/RUNNING before it is DONE.
	OperationDelay time.Duration
	// Tokens, when not empty, are the bearer tokens accepted; any other caller gets 401 UNAUTHENTICATED.
	// Empty accepts anonymous callers (gcloud with auth/disable_credentials).
	Tokens []string
	// ClusterEndpoint and ClusterCACertificate (base64 PEM, as GKE reports it) are what new clusters report, so that an
	// emulated cluster can point at a real local kube-apiserver.
	ClusterEndpoint      string
	ClusterCACertificate string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Server is an in-memory GKE. The zero value is not usable; call New.
type Server struct {
	opts Options

	mu       sync.Mutex
	clusters map[string]*cluster // by projects/P/locations/L/clusters/C
	ops      map[string]*operation
	opOrder  []string
	// calls counts the calls served by method, for every call (under "") and by the cluster they are about.
	calls map[string]map[string]int
	// faults are what tests injected, by the cluster they fail the calls of ("" for any call).
	faults map[string]*faults
	nextID int
	table  map[routeKey]route
	dws    []*DWS
	// planes gives clusters their control planes; nil points every cluster at opts.ClusterEndpoint.
	planes ControlPlanes
	// dwsByCluster is the DWS behaviour set for one cluster on the admin API.
	dwsByCluster map[string]dwsSetting
	// provisioned records, per ProvisioningRequest, the nodes DWS provisioned for it in each pool.
	provisioned map[types.UID]map[string]int
	// serviceAccounts may sign token requests; issued are the access tokens handed out, with their expiry.
	serviceAccounts map[string]*rsa.PublicKey
	issued          map[string]time.Time
	// extraAdmin are admin routes of what runs beside the emulator (the local stack's restarts), by name.
	extraAdmin map[string]http.Handler
	// reservations are the Compute Engine reservations pools may consume, by zone/name.
	reservations map[string]*Reservation
	images       map[string]bool // by projects/P/global/images/NAME
}

type cluster struct {
	pb      *containerpb.Cluster
	project string
	running []*operation
	// nodeCounts is what the autoscaler (or setSize) has put in each pool; the v1 NodePool message has no field for it.
	nodeCounts map[string]int
}

// New returns an emulator with no clusters.
func New(opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ClusterEndpoint == "" {
		opts.ClusterEndpoint = "127.0.0.1"
	}
	if opts.ClusterCACertificate == "" {
		opts.ClusterCACertificate = placeholderCA()
	}
	s := &Server{
		opts:     opts,
		clusters: map[string]*cluster{},
		ops:      map[string]*operation{},
		calls:    map[string]map[string]int{},
	}
	s.table = s.routes()
	return s
}

// SetOperationDelay changes how long new operations take.
func (s *Server) SetOperationDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.OperationDelay = d
}

// SetClusterEndpoint makes clusters created from now on (and existing ones) report this endpoint and CA.
func (s *Server) SetClusterEndpoint(endpoint, caCertificate string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.ClusterEndpoint, s.opts.ClusterCACertificate = endpoint, caCertificate
	for _, c := range s.clusters {
		c.pb.Endpoint = endpoint
		c.pb.MasterAuth = &containerpb.MasterAuth{ClusterCaCertificate: caCertificate}
	}
}

// route is one API method: its RPC name and the handler that serves it. Handlers run with s.mu held.
type route struct {
	method  string
	handler func(r *request) (proto.Message, *apiError)
}

type request struct {
	http  *http.Request
	body  []byte
	parts []string // path segments after /v1/
	verb  string   // custom method after ':' in the last segment, e.g. "setAutoscaling"
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, adminPrefix) {
		s.mu.Lock()
		h := s.extraAdmin[strings.TrimPrefix(r.URL.Path, adminPrefix)]
		s.mu.Unlock()
		switch {
		case h != nil:
			h.ServeHTTP(w, r)
		case r.URL.Path == adminPrefix+"reservations":
			s.serveReservations(w, r)
		case r.URL.Path == adminPrefix+"images":
			s.serveImages(w, r)
		default:
			s.serveAdmin(w, r)
		}
		return
	}
	if r.URL.Path == TokenPath {
		s.serveToken(w, r)
		return
	}
	if e := s.authenticate(r); e != nil {
		writeError(w, e)
		return
	}
	if strings.HasPrefix(r.URL.Path, computePrefix) {
		s.serveCompute(w, r)
		return
	}
	path, ok := strings.CutPrefix(r.URL.Path, "/v1/")
	if !ok {
		writeError(w, errorf(codes.NotFound, "The requested URL %s was not found on this server.", r.URL.Path))
		return
	}
	req := &request{http: r, parts: strings.Split(strings.TrimSuffix(path, "/"), "/")}
	last := req.parts[len(req.parts)-1]
	if i := strings.IndexByte(last, ':'); i >= 0 {
		req.parts[len(req.parts)-1], req.verb = last[:i], last[i+1:]
	}
	rt, e := s.match(r.Method, req)
	if e != nil {
		writeError(w, e)
		return
	}
	if r.Body != nil {
		req.body, _ = io.ReadAll(r.Body)
	}

	s.mu.Lock()
	cluster := s.clusterOf(rt.method, req)
	s.countCall(rt.method, cluster)
	if e := s.takeFault(rt.method, cluster); e != nil {
		s.mu.Unlock()
		writeError(w, e)
		return
	}
	msg, e := rt.handler(req)
	var out []byte
	if e == nil {
		// Marshal under the lock: the message may be live emulator state that a finishing operation mutates.
		// GKE honours the client's "$alt=json;enum-encoding=int", which the Go REST client sends.
		enumInt := strings.Contains(r.URL.RawQuery, "enum-encoding=int") || strings.Contains(r.URL.RawQuery, "enum-encoding%3Dint")
		out, _ = protojson.MarshalOptions{UseEnumNumbers: enumInt}.Marshal(msg)
	}
	s.mu.Unlock()
	if e != nil {
		writeError(w, e)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_, _ = w.Write(out)
}

func (s *Server) authenticate(r *http.Request) *apiError {
	if len(s.opts.Tokens) == 0 {
		return nil
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if ok {
		for _, t := range s.opts.Tokens {
			if token == t {
				return nil
			}
		}
		s.mu.Lock()
		expiry, issued := s.issued[token]
		s.mu.Unlock()
		if issued && s.opts.Now().Before(expiry) {
			return nil
		}
	}
	return errorf(codes.Unauthenticated, unauthenticatedMessage)
}

// clusterOf names the cluster a call is about, "" for a call about none (ListClusters). Callers hold s.mu.
func (s *Server) clusterOf(method string, r *request) string {
	p := r.parts
	switch {
	case len(p) >= 6 && p[4] == "clusters":
		return p[5]
	case len(p) >= 6 && p[4] == "operations":
		if op := s.ops[p[5]]; op != nil && op.cluster != nil {
			return op.cluster.pb.Name
		}
	case method == "CreateCluster":
		var body struct {
			Cluster struct {
				Name string `json:"name"`
			} `json:"cluster"`
		}
		if json.Unmarshal(r.body, &body) == nil {
			return body.Cluster.Name
		}
	}
	return ""
}

// match finds the API method for a request path. Paths follow the v1 HTTP rules of google.container.v1.ClusterManager
// (projects/*/locations/*/...), plus the two Service Usage reads that gcloud makes before creating a cluster.
func (s *Server) match(method string, r *request) (route, *apiError) {
	p := r.parts
	unknown := errorf(codes.NotFound, "The requested URL /v1/%s was not found on this server.", strings.Join(p, "/"))
	if len(p) == 4 && p[0] == "projects" && p[2] == "services" && method == http.MethodGet {
		return route{"GetService", s.getService}, nil
	}
	if len(p) < 5 || p[0] != "projects" || p[2] != "locations" {
		return route{}, unknown
	}
	rt, ok := s.table[routeKey{pathShape(p[4:]), method, r.verb}]
	if !ok {
		for k := range s.table {
			if k.shape == pathShape(p[4:]) && k.verb == r.verb {
				return route{}, errorf(codes.Unimplemented, "gkeemu: the emulator does not serve %s on /v1/%s; that path takes other HTTP methods.", method, strings.Join(p, "/"))
			}
		}
		return route{}, unknown
	}
	return rt, nil
}

type routeKey struct{ shape, method, verb string }

// pathShape names a path below a location by its collections: clusters/C/nodePools is "clusters/nodePools[]" (a
// collection), clusters/C/nodePools/NP is "clusters/nodePools" (one object).
func pathShape(rest []string) string {
	var names []string
	for i := 0; i < len(rest); i += 2 {
		names = append(names, rest[i])
	}
	shape := strings.Join(names, "/")
	if len(rest)%2 == 1 {
		shape += "[]"
	}
	return shape
}

func (s *Server) routes() map[routeKey]route {
	return map[routeKey]route{
		{"serverConfig[]", "GET", ""}:                    {"GetServerConfig", s.getServerConfig},
		{"clusters[]", "GET", ""}:                        {"ListClusters", s.listClusters},
		{"clusters[]", "POST", ""}:                       {"CreateCluster", s.createCluster},
		{"clusters", "GET", ""}:                          {"GetCluster", s.getCluster},
		{"clusters", "PUT", ""}:                          {"UpdateCluster", s.updateCluster},
		{"clusters", "DELETE", ""}:                       {"DeleteCluster", s.deleteCluster},
		{"clusters", "POST", "setAddons"}:                {"SetAddonsConfig", s.setAddons},
		{"clusters", "POST", "setResourceLabels"}:        {"SetLabels", s.setResourceLabels},
		{"clusters/nodePools[]", "GET", ""}:              {"ListNodePools", s.listNodePools},
		{"clusters/nodePools[]", "POST", ""}:             {"CreateNodePool", s.createNodePool},
		{"clusters/nodePools", "GET", ""}:                {"GetNodePool", s.getNodePool},
		{"clusters/nodePools", "PUT", ""}:                {"UpdateNodePool", s.updateNodePool},
		{"clusters/nodePools", "DELETE", ""}:             {"DeleteNodePool", s.deleteNodePool},
		{"clusters/nodePools", "POST", "setAutoscaling"}: {"SetNodePoolAutoscaling", s.setNodePoolAutoscaling},
		{"clusters/nodePools", "POST", "setSize"}:        {"SetNodePoolSize", s.setNodePoolSize},
		{"clusters/nodePools", "POST", "setManagement"}:  {"SetNodePoolManagement", s.setNodePoolManagement},
		{"operations[]", "GET", ""}:                      {"ListOperations", s.listOperations},
		{"operations", "GET", ""}:                        {"GetOperation", s.getOperation},
		{"operations", "POST", "cancel"}:                 {"CancelOperation", s.cancelOperation},
	}
}

// HandleAdmin serves h at /emulator/v1/NAME, beside the emulator's own admin routes, for what runs with the
// emulator and reports on the same endpoint (the local stack's component restarts).
func (s *Server) HandleAdmin(name string, h http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.extraAdmin == nil {
		s.extraAdmin = map[string]http.Handler{}
	}
	s.extraAdmin[name] = h
}

// unauthenticatedMessage is Google's front end's 401 (kubernetes-sigs/external-dns#2055, kubeflow/kubeflow#4985).
const unauthenticatedMessage = "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
