package localstack

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"
)

// Restart is one exit of a stack component that nobody asked for, and the start that followed it. Every component
// should run until its stack stops, so each one is a bug to find, not a recovery to rely on.
type Restart struct {
	// Component is the process's name, behind its cluster's name on a control plane started beside the first one
	// ("tpu-worker-a/kueue").
	Component string `json:"component"`
	// Plane is the cluster whose control plane it belongs to, "" on the first control plane.
	Plane string    `json:"plane,omitempty"`
	At    time.Time `json:"at"`
	// Exit is how it ended ("exit status 1", "signal: killed"); LastLine the last line it logged, which says why.
	Exit     string `json:"exit"`
	LastLine string `json:"lastLine"`
	Log      string `json:"log"`
}

func (r Restart) String() string {
	return fmt.Sprintf("%s %s exited (%s); last line of %s: %s", r.At.Format(time.RFC3339), r.Component, r.Exit, r.Log, r.LastLine)
}

// restartLog is every restart of one stack and the control planes started beside it, also appended to a file as
// JSON lines, so that a person (and `make local-down`) can read it while the stack runs and after it stopped.
type restartLog struct {
	path string
	mu   sync.Mutex
	all  []Restart
}

func newRestartLog(path string) (*restartLog, error) {
	// An empty file says "none yet"; its absence would say "not recorded".
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		return nil, err
	}
	return &restartLog{path: path}, nil
}

func (l *restartLog) add(r Restart) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, r)
	b, _ := json.Marshal(r) // plain strings and a time
	f, err := os.OpenFile(l.path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer func() { _ = f.Close() }()
	_, _ = f.Write(append(b, '\n'))
}

func (l *restartLog) list() []Restart {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Restart{}, l.all...) // none is [], also on the admin API
}

// Restarts lists the components of this stack, and of the control planes started beside it, that exited without
// being asked to and were started again. Restart.Plane tells them apart (see Plane).
func (s *Stack) Restarts() []Restart {
	if s.restarts == nil {
		return nil
	}
	return s.restarts.list()
}

// RestartLogPath is the file the restarts are appended to, one JSON object a line.
func (s *Stack) RestartLogPath() string {
	if s.restarts == nil {
		return ""
	}
	return s.restarts.path
}

// supervise records p's exit, should it end without being asked to, and starts it again after a pause that grows
// with each restart of the same component: a component that cannot start does not spin.
func (s *Stack) supervise(p *process) {
	p.watch(func(p *process) {
		if s.stopping.Load() {
			return
		}
		name := p.name
		if s.opts.plane != "" {
			name = s.opts.plane + "/" + name
		}
		exit := "exited"
		if p.err != nil {
			exit = p.err.Error()
		}
		s.restarts.add(Restart{Component: name, Plane: s.opts.plane, At: time.Now().UTC(), Exit: exit, LastLine: p.lastLine(), Log: p.log})
		s.restarting.Add(1)
		go s.restart(p, name)
	})
}

// restart starts p again after its pause, and goes on trying (each failure recorded) until it starts, p is stopped
// or replaced meanwhile, or the stack stops; Stop waits for it.
func (s *Stack) restart(p *process, name string) {
	defer s.restarting.Done()
	for {
		s.procMu.Lock()
		n := s.restartCount[p.name]
		s.restartCount[p.name] = n + 1
		s.procMu.Unlock()
		pause := time.Second << min(n, 5) // 1 s, 2 s, ... 32 s
		select {
		case <-s.done:
			return
		case <-time.After(pause):
		}
		if !s.current(p) {
			return
		}
		np, err := startProcessEnv(p.env, p.dir, p.name, p.bin, p.args...)
		if err != nil {
			s.restarts.add(Restart{Component: name, Plane: s.opts.plane, At: time.Now().UTC(), Exit: "not started again: " + err.Error(), Log: p.log})
			continue
		}
		if p.stopped.Load() || !s.replace(p, np) {
			np.stop(10 * time.Second) // stopped on purpose, or replaced, while this one started
			return
		}
		s.supervise(np)
		return
	}
}

// current is whether p still stands for its component: not stopped on purpose, not replaced, the stack not stopping.
func (s *Stack) current(p *process) bool {
	if s.stopping.Load() || p.stopped.Load() {
		return false
	}
	s.procMu.Lock()
	for _, q := range s.procs {
		if q == p {
			s.procMu.Unlock()
			return true
		}
	}
	s.procMu.Unlock()
	s.rayMu.Lock()
	defer s.rayMu.Unlock()
	return s.rayOperator == p
}

// replace puts np where p was, unless the stack stops or p was replaced meanwhile.
func (s *Stack) replace(p, np *process) bool {
	if s.stopping.Load() {
		return false
	}
	s.procMu.Lock()
	for i := range s.procs {
		if s.procs[i] == p {
			s.procs[i] = np
			s.procMu.Unlock()
			return true
		}
	}
	s.procMu.Unlock()
	s.rayMu.Lock()
	defer s.rayMu.Unlock()
	if s.rayOperator == p {
		s.rayOperator = np
		return true
	}
	return false
}

// addProc adds a process started by Start; superviseAll watches it once the stack is up.
func (s *Stack) addProc(p *process) {
	s.procMu.Lock()
	defer s.procMu.Unlock()
	s.procs = append(s.procs, p)
}

// Plane is the cluster a control plane started beside the first one serves, and "" for the first one, as
// Restart.Plane names it.
func (s *Stack) Plane() string { return s.opts.plane }

// PID is the process id of the named component (kueue, kube-scheduler, ...), 0 when none runs under that name.
func (s *Stack) PID(component string) int {
	if p := s.proc(component); p != nil {
		return p.cmd.Process.Pid
	}
	return 0
}
