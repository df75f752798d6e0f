package drift

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/openapi/openapitest"
)

// BenchmarkFetchTypes: the schemas of one kind of the core API, the largest document a plan could read (client-go's
// recorded one), decoded and converted as a refresh does once per cluster.
func BenchmarkFetchTypes(b *testing.B) {
	c := openapitest.NewEmbeddedFileClient()
	for b.Loop() {
		if _, err := FetchTypes(c, schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDecodeKinds(t *testing.T) {
	t.Parallel()
	gvk := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Thing"}
	kind := func(name string) string {
		return `"` + name + `": {"type": "object", "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Thing"}],
			"properties": {"spec": {"$ref": "#/components/schemas/com.example.v1.ThingSpec"}}}`
	}
	const rest = `"com.example.v1.ThingSpec": {"type": "object", "properties": {"size": {"type": "integer"}}},
		"com.example.v1.Other": {"type": "object", "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Other"}]}`
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{name: "named as the API server names kinds", doc: kind("com.example.v1.Thing"), want: []string{"com.example.v1.Thing", "com.example.v1.ThingSpec"}},
		{name: "named otherwise, found by its heading", doc: kind("thing"), want: []string{"com.example.v1.ThingSpec", "thing"}},
	}
	for _, tt := range tests {
		into := map[string]*spec.Schema{}
		if err := decodeKinds([]byte(`{"components": {"schemas": {`+tt.doc+`, `+rest+`}}}`), []schema.GroupVersionKind{gvk}, into); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, slices.Sorted(maps.Keys(into))); diff != "" {
			t.Errorf("%s: schemas decoded (-want +got):\n%s", tt.name, diff)
		}
	}
}
