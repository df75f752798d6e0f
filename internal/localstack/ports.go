package localstack

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A port handed to a child is free when picked and bound a moment later, and bound again on every restart. Two
// things took such ports before: another stack picking the same port once this one let go of it (the kernel hands a
// released port to the next listener on port 0), and a client's outgoing connection using it as its source port.
// So ports are picked outside the kernel's ephemeral range, where neither happens, and each is claimed by a lock on
// a file for as long as its stack lives, which keeps every other stack, in this process or another, off it. The
// kernel drops the lock when the process ends, so a killed test leaves no claim behind. The lock files stay (one
// empty file per port ever tried, so at most one per port of the range): removing one while another process opens
// it would let two processes lock two different files of one name.

// portClaim is a set of loopback ports claimed for one stack.
type portClaim struct {
	ports []int
	locks []*os.File
}

// claimPorts claims n loopback ports that nothing listens on.
func claimPorts(n int) (*portClaim, error) {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("dwsfallback-ports-%d", os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	lo, hi := claimRange()
	c := &portClaim{}
	start := lo + rand.IntN(hi-lo+1) //nolint:gosec // spreads stacks over the range; nothing secret
	for i := 0; i <= hi-lo && len(c.ports) < n; i++ {
		port := lo + (start-lo+i)%(hi-lo+1)
		f, ok, err := lockPort(dir, port)
		if err != nil {
			c.release()
			return nil, err
		}
		if !ok {
			continue
		}
		c.ports = append(c.ports, port)
		c.locks = append(c.locks, f)
	}
	if len(c.ports) < n {
		c.release()
		return nil, fmt.Errorf("no %d free loopback ports in %d-%d (claims in %s)", n, lo, hi, dir)
	}
	return c, nil
}

// lockPort claims port when no other stack holds its lock and nothing listens on it.
func lockPort(dir string, port int) (*os.File, bool, error) {
	f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(port)), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, false, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, err
	}
	if !bindable(port) {
		_ = f.Close()
		return nil, false, nil
	}
	return f, true, nil
}

// bindable says whether a listener could bind the loopback port now: a process that is not a stack may hold it.
func bindable(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}

// release lets other stacks claim the ports; call it once the children that bound them have stopped.
func (c *portClaim) release() {
	for _, f := range c.locks {
		_ = f.Close()
	}
	c.locks = nil
}

// claimRange is from 10000 to just below the kernel's ephemeral range, or from just above it to 65535 when too few
// ports lie below.
func claimRange() (lo, hi int) {
	ephLo, ephHi := 32768, 60999
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			a, errA := strconv.Atoi(f[0])
			z, errZ := strconv.Atoi(f[1])
			if errA == nil && errZ == nil && a <= z {
				ephLo, ephHi = a, z
			}
		}
	}
	const floor, minSpan = 10000, 2000
	if ephLo-floor >= minSpan {
		return floor, ephLo - 1
	}
	if 65535-ephHi >= minSpan {
		return ephHi + 1, 65535
	}
	return floor, 65535 // the ephemeral range covers nearly everything; the locks still keep stacks apart
}
