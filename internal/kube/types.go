package kube

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/drift"
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
		e.types, e.err = drift.FetchTypes(d.OpenAPIV3(), kinds...)
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
