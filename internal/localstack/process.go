package localstack

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// process is one child of the stack, in a process group of its own so that stopping it stops what it started.
type process struct {
	name string
	dir  string
	bin  string
	args []string
	env  []string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error

	// stopped is set by stop: an exit after it was asked for. Any other exit is reported to onExit, once.
	stopped  atomic.Bool
	exitMu   sync.Mutex
	onExit   func(*process)
	reported bool
}

func startProcess(dir, name, bin string, args ...string) (*process, error) {
	return startProcessEnv(nil, dir, name, bin, args...)
}

// startProcessEnv starts bin with env added to this process's environment.
func startProcessEnv(env []string, dir, name, bin string, args ...string) (*process, error) {
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting %s (%s): %w", name, bin, err)
	}
	p := &process{name: name, dir: dir, bin: bin, args: args, env: env, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = logFile.Close()
		close(p.done)
		p.report()
	}()
	return p, nil
}

// watch calls f when the process exits without having been stopped, also when it already has.
func (p *process) watch(f func(*process)) {
	p.exitMu.Lock()
	p.onExit = f
	p.exitMu.Unlock()
	if p.exited() {
		p.report()
	}
}

func (p *process) report() {
	p.exitMu.Lock()
	f := p.onExit
	if f == nil || p.reported || p.stopped.Load() {
		p.exitMu.Unlock()
		return
	}
	p.reported = true
	p.exitMu.Unlock()
	f(p)
}

// stop ends the process group: SIGTERM, then SIGKILL after grace.
func (p *process) stop(grace time.Duration) {
	if p == nil || p.cmd.Process == nil {
		return
	}
	p.stopped.Store(true)
	pgid := -p.cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(pgid, syscall.SIGKILL)
		<-p.done
	}
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// lastLine is the last line of the process's log that is not blank.
func (p *process) lastLine() string {
	t := p.tail()
	return t[strings.LastIndex(t, "\n")+1:]
}

// tail returns the end of the process's log, for error messages.
func (p *process) tail() string {
	b, _ := os.ReadFile(p.log)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return strings.Join(lines, "\n")
}

// waitReady polls url until it answers 200, the process dies, or ctx ends.
func waitReady(ctx context.Context, p *process, url string, client *http.Client, header http.Header) error {
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		for k, v := range header {
			req.Header[k] = v
		}
		resp, err := client.Do(req)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if p.exited() {
			tail := p.tail()
			if strings.Contains(tail, "address already in use") {
				return fmt.Errorf("%w: %s exited before it was ready; end of %s:\n%s", errPortTaken, p.name, p.log, tail)
			}
			return fmt.Errorf("%s exited before it was ready (%w); end of %s:\n%s", p.name, p.err, p.log, tail)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready at %s: %w; end of %s:\n%s", p.name, url, errors.Join(ctx.Err(), err), p.log, p.tail())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func tlsClient(caPEM []byte) *http.Client {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
}

// errPortTaken: a child could not bind a port claimPorts picked, as a process that is not a stack took it first.
var errPortTaken = errors.New("a port picked for the control plane was taken before it was bound")

func itoa(i int) string { return strconv.Itoa(i) }
