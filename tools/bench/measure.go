package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// auditCounter counts the provider's requests in the API server's audit log, by verb, from a byte offset on.
type auditCounter struct {
	path      string
	userAgent string
	offset    int64
}

// mark starts a new count at the end of the log.
func (a *auditCounter) mark() {
	if fi, err := os.Stat(a.path); err == nil {
		a.offset = fi.Size()
	}
}

// counts are the provider's requests since mark, by verb; discovery counts requests for /api, /apis and /openapi.
func (a *auditCounter) counts() (map[string]int, int) {
	time.Sleep(time.Second) // watches end (and are logged) just after the terraform run that opened them
	f, err := os.Open(a.path)
	if err != nil {
		return nil, 0
	}
	defer func() { _ = f.Close() }()
	_, _ = f.Seek(a.offset, io.SeekStart)
	out, discovery := map[string]int{}, 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct {
			Verb       string `json:"verb"`
			UserAgent  string `json:"userAgent"`
			RequestURI string `json:"requestURI"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || !strings.HasPrefix(ev.UserAgent, a.userAgent) {
			continue
		}
		out[ev.Verb]++
		uri, _, _ := strings.Cut(ev.RequestURI, "?")
		if uri == "/api" || uri == "/apis" || strings.HasPrefix(uri, "/openapi") || strings.Count(uri, "/") <= 3 && strings.HasPrefix(uri, "/apis/") {
			discovery++
		}
	}
	return out, discovery
}

// usage samples /proc while fn runs and returns the highest VmHWM (peak RSS) seen and the CPU time used by the
// processes whose command name is one of names (summed over processes of one name), and fn's error. Only this
// process's descendants count: a process's CPU ticks are its whole life's, so a same-named process of another run (the
// kernel cuts names at 15 characters, "terraform-provi") once added minutes of someone else's CPU to a 1.7 s plan.
func usage(names []string, fn func() error) (map[string]int64, map[string]time.Duration, error) {
	peaks := map[string]int64{}
	ticks := map[int]int64{} // last CPU ticks seen per pid
	owner := map[int]string{}
	ours := map[int]bool{} // whether a pid descends from this process, decided when first seen
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			sampleProcs(names, peaks, ticks, owner, ours)
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	err := fn()
	close(done)
	wg.Wait()
	cpu := map[string]time.Duration{}
	for pid, t := range ticks {
		cpu[owner[pid]] += time.Duration(t) * time.Second / 100 // USER_HZ
	}
	return peaks, cpu, err
}

func sampleProcs(names []string, peaks map[string]int64, ticks map[int]int64, owner map[int]string, ours map[int]bool) {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		comm, err := os.ReadFile(filepath.Join(d, "comm"))
		if err != nil {
			continue
		}
		for _, n := range names {
			// The kernel cuts comm at 15 characters.
			if strings.TrimSpace(string(comm)) != n[:min(len(n), 15)] {
				continue
			}
			pid, _ := strconv.Atoi(filepath.Base(d))
			if _, seen := ours[pid]; !seen {
				ours[pid] = descendsFrom(pid, os.Getpid())
			}
			if !ours[pid] {
				continue
			}
			status, _ := os.ReadFile(filepath.Join(d, "status"))
			for _, line := range strings.Split(string(status), "\n") {
				if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
					peaks[n] = max(peaks[n], kb*1024)
				}
			}
			// utime and stime are fields 14 and 15; the command name before them may hold spaces, so count from ')'.
			if stat, err := os.ReadFile(filepath.Join(d, "stat")); err == nil {
				if i := bytes.LastIndexByte(stat, ')'); i > 0 {
					f := strings.Fields(string(stat[i+1:]))
					if len(f) > 13 {
						u, _ := strconv.ParseInt(f[11], 10, 64)
						s, _ := strconv.ParseInt(f[12], 10, 64)
						ticks[pid], owner[pid] = u+s, n
					}
				}
			}
		}
	}
}

// descendsFrom reports whether pid is a descendant of ancestor, following parent pids in /proc.
func descendsFrom(pid, ancestor int) bool {
	for pid > 1 {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return false
		}
		i := bytes.LastIndexByte(stat, ')')
		f := strings.Fields(string(stat[i+1:]))
		if i < 0 || len(f) < 2 {
			return false
		}
		pid, _ = strconv.Atoi(f[1]) // state, then ppid
		if pid == ancestor {
			return true
		}
	}
	return false
}

// rawCodec passes protobuf bytes through, so GetProviderSchema can be called without the tfplugin6 stubs (which
// terraform-plugin-go keeps internal).
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	b, ok := v.(*[]byte)
	if !ok {
		return nil, fmt.Errorf("rawCodec marshals *[]byte, not %T", v)
	}
	return *b, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	b, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("rawCodec unmarshals into *[]byte, not %T", v)
	}
	*b = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

// startup starts the provider binary as Terraform does (go-plugin handshake on stdout) and returns the time until its
// GetProviderSchema answer arrived, the answer's size, and the time until the handshake line.
func startup(binary string) (time.Duration, int, time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary)
	cmd.Env = append(os.Environ(), "TF_PLUGIN_MAGIC_COOKIE=d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2",
		"PLUGIN_PROTOCOL_VERSIONS=6", "PLUGIN_MIN_PORT=10000", "PLUGIN_MAX_PORT=25000")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, 0, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	handshake := time.Since(start)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("no handshake: %w; %s", err, stderr.String())
	}
	f := strings.Split(strings.TrimSpace(line), "|")
	if len(f) < 5 {
		return 0, 0, 0, fmt.Errorf("handshake %q", line)
	}
	target := "unix:" + f[3]
	if f[2] == "tcp" {
		target = "passthrough:///" + f[3]
	}
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return 0, 0, 0, err
	}
	defer func() { _ = conn.Close() }()
	req, resp := []byte{}, []byte{}
	if err := conn.Invoke(ctx, "/tfplugin6.Provider/GetProviderSchema", &req, &resp, grpc.ForceCodec(rawCodec{})); err != nil {
		return 0, 0, 0, err
	}
	return time.Since(start), len(resp), handshake, nil
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
