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

// Quantities accepts a map whose values are Kubernetes resource quantities ("10", "75Gi", "500m") and whose keys are
// resource names.
func Quantities() validator.Map {
	return MapFunc("values are Kubernetes quantities", func(k, v string) (string, string) {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return "Invalid resource name", fmt.Sprintf("%q is not a Kubernetes resource name (examples: cpu, memory, google.com/tpu): %s", k, strings.Join(errs, "; "))
		}
		if _, err := resource.ParseQuantity(v); err != nil {
			return "Invalid quantity", fmt.Sprintf("%s = %q is not a Kubernetes quantity (examples: 10, 500m, 75Gi, 1G): %v", k, v, err)
		}
		return "", ""
	})
}

// Labels accepts a map of Kubernetes labels (or a label selector's matchLabels).
func Labels() validator.Map {
	return MapFunc("Kubernetes labels", func(k, v string) (string, string) {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return "Invalid label key", fmt.Sprintf("%q is not a Kubernetes label key (e.g. cloud.google.com/gke-nodepool): %s", k, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return "Invalid label value", fmt.Sprintf("%s = %q is not a Kubernetes label value: %s", k, v, strings.Join(errs, "; "))
		}
		return "", ""
	})
}

// EnvNames accepts a map whose keys are environment variable names a container can take.
func EnvNames() validator.Map {
	return MapFunc("environment variables", func(k, _ string) (string, string) {
		if errs := validation.IsEnvVarName(k); len(errs) > 0 {
			return "Invalid environment variable name", fmt.Sprintf("%q is not an environment variable name: %s", k, strings.Join(errs, "; "))
		}
		return "", ""
	})
}

// MapFunc makes a validator of a map of strings from a check of one entry, which returns a summary and a detail
// when the entry is wrong.
func MapFunc(description string, check func(key, value string) (summary, detail string)) validator.Map {
	return mapFunc{desc: description, check: check}
}

type mapFunc struct {
	desc  string
	check func(k, v string) (string, string)
}

func (m mapFunc) Description(context.Context) string         { return m.desc }
func (m mapFunc) MarkdownDescription(context.Context) string { return m.desc }

func (m mapFunc) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
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
		if summary, detail := m.check(k, s.ValueString()); summary != "" {
			resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(k), summary, detail)
		}
	}
}
