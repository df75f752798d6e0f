package listing

import (
	"context"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// pages serves names in pages of the size asked, and records each request.
type pages struct {
	names []string
	asked []metav1.ListOptions
}

func (p *pages) page(_ context.Context, opts metav1.ListOptions) ([]string, string, error) {
	p.asked = append(p.asked, opts)
	from := 0
	if opts.Continue != "" {
		from, _ = strconv.Atoi(opts.Continue)
	}
	to := min(from+int(opts.Limit), len(p.names))
	next := ""
	if to < len(p.names) {
		next = strconv.Itoa(to)
	}
	return p.names[from:to], next, nil
}

func TestNames(t *testing.T) {
	cases := []struct {
		name      string
		limit     int64
		want      []string
		continues []string // the Continue of each request made
	}{
		{"every page", 0, []string{"a", "b", "c", "d", "e"}, []string{"", "2", "4"}},
		{"a limit below a page asks for no more", 1, []string{"a"}, []string{""}},
		{"a limit at a page's end asks no further", 4, []string{"a", "b", "c", "d"}, []string{"", "2"}},
		{"a limit above the count", 9, []string{"a", "b", "c", "d", "e"}, []string{"", "2", "4"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &pages{names: []string{"a", "b", "c", "d", "e"}}
			got, err := Names(WithPageSize(context.Background(), 2), "team=a", tc.limit, p.page)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
			var continues []string
			for _, o := range p.asked {
				continues = append(continues, o.Continue)
				if want := pageOf(tc.limit); o.Limit != want || o.LabelSelector != "team=a" {
					t.Errorf("asked %+v", o)
				}
			}
			if diff := cmp.Diff(tc.continues, continues); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

// pageOf is the page size asked with a limit, where the page size is 2.
func pageOf(limit int64) int64 {
	if limit > 0 && limit < 2 {
		return limit
	}
	return 2
}
