package drift

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/validation/spec"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// compiled is what a set of kinds' schemas come to once converted: structured-merge-diff's types, and the type of
// each kind. It is what the disk cache keeps, so that a plan in a new provider process neither fetches the API
// server's OpenAPI documents (a megabyte and more each) nor decodes the RayJob's schema again (about 40 ms).
type compiled struct {
	Types []smdschema.TypeDef
	Kinds map[string]string // "group/version/kind" -> type name
}

// compile converts OpenAPI schemas as the API server's own type converter does (managedfields.NewTypeConverter:
// unknown fields not preserved).
func compile(schemas map[string]*spec.Schema) (*compiled, error) {
	s, err := schemaconv.ToSchemaFromOpenAPI(schemas, false)
	if err != nil {
		return nil, fmt.Errorf("reading the API schemas: %w", err)
	}
	c := &compiled{Types: s.Types, Kinds: map[string]string{}}
	for name, sc := range schemas {
		for _, gvk := range declaredKinds(sc) {
			c.Kinds[kindKey(gvk)] = name
		}
	}
	return c, nil
}

func kindKey(gvk schema.GroupVersionKind) string {
	return gvk.Group + "/" + gvk.Version + "/" + gvk.Kind
}

// declaredKinds reads a schema's x-kubernetes-group-version-kind.
func declaredKinds(s *spec.Schema) []schema.GroupVersionKind {
	list, _ := s.Extensions["x-kubernetes-group-version-kind"].([]any)
	var out []schema.GroupVersionKind
	for _, item := range list {
		m, _ := item.(map[string]any)
		g, _ := m["group"].(string)
		v, _ := m["version"].(string)
		k, _ := m["kind"].(string)
		if k != "" {
			out = append(out, schema.GroupVersionKind{Group: g, Version: v, Kind: k})
		}
	}
	return out
}

// converter is managedfields' TypeConverter over compiled types.
type converter struct {
	parser *typed.Parser
	kinds  map[string]string
}

func (c *compiled) converter() *converter {
	return &converter{parser: &typed.Parser{Schema: smdschema.Schema{Types: c.Types}}, kinds: c.Kinds}
}

func (c *converter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	name, ok := c.kinds[kindKey(gvk)]
	if !ok {
		return nil, fmt.Errorf("no type found matching: %v", gvk)
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("%v: only unstructured objects are compared", gvk)
	}
	return c.parser.Type(name).FromUnstructured(u.UnstructuredContent(), opts...)
}

func (c *converter) TypedToObject(v *typed.TypedValue) (runtime.Object, error) {
	m, ok := v.AsValue().Unstructured().(map[string]any)
	if !ok {
		return nil, fmt.Errorf("failed to convert value to unstructured for type %T", v.AsValue().Unstructured())
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// typeCache keeps compiled types in dir ("" keeps none), under the documents' addresses: the API server puts a hash
// of each document's content in its address (/openapi/v3/apis/ray.io/v1?hash=...), so a CRD changed on the server
// is a new address, and an entry is never stale. Documents without a hash are not cached.
//
// Entries are gob: structured-merge-diff's types carry only YAML tags, and encoding/json drops the fields that its
// embedded list and map types share (YAML is exact, but as slow to read as the documents themselves).
type typeCache struct{ dir string }

// cacheFormat names the entries' encoding and the code that makes them, and is part of every key: a build that
// decodes the documents or converts the schemas otherwise (this module's revision, kube-openapi's schemaconv,
// structured-merge-diff's types) reads none of another's entries. A build its revision does not name (a test
// binary, uncommitted changes) is named by its executable's path, size and time instead; one that cannot be named
// keeps no entries (""). Bump the leading number when compile or decodeKinds change what they make.
var cacheFormat = func() string {
	f := "drift.compiled gob 2"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	revision, modified := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	f += " " + info.Main.Path + "@" + info.Main.Version + " " + revision
	if revision == "" || modified || strings.HasSuffix(info.Main.Version, "+dirty") {
		exe, err := os.Executable()
		if err != nil {
			return ""
		}
		st, err := os.Stat(exe)
		if err != nil {
			return ""
		}
		f += fmt.Sprintf(" %s %d %d", exe, st.Size(), st.ModTime().UnixNano())
	}
	for _, d := range info.Deps {
		if d.Path == "k8s.io/kube-openapi" || d.Path == "sigs.k8s.io/structured-merge-diff/v6" {
			if d.Replace != nil {
				d = d.Replace
			}
			f += " " + d.Path + "@" + d.Version
		}
	}
	return f
}()

// entryLife is how long an entry not read is kept: entries of documents the servers no longer serve (a CRD upgraded,
// a test stack gone) are removed when a new one is stored.
const entryLife = 30 * 24 * time.Hour

func init() {
	// A field default (StructField.Default) is any JSON value.
	gob.Register(map[string]any{})
	gob.Register([]any{})
}

// key is the entry's name. The host is not in it: kube-apiserver's hash is of the document's content, so clusters
// serving the same CRDs share entries. (Every document cached is the core API's, or a CRD's, which kube-apiserver
// serves.)
func (tc typeCache) key(urls []string, kinds []schema.GroupVersionKind) (string, bool) {
	if tc.dir == "" || cacheFormat == "" {
		return "", false
	}
	for _, u := range urls {
		if !strings.Contains(u, "hash=") {
			return "", false
		}
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = kindKey(k)
	}
	slices.Sort(names)
	sum := sha256.Sum256([]byte(cacheFormat + "\n" + strings.Join(slices.Sorted(slices.Values(urls)), "\n") + "\n" + strings.Join(names, "\n")))
	return hex.EncodeToString(sum[:]), true
}

func (tc typeCache) load(key string) (*compiled, bool) {
	b, err := os.ReadFile(filepath.Join(tc.dir, key+".gob"))
	if err != nil {
		return nil, false
	}
	var c compiled
	if gob.NewDecoder(bytes.NewReader(b)).Decode(&c) != nil || len(c.Kinds) == 0 {
		return nil, false
	}
	now := time.Now()
	_ = os.Chtimes(filepath.Join(tc.dir, key+".gob"), now, now) // read: kept another entryLife
	return &c, true
}

// exportedEqual is reflect.DeepEqual on exported fields only: structured-merge-diff's types keep unexported lookup
// tables, filled on use, that gob neither writes nor needs.
func exportedEqual(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return exportedEqual(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() && !exportedEqual(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.Len() != b.Len() { // nil and empty alike: gob writes neither, and the types read them alike
			return false
		}
		for i := range a.Len() {
			if !exportedEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() { // nil and empty alike: gob writes neither, and the types read them alike
			return false
		}
		for _, k := range a.MapKeys() {
			if v := b.MapIndex(k); !v.IsValid() || !exportedEqual(a.MapIndex(k), v) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(a.Interface(), b.Interface())
	}
}

// store writes the entry whole or not at all (a temporary file renamed), so that plans side by side never read half
// of one; and only one that reads back equal: gob leaves out zero values, so a pointer to a zero scalar (a *string
// to "") would come back nil. A cache that cannot be written costs the next plan a fetch, nothing else.
func (tc typeCache) store(key string, c *compiled) {
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(c) != nil {
		return
	}
	var back compiled
	if gob.NewDecoder(bytes.NewReader(buf.Bytes())).Decode(&back) != nil || !exportedEqual(reflect.ValueOf(c), reflect.ValueOf(&back)) {
		return
	}
	if os.MkdirAll(tc.dir, 0o700) != nil {
		return
	}
	f, err := os.CreateTemp(tc.dir, key+".*.tmp")
	if err != nil {
		return
	}
	_, werr := f.Write(buf.Bytes())
	if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), filepath.Join(tc.dir, key+".gob")) != nil {
		_ = os.Remove(f.Name())
	}
	tc.prune(time.Now())
}

// prune removes entries not read for entryLife, and temporary files a process stopped before renaming them.
func (tc typeCache) prune(now time.Time) {
	entries, err := os.ReadDir(tc.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue
		}
		old := now.Sub(info.ModTime())
		if (strings.HasSuffix(e.Name(), ".gob") && old > entryLife) || (strings.HasSuffix(e.Name(), ".tmp") && old > time.Hour) {
			_ = os.Remove(filepath.Join(tc.dir, e.Name()))
		}
	}
}
