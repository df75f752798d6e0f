package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestNotIn(t *testing.T) {
	t.Parallel()
	want := map[string]any{"spec": map[string]any{
		"entrypoint":  "python /app/train.py",
		"tolerations": []any{map[string]any{"key": "google.com/tpu"}},
		"replicas":    float64(1),
	}}
	tests := []struct {
		name string
		got  map[string]any
		want []string
	}{
		{"same, with more of the server's", map[string]any{"spec": map[string]any{
			"entrypoint": "python /app/train.py", "suspend": true, "replicas": float64(1),
			"tolerations": []any{map[string]any{"key": "google.com/tpu", "operator": "Exists"}, map[string]any{"key": "kueue"}},
		}}, nil},
		{"a value differs", map[string]any{"spec": map[string]any{
			"entrypoint": "python other.py", "replicas": float64(1), "tolerations": []any{map[string]any{"key": "google.com/tpu"}},
		}}, []string{".spec.entrypoint: ours python other.py, the floor's python /app/train.py"}},
		{"a list is short, a field missing", map[string]any{"spec": map[string]any{"entrypoint": "python /app/train.py", "tolerations": []any{}}},
			[]string{".spec.replicas: ours <nil>, the floor's 1", ".spec.tolerations: 0 items, the floor's 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := notIn(want, tc.got, "")
			if diff := cmp.Diff(tc.want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("notIn (-want +got):\n%s", diff)
			}
		})
	}
}
