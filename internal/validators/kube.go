package validators

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// DNSLabel accepts Kubernetes names that must be RFC 1123 labels (namespaces, Kueue queues and flavors).
func DNSLabel() validator.String {
	return Func("Kubernetes name", func(s string) error {
		if errs := validation.IsDNS1123Label(s); len(errs) > 0 {
			return fmt.Errorf("%q is not a valid Kubernetes name: %s", s, strings.Join(errs, "; "))
		}
		return nil
	})
}

// Quantities accepts a map whose values are Kubernetes resource quantities ("10", "75Gi", "500m").
func Quantities() validator.Map {
	return quantities{}
}

type quantities struct{}

func (quantities) Description(context.Context) string { return "values are Kubernetes quantities" }
func (quantities) MarkdownDescription(ctx context.Context) string {
	return quantities{}.Description(ctx)
}

func (quantities) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for k, v := range req.ConfigValue.Elements() {
		s, ok := v.(interface {
			IsUnknown() bool
			IsNull() bool
			ValueString() string
		})
		if !ok || s.IsUnknown() || s.IsNull() {
			continue
		}
		if _, err := resource.ParseQuantity(s.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(k), "Invalid quantity",
				fmt.Sprintf("%s = %q is not a Kubernetes quantity (examples: 10, 500m, 75Gi, 1G): %v", k, s.ValueString(), err))
		}
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(k), "Invalid resource name",
				fmt.Sprintf("%q is not a Kubernetes resource name (examples: cpu, memory, google.com/tpu): %s", k, strings.Join(errs, "; ")))
		}
	}
}
