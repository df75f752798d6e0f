package drift

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/openapi"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Types knows the structure of the kinds of some group-versions as the API server serving them does.
type Types struct {
	tc managedfields.TypeConverter
}

// NewTypes builds Types from OpenAPI v3 component schemas (the `components.schemas` of the server's documents).
func NewTypes(schemas map[string]*spec.Schema) (*Types, error) {
	tc, err := managedfields.NewTypeConverter(schemas, false)
	if err != nil {
		return nil, fmt.Errorf("reading the API schemas: %w", err)
	}
	return &Types{tc: tc}, nil
}

// FetchTypes reads the server's OpenAPI v3 documents of the given group-versions only: one request per
// group-version, plus the index.
func FetchTypes(c openapi.Client, gvs ...schema.GroupVersion) (*Types, error) {
	paths, err := c.Paths()
	if err != nil {
		return nil, fmt.Errorf("listing the API server's OpenAPI documents: %w", err)
	}
	schemas := map[string]*spec.Schema{}
	for _, gv := range gvs {
		key := "apis/" + gv.Group + "/" + gv.Version
		if gv.Group == "" {
			key = "api/" + gv.Version
		}
		doc, ok := paths[key]
		if !ok {
			return nil, fmt.Errorf("the API server serves no OpenAPI document for %s: is its CRD installed?", gv)
		}
		raw, err := doc.Schema("application/json")
		if err != nil {
			return nil, fmt.Errorf("reading the OpenAPI document of %s: %w", gv, err)
		}
		var parsed spec3.OpenAPI
		if err := json.Unmarshal(raw, &parsed); err != nil {
			return nil, fmt.Errorf("parsing the OpenAPI document of %s: %w", gv, err)
		}
		if parsed.Components != nil {
			for name, s := range parsed.Components.Schemas {
				schemas[name] = s
			}
		}
	}
	return NewTypes(schemas)
}
