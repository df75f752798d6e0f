package main

import (
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"p/a","Test":"TestSlow"}`,
		`{"Action":"output","Package":"p/a","Test":"TestSlow","Output":"quiet\n"}`,
		`{"Action":"pass","Package":"p/a","Test":"TestSlow","Elapsed":90}`,
		`{"Action":"output","Package":"p/a","Test":"TestBad","Output":"    a_test.go:3: wrong\n"}`,
		`{"Action":"fail","Package":"p/a","Test":"TestBad","Elapsed":2}`,
		`{"Action":"output","Package":"p/a","Test":"TestBad/sub","Output":"sub\n"}`,
		`{"Action":"pass","Package":"p/a","Test":"TestBad/sub","Elapsed":1}`,
		`{"Action":"output","Package":"p/a","Output":"FAIL\tp/a\t92s\n"}`,
		`{"Action":"fail","Package":"p/a","Elapsed":92}`,
		`{"Action":"output","Package":"p/b","Output":"ok  \tp/b\t1s\n"}`,
		`{"Action":"pass","Package":"p/b","Elapsed":1}`,
		`# p/c`,
	}, "\n")
	var out strings.Builder
	if !report(strings.NewReader(in), &out, 5) {
		t.Error("a failed test and package should fail the report")
	}
	got := out.String()
	for _, want := range []string{"a_test.go:3: wrong", "FAIL\tp/a", "ok  \tp/b", "# p/c", "1m30s  a.TestSlow", "2s  a.TestBad"} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"quiet", "TestBad/sub"} {
		if strings.Contains(got, not) {
			t.Errorf("the report shows %q, a passing test's output or a subtest:\n%s", not, got)
		}
	}
}

// TestReportTimeout: the binary's panic at -timeout goes to a test that never ends; it is shown with the package's
// failure (the events are those Go's own test2json testdata/timeout.json gives).
func TestReportTimeout(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"p/a","Test":"TestHang"}`,
		`{"Action":"output","Package":"p/a","Test":"TestHang","Output":"=== RUN   TestHang\n"}`,
		`{"Action":"output","Package":"p/a","Test":"TestHang","Output":"panic: test timed out after 45m0s\n"}`,
		`{"Action":"output","Package":"p/a","Test":"TestHang","Output":"\trunning tests:\n\t\tTestHang (45m0s)\n"}`,
		`{"Action":"output","Package":"p/a","Output":"FAIL\tp/a\t2700.001s\n"}`,
		`{"Action":"fail","Package":"p/a","Elapsed":2700.001}`,
	}, "\n")
	var out strings.Builder
	if !report(strings.NewReader(in), &out, 5) {
		t.Error("a package that timed out should fail the report")
	}
	got := out.String()
	for _, want := range []string{"no result (the test binary ended while it ran): TestHang", "panic: test timed out after 45m0s", "TestHang (45m0s)", "FAIL\tp/a"} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "panic: test timed out"); n != 1 || strings.Index(got, "no result") > strings.Index(got, "FAIL\tp/a") {
		t.Errorf("the panic should show once (%d), before the package's result:\n%s", n, got)
	}
}

// TestReportBuildFailure: the compiler's errors are shown, and fail the report.
func TestReportBuildFailure(t *testing.T) {
	in := strings.Join([]string{
		`{"ImportPath":"p/c [p/c.test]","Action":"build-output","Output":"# p/c\n./c.go:3:2: undefined: x\n"}`,
		`{"ImportPath":"p/c [p/c.test]","Action":"build-fail"}`,
		`{"Action":"start","Package":"p/c"}`,
		`{"Action":"output","Package":"p/c","Output":"FAIL\tp/c [build failed]\n"}`,
		`{"Action":"fail","Package":"p/c","Elapsed":0,"FailedBuild":"p/c [p/c.test]"}`,
	}, "\n")
	var out strings.Builder
	if !report(strings.NewReader(in), &out, 5) {
		t.Error("a build failure should fail the report")
	}
	for _, want := range []string{"undefined: x", "FAIL\tp/c [build failed]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
}
