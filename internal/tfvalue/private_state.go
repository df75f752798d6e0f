package tfvalue

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// PrivateGetter is the private state of a request.
type PrivateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

// PrivateState is the private state of a response, which a resource also writes.
type PrivateState interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// StateSetter is the State of a create or update response, which resources save before a long wait.
type StateSetter interface {
	Set(context.Context, any) diag.Diagnostics
}

// ReadPrivate decodes the record kept under key into v. It reports false when there is none, or when it does not
// decode (a record of another version is as good as none).
func ReadPrivate(ctx context.Context, p PrivateGetter, key string, v any, diags *diag.Diagnostics) bool {
	b, d := p.GetKey(ctx, key)
	diags.Append(d...)
	return len(b) > 0 && json.Unmarshal(b, v) == nil
}

// WritePrivate keeps v under key as JSON; a nil v drops the record.
func WritePrivate(ctx context.Context, p PrivateState, key string, v any, diags *diag.Diagnostics) {
	var b []byte
	if v != nil {
		b, _ = json.Marshal(v)
	}
	diags.Append(p.SetKey(ctx, key, b)...)
}
