package provider

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// TestFillScalarsMatchesFramework: a RayJob configuration decoded by fillScalars is the model the framework's
// reflection decodes (timeouts aside, which fillScalars leaves zero), for each base of the differential test.
func TestFillScalarsMatchesFramework(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var sr resource.SchemaResponse
	(&rayJobResource{}).Schema(ctx, resource.SchemaRequest{}, &sr)
	typ := sr.Schema.Type().TerraformType(ctx)
	for i, base := range diffBases["dwsfallback_rayjob"] {
		raw := buildValue(t, typ, base)
		var fast, framework rayJobModel
		if !tfvalue.FillScalars(ctx, raw, &fast) {
			t.Fatalf("base %d: fillScalars refused a configuration", i)
		}
		if d := (tfsdk.Config{Schema: sr.Schema, Raw: raw}).Get(ctx, &framework); d.HasError() {
			t.Fatalf("base %d: %v", i, d)
		}
		framework.Timeouts = fast.Timeouts
		if !reflect.DeepEqual(fast, framework) {
			t.Errorf("base %d: fillScalars decoded\n%+v\nthe framework\n%+v", i, fast, framework)
		}
	}
}
