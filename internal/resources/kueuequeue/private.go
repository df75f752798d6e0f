package kueuequeue

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/kueueuse"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// A queue keeps two records in private state, which state cannot tell: a refresh reads the live objects back into
// state, and drops from it those deleted out of band.

// privateObjects is the record of every object name this resource applied: Read drops objects deleted out of band
// from state (so the plan shows them), which would otherwise make Delete forget what to delete.
const privateObjects = "applied_objects"

func appliedObjects(ctx context.Context, p tfvalue.PrivateState, diags *diag.Diagnostics) queueObjectNames {
	var o queueObjectNames
	tfvalue.ReadPrivate(ctx, p, privateObjects, &o, diags)
	return o
}

func recordObjects(ctx context.Context, p tfvalue.PrivateState, o queueObjectNames, diags *diag.Diagnostics) {
	tfvalue.WritePrivate(ctx, p, privateObjects, o, diags)
}

// privateSpecs records, per shared object ("Kind/name"), the spec this queue last applied, in kueueuse's words, so
// that a later apply knows a live spec it wrote itself from one another queue wrote.
const privateSpecs = "applied_specs"

func recordSpecs(ctx context.Context, p tfvalue.PrivateState, m *kueueQueueModel, diags *diag.Diagnostics) {
	tfvalue.WritePrivate(ctx, p, privateSpecs, specMap(declaredSpecs(m)), diags)
}

// appliedSpecs reads what recordSpecs kept; nil when nothing was (a state from before the record existed).
func appliedSpecs(ctx context.Context, p tfvalue.PrivateState, diags *diag.Diagnostics) map[string]string {
	var out map[string]string
	if !tfvalue.ReadPrivate(ctx, p, privateSpecs, &out, diags) {
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
