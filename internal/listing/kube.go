package listing

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/clusterscope"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kube"
)

// pageSize is the page size of every Kubernetes LIST a list resource makes: thousands of objects are read in a few
// requests, none of them large.
const pageSize int64 = 500

type pageSizeKey struct{}

// WithPageSize makes the lists made under ctx read pages of n: the list tests page through a few objects.
func WithPageSize(ctx context.Context, n int64) context.Context {
	return context.WithValue(ctx, pageSizeKey{}, n)
}

func pageSizeOf(ctx context.Context) int64 {
	if n, ok := ctx.Value(pageSizeKey{}).(int64); ok && n > 0 {
		return n
	}
	return pageSize
}

// Page lists one page of a kind: the names of its objects and the token of the next page ("" after the last).
type Page func(ctx context.Context, opts metav1.ListOptions) (names []string, next string, err error)

// Names reads a kind page by page, with the label selector, until the last page or limit names (when above 0).
func Names(ctx context.Context, selector string, limit int64, page Page) ([]string, error) {
	opts := metav1.ListOptions{Limit: pageSizeOf(ctx), LabelSelector: selector}
	if limit > 0 && limit < opts.Limit {
		opts.Limit = limit
	}
	var out []string
	for {
		names, next, err := page(ctx, opts)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			out = append(out, n)
			if limit > 0 && int64(len(out)) >= limit {
				return out, nil
			}
		}
		if next == "" {
			return out, nil
		}
		opts.Continue = next
	}
}

// ClusterScoped finds the Kubernetes objects of a kind no namespace holds. Each one's id is the cluster's id,
// collection and its name, or its name alone under the provider's kubernetes block: the id its resource imports.
func ClusterScoped(collection string, pageOf func(*kube.Clients) Page) Finder {
	return func(ctx context.Context, c clusterscope.Clients, cfg tfsdk.Config, limit int64) ([]Found, diag.Diagnostics) {
		var diags diag.Diagnostics
		k, prefix, ok := Connect(ctx, c, cfg, &diags)
		if !ok {
			return nil, diags
		}
		names, err := Names(ctx, "", limit, pageOf(k))
		if err != nil {
			diags.AddError("listing "+collection, err.Error())
			return nil, diags
		}
		found := make([]Found, 0, len(names))
		for _, n := range names {
			id := n
			if prefix != "" {
				id = prefix + collection + "/" + n
			}
			found = append(found, Found{ID: id, DisplayName: n})
		}
		return found, diags
	}
}

// Connect reaches the Kubernetes API of a list configuration's cluster (Scope), and gives the prefix of its objects' ids.
func Connect(ctx context.Context, c clusterscope.Clients, cfg tfsdk.Config, diags *diag.Diagnostics) (*kube.Clients, string, bool) {
	ref, prefix, ok := Scope(ctx, c, cfg, diags)
	if !ok {
		return nil, "", false
	}
	k, err := c.Kube(ctx, ref)
	if err != nil {
		diags.AddError("connecting to Kubernetes", err.Error())
		return nil, "", false
	}
	return k, prefix, true
}

// ObjectsPage is the Page of a typed or dynamic client's List method.
func ObjectsPage[L runtime.Object](list func(context.Context, metav1.ListOptions) (L, error)) Page {
	return func(ctx context.Context, opts metav1.ListOptions) ([]string, string, error) {
		l, err := list(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		var names []string
		err = meta.EachListItem(l, func(o runtime.Object) error {
			a, err := meta.Accessor(o)
			if err == nil {
				names = append(names, a.GetName())
			}
			return err
		})
		if err != nil {
			return nil, "", err
		}
		la, err := meta.ListAccessor(l)
		if err != nil {
			return nil, "", err
		}
		return names, la.GetContinue(), nil
	}
}
