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
