package gkeemu

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
)

// faults are the failures a test has asked for. They are consumed in order, under s.mu.
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
	q := f.byMethod[method]
	if len(q) == 0 {
		return nil
	}
	f.byMethod[method] = q[1:]
	return q[0]
}

func (f *faults) takeStockout(pool string) bool {
	if f.stockouts[pool] == 0 {
		return false
	}
	f.stockouts[pool]--
	return true
}

// FailNext makes the next n calls of method (an RPC name such as "CreateNodePool" or "GetOperation") fail with the
// HTTP status and message, before the emulator acts on them. An empty message gets a stock one for the status.
func (s *Server) FailNext(method string, n int, httpStatus int, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults.byMethod == nil {
		s.faults.byMethod = map[string][]*apiError{}
	}
	code := codeForHTTP(httpStatus)
	if message == "" {
		message = stockMessage(code)
	}
	for i := 0; i < n; i++ {
		s.faults.byMethod[method] = append(s.faults.byMethod[method], &apiError{httpCode: httpStatus, code: code, message: message})
	}
}

// PendingFaults is how many injected failures of each method are still waiting to be served: a test that injected
// them checks it reaches zero, so it knows every fault was met.
func (s *Server) PendingFaults() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for m, q := range s.faults.byMethod {
		if len(q) > 0 {
			out[m] = len(q)
		}
	}
	for p, n := range s.faults.stockouts {
		if n > 0 {
			out["stockout:"+p] = n
		}
	}
	return out
}

// Stockout makes the next n creations of the named node pool fail the way a zone without capacity does.
func (s *Server) Stockout(pool string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults.stockouts == nil {
		s.faults.stockouts = map[string]int{}
	}
	s.faults.stockouts[pool] += n
}

// SlowOperations adds d to the duration of every operation started from now on.
func (s *Server) SlowOperations(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.extraDelay = d
}

// ClearFaults drops every pending fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = faults{}
}

func stockMessage(c codes.Code) string {
	switch c {
	case codes.ResourceExhausted:
		return "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute' of service 'container.googleapis.com'."
	case codes.Unavailable:
		return "The service is currently unavailable."
	case codes.Unauthenticated:
		return "Request had invalid authentication credentials."
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
	switch strings.TrimPrefix(r.URL.Path, adminPrefix) {
	case "calls":
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.Calls())
		return
	case "calls:reset":
		s.ResetCalls()
	case "faults":
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(s.PendingFaults())
			return
		}
		if body.Method == "" {
			writeError(w, invalid(`faults wants {"method": RPC NAME such as "CreateNodePool"}, with optional "count" (1), "httpCode" (503) and "message"`))
			return
		}
		if body.HTTPCode == 0 {
			body.HTTPCode = http.StatusServiceUnavailable
		}
		s.FailNext(body.Method, body.Count, body.HTTPCode, body.Message)
	case "faults:clear":
		s.ClearFaults()
	case "stockouts":
		if body.Pool == "" {
			writeError(w, invalid(`stockouts wants {"pool": NAME}, with optional "count" (1)`))
			return
		}
		s.Stockout(body.Pool, body.Count)
	case "scaleUpStockouts":
		if body.Pool == "" || (body.Mode != "on" && body.Mode != "off") {
			writeError(w, invalid(`scaleUpStockouts wants {"pool": NAME, "mode": "on" or "off"}, got pool %q, mode %q`, body.Pool, body.Mode))
			return
		}
		s.StockoutScaleUps(body.Pool, body.Mode == "on")
	case "dws":
		if m := DWSMode(body.Mode); m != DWSProvision && m != DWSFail && m != DWSPending {
			writeError(w, invalid(`dws wants "mode": "provision", "fail" or "pending", got %q`, body.Mode))
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
			s.SlowOperations(d)
		}
	default:
		writeError(w, errorf(codes.NotFound, "no admin endpoint %s", r.URL.Path))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// StockoutScaleUps makes every autoscaler scale-up of the named node pool fail, as in a zone without capacity, until
// called again with false. Pool creation is unaffected (see Stockout).
func (s *Server) StockoutScaleUps(pool string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults.scaleUpStockouts == nil {
		s.faults.scaleUpStockouts = map[string]bool{}
	}
	s.faults.scaleUpStockouts[pool] = on
}

// ScaleUpStockedOut reports whether StockoutScaleUps holds the pool's scale-ups.
func (s *Server) ScaleUpStockedOut(pool string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults.scaleUpStockouts[pool]
}

// BreakPool puts an existing node pool of every cluster that has one into ERROR with a GKE-style message, as GKE
// does when a pool's instance group fails (or when a recreation during a stockout failed). Its nodes stay.
func (s *Server) BreakPool(pool, message string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.clusters {
		for _, np := range c.pb.NodePools {
			if np.Name == pool {
				np.Status, np.StatusMessage = containerpb.NodePool_ERROR, message
				n++
			}
		}
	}
	return n
}
