// Command testreport reads `go test -json` on its standard input and writes what a reader of a CI log needs: each
// package's result as it ends, the whole output of every test that failed or got no result (its binary timed out or
// crashed), and at the end the slowest tests, which say where a run's time went (the acceptance tests take most of
// it). It exits 1 when a test or a package failed.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type result struct {
	name    string
	elapsed float64
}

func main() {
	slowest := flag.Int("slowest", 25, "how many of the slowest tests to list at the end")
	flag.Parse()
	if failed := report(os.Stdin, os.Stdout, *slowest); failed {
		os.Exit(1)
	}
}

func report(in io.Reader, w io.Writer, slowest int) (failed bool) {
	// A log that cannot be written is not worth failing the tests for.
	printf := func(format string, a ...any) { _, _ = fmt.Fprintf(w, format, a...) }
	output := map[string]*strings.Builder{} // by package and test, until the test's result
	var order []string                      // the keys of output, in the order they began
	var done []result
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			printf("%s\n", sc.Text()) // a build error, or anything else go test prints as text
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output", "build-output":
			b := output[key]
			if b == nil {
				b = &strings.Builder{}
				output[key] = b
				order = append(order, key)
			}
			b.WriteString(e.Output)
			if e.Test == "" && e.Action == "build-output" {
				printf("%s", e.Output)
			}
		case "pass", "fail", "skip":
			if e.Action == "fail" {
				failed = true
				if e.Test == "" {
					// A timeout or a crash ends the binary while tests run: test2json gives what it printed (the
					// panic, the running tests, the goroutines) to the last test named, which gets no result.
					for _, k := range order {
						if b := output[k]; b != nil && k != key && strings.HasPrefix(k, e.Package+" ") {
							printf("--- no result (the test binary ended while it ran): %s\n%s", strings.TrimPrefix(k, e.Package+" "), b.String())
							delete(output, k)
						}
					}
				}
				if b := output[key]; b != nil {
					printf("%s", b.String())
				}
			} else if e.Test == "" && output[key] != nil {
				// A package's own lines: "ok pkg 12.3s", or its summary.
				for _, l := range strings.Split(strings.TrimSpace(output[key].String()), "\n") {
					if strings.HasPrefix(l, "ok") || strings.HasPrefix(l, "?") || strings.HasPrefix(l, "---") {
						printf("%s\n", l)
					}
				}
			}
			if e.Test != "" && e.Action != "skip" && !strings.Contains(e.Test, "/") {
				done = append(done, result{e.Package[strings.LastIndex(e.Package, "/")+1:] + "." + e.Test, e.Elapsed})
			}
			delete(output, key)
		case "build-fail":
			failed = true
		}
	}
	if err := sc.Err(); err != nil {
		printf("testreport: %v\n", err)
		failed = true
	}
	slices.SortFunc(done, func(a, b result) int { return cmp.Compare(b.elapsed, a.elapsed) })
	printf("\nThe %d slowest of %d tests (parallel tests overlap, so these do not add up to the run):\n", min(slowest, len(done)), len(done))
	for _, r := range done[:min(slowest, len(done))] {
		printf("%10s  %s\n", time.Duration(r.elapsed*float64(time.Second)).Round(time.Second), r.name)
	}
	return failed
}
