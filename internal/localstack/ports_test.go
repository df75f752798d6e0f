package localstack

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Stacks started at once get ports of their own, none where the kernel picks source ports and port-0 listeners.
func TestClaimPortsDisjointOutsideEphemeralRange(t *testing.T) {
	const stacks = 8
	claims := make([]*portClaim, stacks)
	errs := make([]error, stacks)
	var wg sync.WaitGroup
	for i := range claims {
		wg.Add(1)
		go func() {
			defer wg.Done()
			claims[i], errs[i] = claimPorts(9)
		}()
	}
	wg.Wait()
	lo, hi := claimRange()
	seen := map[int]bool{}
	for i, c := range claims {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		t.Cleanup(c.release)
		for _, p := range c.ports {
			if seen[p] {
				t.Errorf("port %d claimed twice", p)
			}
			seen[p] = true
			if p < lo || p > hi {
				t.Errorf("port %d outside %d-%d", p, lo, hi)
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		var eLo, eHi int
		if _, err := fmt.Sscan(string(b), &eLo, &eHi); err == nil && lo <= eHi && hi >= eLo {
			t.Skipf("the ephemeral range %d-%d leaves too few ports outside it: claims come from %d-%d, kept apart by their locks alone", eLo, eHi, lo, hi)
		}
	}
}

// A port is not claimed while anything listens on it or another process holds its lock, and is once released.
func TestLockPortSkipsHeldPorts(t *testing.T) {
	// A claimed port, outside the ephemeral range: only this test binds it while the claim lasts.
	c, err := claimPorts(1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.release)
	port, dir := c.ports[0], t.TempDir()
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := lockPort(dir, port); err != nil || ok {
		t.Fatalf("port %d with a listener: claimed=%v err=%v, want neither", port, ok, err)
	}
	_ = l.Close()
	f, ok, err := lockPort(dir, port)
	if err != nil || !ok {
		t.Fatalf("port %d, free: claimed=%v err=%v, want claimed", port, ok, err)
	}
	_ = f.Close()

	flock, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("no flock(1) to hold a lock from another process")
	}
	lockFile := filepath.Join(dir, strconv.Itoa(port))
	// flock(1)'s command inherits the lock, so both go, as a process group.
	holder := exec.Command(flock, "--exclusive", lockFile, "sleep", "300")
	holder.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	end := func() {
		once.Do(func() { _ = syscall.Kill(-holder.Process.Pid, syscall.SIGKILL); _ = holder.Wait() })
	}
	t.Cleanup(end)
	held := func() bool {
		f, ok, err := lockPort(dir, port)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			_ = f.Close()
		}
		return !ok
	}
	deadline := time.Now().Add(10 * time.Second)
	for !held() {
		if time.Now().After(deadline) {
			t.Fatal("flock(1) never took the lock")
		}
		time.Sleep(20 * time.Millisecond)
	}
	end()
	// The sleep's lock goes when the kernel has ended it, which Wait does not wait for.
	for deadline = time.Now().Add(10 * time.Second); held(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("port %d still held after the other process ended", port)
		}
	}
}
