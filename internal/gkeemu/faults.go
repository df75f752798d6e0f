package gkeemu

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
)

// faults are the failures a test has asked for, for the calls about one cluster or (under the name "") about any.
// They are consumed in order, under s.mu.
type faults struct {
	// byMethod fails the next calls of an RPC (e.g. "CreateNodePool") before the emulator looks at them.
	byMethod map[string][]*apiError
	// stockouts makes the next creations of these node pools end in a GCE_STOCKOUT-style error, leaving the pool ERROR.
	stockouts map[string]int
	// scaleUpStockouts makes every scale-up of these node pools fail as a zone out of capacity does, until cleared.
	scaleUpStockouts map[string]bool
	// extraDelay is added to every new operation, to play a slow GKE.
	extraDelay time.Duration
}

func (f *faults) take(method string) *apiError {
	if f == nil {
		return nil
	}
	q := f.byMethod[method]
	if len(q) == 0 {
		return nil
	}
	f.byMethod[method] = q[1:]
	return q[0]
}

func (f *faults) takeStockout(pool string) bool {
	if f == nil || f.stockouts[pool] == 0 {
		return false
	}
	f.stockouts[pool]--
	return true
}

func (f *faults) pending(prefix string, out map[string]int) {
	if f == nil {
		return
	}
	for m, q := range f.byMethod {
		if len(q) > 0 {
			out[prefix+m] = len(q)
		}
	}
	for p, n := range f.stockouts {
		if n > 0 {
			out[prefix+"stockout:"+p] = n
		}
	}
}

// Faults injects failures into the calls about one cluster, and counts them. Tests that each inject into a cluster
// of their own run side by side: a fault one of them asked for never fails another's call.
type Faults struct {
	s *Server
	// cluster is the cluster's name (in any project and location); "" is every call, about any cluster or none.
	cluster string
}

// For is the fault injection and call counts of the calls about the named cluster: its node pools, its
// operations, its creation. "" is every call, as the Server's own methods are.
func (s *Server) For(cluster string) Faults { return Faults{s, cluster} }

// scope is the faults set for the cluster, made on first use; callers hold s.mu.
func (f Faults) scope() *faults {
	if f.s.faults == nil {
		f.s.faults = map[string]*faults{}
	}
	sc := f.s.faults[f.cluster]
	if sc == nil {
		sc = &faults{byMethod: map[string][]*apiError{}, stockouts: map[string]int{}, scaleUpStockouts: map[string]bool{}}
		f.s.faults[f.cluster] = sc
	}
	return sc
}

// FailNext makes the next n calls of method (an RPC name such as "CreateNodePool" or "GetOperation") fail with the
// HTTP status and message, before the emulator acts on them. An empty message gets a stock one for the status.
func (f Faults) FailNext(method string, n int, httpStatus int, message string) {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	sc := f.scope()
	code := codeForHTTP(httpStatus)
	if message == "" {
		message = stockMessage(code)
	}
	for i := 0; i < n; i++ {
		sc.byMethod[method] = append(sc.byMethod[method], &apiError{httpCode: httpStatus, code: code, message: message})
	}
}

// Pending is how many injected failures of each method are still waiting to be served: a test that injected
// them checks it reaches zero, so it knows every fault was met. For "" it is every cluster's, a cluster's own
// keyed "CLUSTER/METHOD".
func (f Faults) Pending() map[string]int {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	out := map[string]int{}
	if f.cluster != "" {
		f.s.faults[f.cluster].pending("", out)
		return out
	}
	for c, sc := range f.s.faults {
		if c == "" {
			sc.pending("", out)
		} else {
			sc.pending(c+"/", out)
		}
	}
	return out
}

// Stockout makes the next n creations of the named node pool fail the way a zone without capacity does.
func (f Faults) Stockout(pool string, n int) {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	f.scope().stockouts[pool] += n
}

// StockoutScaleUps makes every autoscaler scale-up of the named node pool fail, as in a zone without capacity, until
// called again with false. Pool creation is unaffected (see Stockout).
func (f Faults) StockoutScaleUps(pool string, on bool) {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	f.scope().scaleUpStockouts[pool] = on
}

// SlowOperations adds d to the duration of every operation started from now on.
func (f Faults) SlowOperations(d time.Duration) {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	f.scope().extraDelay = d
}

// Clear drops every pending fault; for "" every cluster's too.
func (f Faults) Clear() {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	if f.cluster == "" {
		f.s.faults = nil
		return
	}
	delete(f.s.faults, f.cluster)
}

// Calls returns how many times each API method was called about the cluster, by its RPC name (e.g. "ListNodePools").
func (f Faults) Calls() map[string]int {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	out := maps.Clone(f.s.calls[f.cluster])
	if out == nil {
		out = map[string]int{} // the admin API answers {}, not null, before the first call
	}
	return out
}

// ResetCalls sets the call counts back to zero; for "" every cluster's too.
func (f Faults) ResetCalls() {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	if f.cluster == "" {
		f.s.calls = map[string]map[string]int{}
		return
	}
	delete(f.s.calls, f.cluster)
}

// The Server's own methods act on every call ("").

// FailNext is For("").FailNext.
func (s *Server) FailNext(method string, n int, httpStatus int, message string) {
	s.For("").FailNext(method, n, httpStatus, message)
}

// PendingFaults is For("").Pending.
func (s *Server) PendingFaults() map[string]int { return s.For("").Pending() }

// Stockout is For("").Stockout.
func (s *Server) Stockout(pool string, n int) { s.For("").Stockout(pool, n) }

// StockoutScaleUps is For("").StockoutScaleUps.
func (s *Server) StockoutScaleUps(pool string, on bool) { s.For("").StockoutScaleUps(pool, on) }

// SlowOperations is For("").SlowOperations.
func (s *Server) SlowOperations(d time.Duration) { s.For("").SlowOperations(d) }

// ClearFaults drops every pending fault, of every cluster.
func (s *Server) ClearFaults() { s.For("").Clear() }

// Calls returns how many times each API method was called, by its RPC name (e.g. "ListNodePools").
func (s *Server) Calls() map[string]int { return s.For("").Calls() }

// ResetCalls sets every call count back to zero.
func (s *Server) ResetCalls() { s.For("").ResetCalls() }

// takeFault is the fault that fails this call about cluster: the cluster's own first, then one for any call.
// Callers hold s.mu.
func (s *Server) takeFault(method, cluster string) *apiError {
	if cluster != "" {
		if e := s.faults[cluster].take(method); e != nil {
			return e
		}
	}
	return s.faults[""].take(method)
}

// countCall counts a call among every call, and among its cluster's. Callers hold s.mu.
func (s *Server) countCall(method, cluster string) {
	keys := []string{""}
	if cluster != "" {
		keys = append(keys, cluster)
	}
	for _, c := range keys {
		if s.calls[c] == nil {
			s.calls[c] = map[string]int{}
		}
		s.calls[c][method]++
	}
}

// takeStockout reports whether this creation of the cluster's pool is to stock out. Callers hold s.mu.
func (s *Server) takeStockout(cluster, pool string) bool {
	return s.faults[cluster].takeStockout(pool) || s.faults[""].takeStockout(pool)
}

// ScaleUpStockedOut reports whether StockoutScaleUps holds the pool's scale-ups: one for the cluster's or for any.
func (f Faults) ScaleUpStockedOut(pool string) bool {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	for _, c := range []string{f.cluster, ""} {
		if sc := f.s.faults[c]; sc != nil && sc.scaleUpStockouts[pool] {
			return true
		}
	}
	return false
}

// ScaleUpStockedOut is For("").ScaleUpStockedOut.
func (s *Server) ScaleUpStockedOut(pool string) bool { return s.For("").ScaleUpStockedOut(pool) }

// extraDelay is what SlowOperations adds to the cluster's operations. Callers hold s.mu.
func (s *Server) extraDelay(cluster string) time.Duration {
	d := s.faults[""].delay()
	if cluster != "" {
		d += s.faults[cluster].delay()
	}
	return d
}

func (f *faults) delay() time.Duration {
	if f == nil {
		return 0
	}
	return f.extraDelay
}

func stockMessage(c codes.Code) string {
	switch c {
	case codes.ResourceExhausted:
		return "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute' of service 'container.googleapis.com'."
	case codes.Unavailable:
		return "The service is currently unavailable."
	case codes.Unauthenticated:
		return unauthenticatedMessage
	default:
		return "Internal error encountered."
	}
}

// adminPrefix serves fault injection and call counts to tests that run the emulator in another process.
const adminPrefix = "/emulator/v1/"

func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Method   string `json:"method"`
		Count    int    `json:"count"`
		HTTPCode int    `json:"httpCode"`
		Message  string `json:"message"`
		Pool     string `json:"pool"`
		Delay    string `json:"delay"`
		Mode     string `json:"mode"`
		Cluster  string `json:"cluster"`
		// edit's
		Name  string          `json:"name"`
		Field string          `json:"field"`
		Value json.RawMessage `json:"value"`
	}
	if r.Method == http.MethodPost {
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil && err.Error() != "EOF" {
			writeError(w, invalid("bad admin request: %v", err))
			return
		}
	}
	if body.Count == 0 {
		body.Count = 1
	}
	if r.Method == http.MethodGet {
		body.Cluster = r.URL.Query().Get("cluster")
	}
	// Faults and counts are every call's, or with "cluster" that cluster's alone.
	scope := s.For(body.Cluster)
	switch strings.TrimPrefix(r.URL.Path, adminPrefix) {
	case "calls":
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(scope.Calls())
		return
	case "calls:reset":
		scope.ResetCalls()
	case "faults":
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(scope.Pending())
			return
		}
		if body.Method == "" {
			writeError(w, invalid(`faults wants {"method": RPC NAME such as "CreateNodePool"}, with optional "cluster", "count" (1), "httpCode" (503) and "message"`))
			return
		}
		if body.HTTPCode == 0 {
			body.HTTPCode = http.StatusServiceUnavailable
		}
		scope.FailNext(body.Method, body.Count, body.HTTPCode, body.Message)
	case "faults:clear":
		scope.Clear()
	case "stockouts":
		if body.Pool == "" {
			writeError(w, invalid(`stockouts wants {"pool": NAME}, with optional "cluster" and "count" (1)`))
			return
		}
		scope.Stockout(body.Pool, body.Count)
	case "scaleUpStockouts":
		if body.Pool == "" || (body.Mode != "on" && body.Mode != "off") {
			writeError(w, invalid(`scaleUpStockouts wants {"pool": NAME, "mode": "on" or "off"}, got pool %q, mode %q`, body.Pool, body.Mode))
			return
		}
		scope.StockoutScaleUps(body.Pool, body.Mode == "on")
	case "dws":
		if !slices.Contains(DWSModes, DWSMode(body.Mode)) {
			writeError(w, invalid(`dws wants "mode": "provision", "pending", "fail", "expire" or "revoke", got %q`, body.Mode))
			return
		}
		// Without a delay, the one the simulator runs with stays (localstack -dws-delay, 3 s by default).
		delay := keepDelay
		if body.Delay != "" {
			d, err := time.ParseDuration(body.Delay)
			if err != nil || d < 0 {
				writeError(w, invalid(`bad delay %q: want a duration such as "3s"`, body.Delay))
				return
			}
			delay = d
		}
		if body.Cluster != "" {
			if !s.SetClusterDWS(body.Cluster, DWSMode(body.Mode), delay) {
				writeError(w, errorf(codes.NotFound, "no single emulated cluster named %q", body.Cluster))
				return
			}
			break
		}
		s.mu.Lock()
		sims := append([]*DWS(nil), s.dws...)
		s.mu.Unlock()
		if len(sims) == 0 {
			writeError(w, invalid("no DWS simulator running"))
			return
		}
		for _, d := range sims {
			d.SetMode(DWSMode(body.Mode), delay)
		}
	case "edit":
		if err := s.Edit(body.Name, body.Field, body.Value); err != nil {
			writeError(w, invalid("edit: %v", err))
			return
		}
	case "operations:settle":
		s.Settle()
	case "operationDelay", "slowOperations":
		d, err := time.ParseDuration(body.Delay)
		if err != nil || d < 0 {
			writeError(w, invalid(`%s wants {"delay": DURATION such as "2s"}, got %q`, strings.TrimPrefix(r.URL.Path, adminPrefix), body.Delay))
			return
		}
		if strings.HasSuffix(r.URL.Path, "operationDelay") {
			s.SetOperationDelay(d)
		} else {
			scope.SlowOperations(d)
		}
	default:
		writeError(w, errorf(codes.NotFound, "no admin endpoint %s", r.URL.Path))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// BreakPool puts the cluster's existing node pool into ERROR with a GKE-style message, as GKE does when a pool's
// instance group fails (or when a recreation during a stockout failed); for "" the pool of every cluster that has
// one. Its nodes stay. It returns how many pools it broke.
func (f Faults) BreakPool(pool, message string) int {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	n := 0
	for _, c := range f.s.clusters {
		if f.cluster != "" && c.pb.Name != f.cluster {
			continue
		}
		for _, np := range c.pb.NodePools {
			if np.Name == pool {
				np.Status, np.StatusMessage = containerpb.NodePool_ERROR, message
				n++
			}
		}
	}
	return n
}
