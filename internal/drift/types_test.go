package drift

import (
	"testing"

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
