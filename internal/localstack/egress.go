package localstack

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// egressSink is the HTTP(S) proxy every child of the stack is given. Nothing on the local stack may reach beyond
// loopback, and the one client known to dial out, KubeRay's dashboard client, dials a Service's DNS name
// (HEAD-SVC.NS.svc.cluster.local:8265): through a proxy, Go's HTTP client neither resolves that name nor connects to
// it, so no DNS query leaves the machine either. The sink records each attempt and refuses it: no Ray head runs here.
type egressSink struct {
	srv *http.Server
	url string

	mu       sync.Mutex
	attempts []string
}

func startEgressSink() (*egressSink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	e := &egressSink{url: "http://" + ln.Addr().String()}
	e.srv = &http.Server{Handler: e, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = e.srv.Serve(ln) }()
	return e, nil
}

func (e *egressSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	target := r.Host
	if r.Method != http.MethodConnect {
		target = r.URL.String()
	}
	e.mu.Lock()
	e.attempts = append(e.attempts, r.Method+" "+target)
	e.mu.Unlock()
	http.Error(w, "the local stack does not reach beyond loopback, and no Ray head runs on it (its pods are kwok's, no container runs): "+target, http.StatusBadGateway)
}

// env is what points a child's HTTP clients at the sink. Go never proxies loopback addresses, so the API server and
// webhooks stay direct.
func (e *egressSink) env() []string {
	return []string{"HTTP_PROXY=" + e.url, "HTTPS_PROXY=" + e.url, "http_proxy=" + e.url, "https_proxy=" + e.url,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost"}
}

func (e *egressSink) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = e.srv.Shutdown(ctx)
}

// EgressAttempts lists the requests the stack's processes tried to send beyond loopback, as "METHOD URL" (or
// "CONNECT host:port"); the sink refused every one of them.
// The control planes started for other clusters (see AttachGKE) count as the stack's.
func (s *Stack) EgressAttempts() []string {
	var out []string
	for _, st := range s.withPlanes() {
		if st.egress == nil {
			continue
		}
		st.egress.mu.Lock()
		out = append(out, st.egress.attempts...)
		st.egress.mu.Unlock()
	}
	return out
}

// EgressMark is how many attempts each sink of the stack (its other clusters' control planes included) had recorded.
type EgressMark map[*egressSink]int

// EgressMark marks what the sinks hold now, for EgressSince.
func (s *Stack) EgressMark() EgressMark {
	m := EgressMark{}
	for _, st := range s.withPlanes() {
		if st.egress != nil {
			st.egress.mu.Lock()
			m[st.egress] = len(st.egress.attempts)
			st.egress.mu.Unlock()
		}
	}
	return m
}

// EgressSince is what the sinks recorded after mark: all of it for a control plane started since.
func (s *Stack) EgressSince(mark EgressMark) []string {
	var out []string
	for _, st := range s.withPlanes() {
		if st.egress == nil {
			continue
		}
		st.egress.mu.Lock()
		out = append(out, st.egress.attempts[mark[st.egress]:]...)
		st.egress.mu.Unlock()
	}
	return out
}

// NonLoopbackSockets lists the open sockets of the stack's processes whose remote address is outside 127.0.0.0/8
// (or ::1), the other clusters' control planes included: a snapshot from /proc, empty when every connection stays on
// loopback.
func (s *Stack) NonLoopbackSockets() ([]string, error) {
	remote, err := procSockets()
	if err != nil {
		return nil, err
	}
	var out []string
	var procs []*process
	for _, st := range s.withPlanes() {
		procs = append(procs, st.running()...)
	}
	for _, p := range procs {
		fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", p.cmd.Process.Pid))
		if err != nil {
			continue // the process has just exited
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", p.cmd.Process.Pid), fd.Name()))
			if err != nil || !strings.HasPrefix(link, "socket:[") {
				continue
			}
			inode := strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")
			if addr, ok := remote[inode]; ok && !addr.IP.IsLoopback() && !addr.IP.IsUnspecified() {
				out = append(out, fmt.Sprintf("%s (pid %d) -> %s", p.name, p.cmd.Process.Pid, addr))
			}
		}
	}
	return out, nil
}

// procSockets maps socket inodes to their remote addresses, from the network namespace's TCP and UDP tables.
func procSockets() (map[string]*net.TCPAddr, error) {
	out := map[string]*net.TCPAddr{}
	for _, table := range []string{"tcp", "tcp6", "udp", "udp6"} {
		f, err := os.Open("/proc/net/" + table)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 {
				continue
			}
			if addr, err := parseProcAddr(fields[2]); err == nil {
				out[fields[9]] = addr
			}
		}
		_ = f.Close()
	}
	return out, nil
}

// parseProcAddr reads /proc/net's "0100007F:1F90": the address in the kernel's byte order, 32-bit words little-endian.
func parseProcAddr(s string) (*net.TCPAddr, error) {
	host, port, ok := strings.Cut(s, ":")
	if !ok {
		return nil, fmt.Errorf("bad address %q", s)
	}
	raw, err := hex.DecodeString(host)
	if err != nil || len(raw)%4 != 0 {
		return nil, fmt.Errorf("bad address %q", s)
	}
	for i := 0; i < len(raw); i += 4 {
		raw[i], raw[i+1], raw[i+2], raw[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	p, err := strconv.ParseUint(port, 16, 16)
	if err != nil {
		return nil, err
	}
	return &net.TCPAddr{IP: net.IP(raw), Port: int(p)}, nil
}

// childEnv is the environment every child of the stack gets beyond this process's: the egress sink as its proxy.
func (s *Stack) childEnv() []string { return s.egress.env() }
