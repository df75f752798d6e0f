package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kueueuse"
)

// A queue keeps two records in private state, which state cannot tell: a refresh reads the live objects back into
// state, and drops from it those deleted out of band.

// privateObjects is the record of every object name this resource applied: Read drops objects deleted out of band
// from state (so the plan shows them), which would otherwise make Delete forget what to delete.
const privateObjects = "applied_objects"

func appliedObjects(ctx context.Context, p privateState, diags *diag.Diagnostics) queueObjectNames {
	var o queueObjectNames
	b, d := p.GetKey(ctx, privateObjects)
	diags.Append(d...)
	if len(b) > 0 {
		_ = json.Unmarshal(b, &o)
	}
	return o
}

func recordObjects(ctx context.Context, p privateState, o queueObjectNames, diags *diag.Diagnostics) {
	b, _ := json.Marshal(o)
	diags.Append(p.SetKey(ctx, privateObjects, b)...)
}

// privateSpecs records, per shared object ("Kind/name"), the spec this queue last applied, in kueueuse's words, so
// that a later apply knows a live spec it wrote itself from one another queue wrote.
const privateSpecs = "applied_specs"

func recordSpecs(ctx context.Context, p privateState, m *kueueQueueModel, diags *diag.Diagnostics) {
	b, _ := json.Marshal(specMap(declaredSpecs(m)))
	diags.Append(p.SetKey(ctx, privateSpecs, b)...)
}

// appliedSpecs reads what recordSpecs kept; nil when nothing was (a state from before the record existed).
func appliedSpecs(ctx context.Context, p privateState, diags *diag.Diagnostics) map[string]string {
	b, d := p.GetKey(ctx, privateSpecs)
	diags.Append(d...)
	if len(b) == 0 {
		return nil
	}
	var out map[string]string
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

func specMap(specs []kueueuse.Spec) map[string]string {
	out := map[string]string{}
	for _, s := range specs {
		out[s.Kind+"/"+s.Name] = s.Words
	}
	return out
}
