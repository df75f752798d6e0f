package kube

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/openapi"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/drift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/ttlcache"
)

// typesCache keeps each API server's schemas for the life of the process: a plan reads them once per cluster, not
// once per object. A CRD upgraded mid-plan is read with the schema it had at the plan's start.
var typesCache sync.Map // host + kinds -> *typesEntry

type typesEntry struct {
	once  sync.Once
	types *drift.Types
	err   error
}

// Types are the server's own schemas of the given kinds, for comparing objects as it does.
func (c *Clients) Types(kinds ...schema.GroupVersionKind) (*drift.Types, error) {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.String()
	}
	sort.Strings(names)
	v, _ := typesCache.LoadOrStore(c.Host+" "+strings.Join(names, ","), &typesEntry{})
	e, _ := v.(*typesEntry) // only typesEntry values are stored
	e.once.Do(func() {
		d, err := discovery.NewDiscoveryClientForConfig(c.Config)
		if err != nil {
			e.err = err
			return
		}
		e.types, e.err = drift.CachedTypes(sharedPaths{d.OpenAPIV3(), c.Host}, typesDir(), kinds...)
		if e.err != nil {
			// The remembered index may predate a CRD installed since.
			openAPIPaths.Forget(c.Host)
			e.types, e.err = drift.CachedTypes(sharedPaths{d.OpenAPIV3(), c.Host}, typesDir(), kinds...)
		}
		if e.err != nil {
			e.err = fmt.Errorf("%s: %w", c.Host, e.err)
		}
	})
	if e.err != nil {
		// A failure is not kept: the next call asks again.
		typesCache.CompareAndDelete(c.Host+" "+strings.Join(names, ","), e)
	}
	return e.types, e.err
}

// typesDir is where converted schemas are kept between plans: each plan is a new provider process, and reading and
// converting the RayJob's and Kueue's documents again cost it about 100 ms (measured on the local stack, 2026-12-06).
// DWSFALLBACK_CACHE_DIR moves it; with no cache folder (no HOME), nothing is kept.
func typesDir() string {
	if d := os.Getenv("DWSFALLBACK_CACHE_DIR"); d != "" {
		return filepath.Join(d, "openapi")
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "terraform-provider-dwsfallback", "openapi")
}

// openAPIPaths keeps a server's index of OpenAPI documents for a few seconds, so that the kinds of different
// resources (RayJob; Kueue's) read it once per plan. Not for longer: a CRD installed later (Kueue by this provider)
// adds a document.
var openAPIPaths = ttlcache.New[string, map[string]openapi.GroupVersion](10 * time.Second)

type sharedPaths struct {
	openapi.Client
	host string
}

func (s sharedPaths) Paths() (map[string]openapi.GroupVersion, error) {
	return openAPIPaths.Get(s.host, s.Client.Paths)
}
