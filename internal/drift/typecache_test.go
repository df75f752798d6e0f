package drift

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/openapi"
	"k8s.io/client-go/openapi/openapitest"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// hashedClient serves client-go's recorded documents at addresses with a hash, as an API server does, and counts
// the documents read.
type hashedClient struct {
	openapi.Client
	hash  string
	reads *int
}

func (c hashedClient) Paths() (map[string]openapi.GroupVersion, error) {
	paths, err := c.Client.Paths()
	out := map[string]openapi.GroupVersion{}
	for k, gv := range paths {
		out[k] = hashedGV{gv, "/openapi/v3/" + k + "?hash=" + c.hash, c.reads}
	}
	return out, err
}

type hashedGV struct {
	openapi.GroupVersion
	url   string
	reads *int
}

func (g hashedGV) Schema(contentType string) ([]byte, error) {
	*g.reads++
	return g.GroupVersion.Schema(contentType)
}

func (g hashedGV) ServerRelativeURL() string { return g.url }

var podKind = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}

// TestCachedTypes: the second call for the same kinds reads no document, in this process or a new one (a new
// cache value on the same folder), and its types compare pods as the fresh ones do; a document with a new hash (a
// CRD changed on the server) is read again; an address without a hash is never cached.
func TestCachedTypes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	reads := 0
	c := hashedClient{openapitest.NewEmbeddedFileClient(), "A", &reads}
	fresh, err := CachedTypes(c, dir, podKind)
	if err != nil {
		t.Fatal(err)
	}
	cached, err := CachedTypes(c, dir, podKind)
	if err != nil {
		t.Fatal(err)
	}
	if reads != 1 {
		t.Errorf("documents read for two calls = %d, want 1", reads)
	}
	obj := writtenPod(t, fresh)
	sent := roundTrip(t, obj)
	delete(sent["metadata"].(map[string]any), "managedFields")
	b, err := fresh.RecordWritten(obj, sent)
	if err != nil {
		t.Fatal(err)
	}
	live := roundTrip(t, obj)
	delete(live["spec"].(map[string]any), "nodeSelector")
	want, err := fresh.Diff(b, live)
	if err != nil {
		t.Fatal(err)
	}
	got, err := cached.Diff(b, live)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{".spec.nodeSelector"}, want); d != "" {
		t.Fatalf("fresh types' diff (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("cached types' diff (-fresh +cached):\n%s", d)
	}
	if _, err := CachedTypes(hashedClient{c.Client, "B", &reads}, dir, podKind); err != nil || reads != 2 {
		t.Errorf("a new hash: err %v, documents read %d, want 2", err, reads)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("cache holds %d entries, want 2 (one per hash)", len(entries))
	}
	noHash := t.TempDir()
	if _, err := CachedTypes(openapitest.NewEmbeddedFileClient(), noHash, podKind); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(noHash); len(entries) != 0 {
		t.Errorf("addresses without a hash were cached: %v", entries)
	}
	// A damaged entry is read as a miss.
	for _, e := range entries {
		_ = os.WriteFile(filepath.Join(dir, e.Name()), []byte("not gob"), 0o600)
	}
	if _, err := CachedTypes(c, dir, podKind); err != nil || reads != 3 {
		t.Errorf("a damaged entry: err %v, documents read %d, want 3", err, reads)
	}
}

// TestConverterAsManagedFields: the converter over compiled types gives a pod the field set the API server's own
// (managedfields.NewTypeConverter) gives it.
func TestConverterAsManagedFields(t *testing.T) {
	t.Parallel()
	schemas := map[string]*spec.Schema{}
	doc, err := openapitest.NewEmbeddedFileClient().Paths()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := doc["api/v1"].Schema("application/json")
	if err != nil {
		t.Fatal(err)
	}
	if err := decodeKinds(raw, []schema.GroupVersionKind{podKind}, schemas); err != nil {
		t.Fatal(err)
	}
	theirs, err := managedfields.NewTypeConverter(schemas, false)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := compile(schemas)
	if err != nil {
		t.Fatal(err)
	}
	ours := cc.converter()
	pod := &unstructured.Unstructured{Object: writtenPod(t, &Types{tc: ours})}
	sets := [2]string{}
	for i, tc := range []managedfields.TypeConverter{theirs, ours} {
		tv, err := tc.ObjectToTyped(pod, typed.AllowDuplicates)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := tv.ToFieldSet()
		if err != nil {
			t.Fatal(err)
		}
		sets[i] = fs.String()
	}
	if d := cmp.Diff(sets[0], sets[1]); d != "" {
		t.Errorf("field sets (-managedfields +ours):\n%s", d)
	}
}

// TestPruneTypeCache: entries not read for entryLife, and temporary files left for an hour, go; the rest stay.
func TestPruneTypeCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Now()
	for name, age := range map[string]time.Duration{"fresh.gob": time.Hour, "stale.gob": entryLife + time.Hour,
		"writing.tmp": time.Minute, "abandoned.tmp": 2 * time.Hour} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	typeCache{dir}.prune(now)
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if d := cmp.Diff([]string{"fresh.gob", "writing.tmp"}, left); d != "" {
		t.Errorf("left (-want +got):\n%s", d)
	}
}
