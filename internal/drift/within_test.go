package drift

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestChanges(t *testing.T) {
	meta := func(labels, annotations map[string]any) map[string]any {
		return map[string]any{"metadata": map[string]any{"name": "sa", "labels": labels, "annotations": annotations}}
	}
	for _, tc := range []struct {
		name     string
		was, now map[string]any
		want     []string
	}{
		{"same", meta(map[string]any{"a": "1"}, nil), meta(map[string]any{"a": "1"}, nil), nil},
		{"a label added", meta(map[string]any{}, nil), meta(map[string]any{"app.kubernetes.io/managed-by": "x"}, nil),
			[]string{".metadata.labels.app.kubernetes.io/managed-by"}},
		{"an annotation changed", meta(nil, map[string]any{"u": "a"}), meta(nil, map[string]any{"u": "a,b"}), []string{".metadata.annotations.u"}},
		{"a top-level field only on one side", map[string]any{"secrets": []any{"s"}}, map[string]any{}, []string{".secrets"}},
		{"inside a list", map[string]any{"rules": []any{map[string]any{"verbs": []any{"get"}}}}, map[string]any{"rules": []any{map[string]any{"verbs": []any{"list"}}}},
			[]string{".rules /0/verbs/0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Changes(tc.was, tc.now)); diff != "" {
				t.Errorf("Changes (-want +got):\n%s", diff)
			}
		})
	}
}
