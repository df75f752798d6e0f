// Package validators holds the provider's attribute validators whose rules come from GKE and TPU hardware facts.
package validators

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/catalog"
)

type stringFunc struct {
	desc  string
	check func(string) error
}

func (v stringFunc) Description(context.Context) string         { return v.desc }
func (v stringFunc) MarkdownDescription(context.Context) string { return v.desc }

func (v stringFunc) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := v.check(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+v.desc, err.Error())
	}
}

// TPUMachineType accepts TPU machine type names, known or not: a type the catalog does not know yet is checked by
// GKE, and the resource warns about it.
func TPUMachineType() validator.String {
	return stringFunc{desc: "TPU machine type", check: func(s string) error {
		if !catalog.IsTPU(s) {
			return fmt.Errorf("%q is not a TPU machine type: TPU machine types start with ct or tpu. Known ones: %s", s, strings.Join(catalog.Names(), ", "))
		}
		return nil
	}}
}

// GPUMachineType accepts GPU machine type names (the accelerator-optimized A and G series), known or not.
func GPUMachineType() validator.String {
	return stringFunc{desc: "GPU machine type", check: func(s string) error {
		if !catalog.IsGPU(s) {
			return fmt.Errorf("%q is not a GPU machine type (A or G series, e.g. a3-highgpu-8g or g2-standard-24). Known ones: %s", s, strings.Join(catalog.GPUNames(), ", "))
		}
		return nil
	}}
}

// TPUTopology accepts the AxB and AxBxC shapes; whether one fits a machine type is checked with both values at hand.
func TPUTopology() validator.String {
	return stringFunc{desc: "TPU topology", check: func(s string) error {
		_, err := catalog.ParseTopology(s)
		return err
	}}
}

// Func makes a validator from a check, for rules that fit in one function.
func Func(description string, check func(string) error) validator.String {
	return stringFunc{desc: description, check: check}
}

var gkeNameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$`)

// GKEName accepts GKE cluster and node pool names; kind ("cluster", "node pool") goes into the message.
func GKEName(kind string) validator.String {
	return stringFunc{desc: "GKE " + kind + " name", check: func(s string) error {
		if !gkeNameRE.MatchString(s) {
			return fmt.Errorf("%q must be a GKE %s name: 1 to 40 lowercase letters, digits and dashes, starting with a letter and not ending with a dash", s, kind)
		}
		return nil
	}}
}
