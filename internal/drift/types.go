package drift

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/openapi"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Types knows the structure of the kinds of some group-versions as the API server serving them does.
type Types struct {
	tc managedfields.TypeConverter
}

// NewTypes builds Types from OpenAPI v3 component schemas (the `components.schemas` of the server's documents).
func NewTypes(schemas map[string]*spec.Schema) (*Types, error) {
	c, err := compile(schemas)
	if err != nil {
		return nil, err
	}
	return &Types{tc: c.converter()}, nil
}

// FetchTypes reads the server's OpenAPI v3 documents of the given kinds' group-versions: one request per
// group-version, plus the index. Of each document only the kinds' schemas and those they refer to are decoded and
// converted: a group-version's other kinds (RayCluster and RayService beside RayJob, each with pod templates inlined)
// would cost a plan time and memory for nothing.
func FetchTypes(c openapi.Client, kinds ...schema.GroupVersionKind) (*Types, error) {
	return CachedTypes(c, "", kinds...)
}

// CachedTypes is FetchTypes with the converted schemas kept in the folder cacheDir, under the documents' addresses
// (which hold their content's hash): a later call for the same kinds, in this process or another, reads only the
// index.
func CachedTypes(c openapi.Client, cacheDir string, kinds ...schema.GroupVersionKind) (*Types, error) {
	paths, err := c.Paths()
	if err != nil {
		return nil, fmt.Errorf("listing the API server's OpenAPI documents: %w", err)
	}
	gvs := groupVersions(kinds)
	docs := make([]openapi.GroupVersion, len(gvs))
	urls := make([]string, len(gvs))
	for i, gv := range gvs {
		key := "apis/" + gv.Group + "/" + gv.Version
		if gv.Group == "" {
			key = "api/" + gv.Version
		}
		doc, ok := paths[key]
		if !ok {
			return nil, fmt.Errorf("the API server serves no OpenAPI document for %s: is its CRD installed?", gv)
		}
		docs[i], urls[i] = doc, doc.ServerRelativeURL()
	}
	cache := typeCache{dir: cacheDir}
	key, cacheable := cache.key(urls, kinds)
	if cacheable {
		if cc, ok := cache.load(key); ok {
			return &Types{tc: cc.converter()}, nil
		}
	}
	schemas := map[string]*spec.Schema{}
	for i, doc := range docs {
		raw, err := doc.Schema("application/json")
		if err != nil {
			return nil, fmt.Errorf("reading the OpenAPI document of %s: %w", gvs[i], err)
		}
		if err := decodeKinds(raw, kindsOf(gvs[i], kinds), schemas); err != nil {
			return nil, fmt.Errorf("parsing the OpenAPI document of %s: %w", gvs[i], err)
		}
	}
	cc, err := compile(schemas)
	if err != nil {
		return nil, err
	}
	if cacheable {
		cache.store(key, cc) // before the converter's first use fills the types' lookup tables
	}
	return &Types{tc: cc.converter()}, nil
}

func groupVersions(kinds []schema.GroupVersionKind) []schema.GroupVersion {
	var out []schema.GroupVersion
	for _, k := range kinds {
		if gv := k.GroupVersion(); !slices.Contains(out, gv) {
			out = append(out, gv)
		}
	}
	return out
}

func kindsOf(gv schema.GroupVersion, kinds []schema.GroupVersionKind) []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for _, k := range kinds {
		if k.GroupVersion() == gv && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// decodeKinds adds to into the document's schemas of the kinds, and every schema they refer to.
func decodeKinds(doc []byte, kinds []schema.GroupVersionKind, into map[string]*spec.Schema) error {
	var parsed struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &parsed); err != nil {
		return err
	}
	all := parsed.Components.Schemas
	todo, found := kindSchemas(all, kinds, true)
	if found < len(kinds) {
		todo, _ = kindSchemas(all, kinds, false)
	}
	for len(todo) > 0 {
		name := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if _, done := into[name]; done {
			continue
		}
		raw, ok := all[name]
		if !ok {
			continue // another document's (a CRD's refer to the core API's ObjectMeta), which that one brings
		}
		var s spec.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("schema %s: %w", name, err)
		}
		into[name] = &s
		todo = append(todo, refs(&s)...)
	}
	return nil
}

// kindSchemas names the schemas that declare one of the kinds, and counts the distinct kinds declared. By name only those that end in ".VERSION.KIND", as
// the API server names them ("io.ray.v1.RayJob", "io.k8s.api.core.v1.ConfigMap"): reading every schema's head would
// scan the whole document a second time, the Workload's pod templates included.
func kindSchemas(all map[string]json.RawMessage, kinds []schema.GroupVersionKind, byName bool) (names []string, found int) {
	seen := map[schema.GroupVersionKind]bool{}
	for name, raw := range all {
		if byName && !slices.ContainsFunc(kinds, func(k schema.GroupVersionKind) bool { return strings.HasSuffix(name, "."+k.Version+"."+k.Kind) }) {
			continue
		}
		var head struct {
			GVKs []schema.GroupVersionKind `json:"x-kubernetes-group-version-kind"`
		}
		if json.Unmarshal(raw, &head) != nil {
			continue
		}
		if ours := slices.DeleteFunc(head.GVKs, func(k schema.GroupVersionKind) bool { return !slices.Contains(kinds, k) }); len(ours) > 0 {
			names = append(names, name)
			for _, k := range ours {
				seen[k] = true
			}
		}
	}
	return names, len(seen)
}

// refs are the names of the component schemas s refers to, at any depth.
func refs(s *spec.Schema) []string {
	var out []string
	var walk func(s *spec.Schema)
	walk = func(s *spec.Schema) {
		if s == nil {
			return
		}
		if r := s.Ref.String(); r != "" {
			out = append(out, strings.TrimPrefix(r, "#/components/schemas/"))
		}
		for _, p := range s.Properties {
			walk(&p)
		}
		if s.Items != nil {
			walk(s.Items.Schema)
			for i := range s.Items.Schemas {
				walk(&s.Items.Schemas[i])
			}
		}
		if s.AdditionalProperties != nil {
			walk(s.AdditionalProperties.Schema)
		}
		for _, list := range [][]spec.Schema{s.AllOf, s.AnyOf, s.OneOf} {
			for i := range list {
				walk(&list[i])
			}
		}
		walk(s.Not)
	}
	walk(s)
	return out
}
