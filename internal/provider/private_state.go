package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// privateGetter is the private state of a request.
type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

// readPrivate decodes the record kept under key into v. It reports false when there is none, or when it does not
// decode (a record of another version is as good as none).
func readPrivate(ctx context.Context, p privateGetter, key string, v any, diags *diag.Diagnostics) bool {
	b, d := p.GetKey(ctx, key)
	diags.Append(d...)
	return len(b) > 0 && json.Unmarshal(b, v) == nil
}

// writePrivate keeps v under key as JSON; a nil v drops the record.
func writePrivate(ctx context.Context, p privateState, key string, v any, diags *diag.Diagnostics) {
	var b []byte
	if v != nil {
		b, _ = json.Marshal(v)
	}
	diags.Append(p.SetKey(ctx, key, b)...)
}
