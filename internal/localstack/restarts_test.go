package localstack

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func sleeperStack(t *testing.T) *Stack {
	t.Helper()
	dir := t.TempDir()
	s := &Stack{dir: dir, restartCount: map[string]int{}, done: make(chan struct{})}
	var err error
	if s.restarts, err = newRestartLog(filepath.Join(dir, "restarts.log")); err != nil {
		t.Fatal(err)
	}
	p, err := startProcess(dir, "sleeper", "sleep", "300")
	if err != nil {
		t.Fatal(err)
	}
	s.addProc(p)
	s.superviseAll()
	t.Cleanup(s.Stop)
	return s
}

// A component that dies is recorded with how it ended and started again; one stopped on purpose is neither.
func TestSuperviseRecordsAndRestarts(t *testing.T) {
	s := sleeperStack(t)
	first := s.proc("sleeper")
	if err := syscall.Kill(first.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.proc("sleeper") == first && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	second := s.proc("sleeper")
	if second == first || second.exited() {
		t.Fatalf("sleeper was not started again")
	}
	got := s.Restarts()
	if len(got) != 1 || got[0].Component != "sleeper" || got[0].Exit != "signal: killed" || got[0].Log != first.log {
		t.Fatalf("Restarts() = %+v, want one of sleeper, signal: killed", got)
	}
	b, err := os.ReadFile(s.RestartLogPath())
	if err != nil || strings.Count(string(b), "\n") != 1 || !strings.Contains(string(b), `"component":"sleeper"`) {
		t.Errorf("restart log = %q, %v; want one JSON line", b, err)
	}

	// StopAPIServer's way: stopped on purpose, so neither recorded nor started again.
	second.stop(time.Second)
	time.Sleep(1500 * time.Millisecond)
	if s.proc("sleeper") != second || len(s.Restarts()) != 1 {
		t.Errorf("a stop on purpose was restarted or recorded: %+v", s.Restarts())
	}
	// StartAPIServer's way: the one stopped on purpose is replaced by a new one, which is supervised.
	third, err := startProcess(s.dir, "sleeper", "sleep", "300")
	if err != nil {
		t.Fatal(err)
	}
	if !s.replace(second, third) || s.proc("sleeper") != third {
		t.Fatalf("a process stopped on purpose could not be started again in its place")
	}
}

// Stop ends a restart still waiting out its pause.
func TestStopCancelsPendingRestart(t *testing.T) {
	s := sleeperStack(t)
	first := s.proc("sleeper")
	_ = syscall.Kill(first.cmd.Process.Pid, syscall.SIGKILL)
	<-first.done
	s.Stop()
	time.Sleep(1500 * time.Millisecond)
	if n := len(s.running()); n != 0 {
		t.Errorf("%d processes run after Stop", n)
	}
}
