package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/drift"
	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfdrift"
)

// NewServer is the provider's protocol server: the framework's, with a shortcut for plans that change nothing.
func NewServer(p *dwsProvider) func() (tfprotov6.ProviderServer, error) {
	return func() (tfprotov6.ProviderServer, error) {
		// Each server configures a provider of its own, as Terraform starts one per provider configuration: the
		// shortcut must plan with its own server's configuration, never with another's that configured last (tests
		// run servers of several configurations at once in one process).
		own := &dwsProvider{version: p.version, backoff: p.backoff}
		inner, err := providerserver.NewProtocol6WithError(own)()
		if err != nil {
			return nil, err
		}
		return &server{ProviderServer: inner, p: own}, nil
	}
}

// NewDefaultServer serves a provider of this version, for main.
func NewDefaultServer(version string) func() (tfprotov6.ProviderServer, error) {
	return NewServer(&dwsProvider{version: version})
}

// server is the framework's protocol server with four shortcuts on the paths a plan of N RayJobs takes N times, each
// answering what the framework would (bench/README.md has what each saves):
//   - PlanResourceChange of a resource whose proposed state is its prior state (plan_shortcut.go);
//   - ReadResource of a RayJob whose managed fields did not change (readRayJob);
//   - UpgradeResourceState of a state of the current schema version;
//   - ValidateResourceConfig, in one walk of the configuration (validate_shortcut.go).
//
// Each has a differential test that runs it against the plain framework server on generated cases and requires
// equal answers: plan_shortcut_diff_test.go, read_shortcut_diff_acc_test.go (on the local stack),
// upgrade_shortcut_diff_test.go and validate_shortcut_diff_test.go.
type server struct {
	tfprotov6.ProviderServer
	p *dwsProvider

	typesOnce sync.Once
	types     map[string]tftypes.Type
	versions  map[string]int64
	plans     map[string]*planShortcut
	validates map[string]*validateShortcut
}

// shortcut lists the resource types whose plans may be short-cut: the ones a plan has many of, or that every
// configuration has. The shortcut is exact for any type (planShortcut); the list only keeps its set-up small.
var shortcut = map[string]bool{
	"dwsfallback_rayjob": true, "dwsfallback_tpu_pool_pair": true, "dwsfallback_gpu_pool_pair": true, "dwsfallback_kueue_queue": true,
}

// ValidateResourceConfig validates as the framework does, in one walk of the configuration (validateShortcut):
// Terraform validates each of N jobs' configurations again as it plans it.
func (s *server) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	typ := s.valueType(ctx, req.TypeName)
	if vs := s.validates[req.TypeName]; vs != nil && typ != nil {
		var data any // untyped nil before the provider is configured, as the framework passes it
		if d := s.p.configured.Load(); d != nil {
			data = d
		}
		if resp, ok := vs.validate(ctx, req, typ, data); ok {
			return resp, nil
		}
	}
	return s.ProviderServer.ValidateResourceConfig(ctx, req)
}

func (s *server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	if s.unchanged(ctx, req) {
		return &tfprotov6.PlanResourceChangeResponse{PlannedState: req.ProposedNewState, PlannedPrivate: req.PriorPrivate}, nil
	}
	return s.ProviderServer.PlanResourceChange(ctx, req)
}

// ReadResource refreshes a RayJob without the framework's round trip. A refresh of N jobs is otherwise N framework
// decodes of the whole state into the model, walks for semantic equality and collection blocks, and a re-encoding:
// most of the provider's CPU in a no-change plan (bench/README.md). A job's Read changes only scalar attributes (its
// status and files), so only those are decoded, refreshed as Read does, and written back into the state's value;
// an unchanged one is answered with the prior state's own bytes. An error, a gone job or cluster, or an import goes
// through the framework's ReadResource.
func (s *server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	if req.TypeName == "dwsfallback_rayjob" && req.CurrentState != nil {
		if resp := s.readRayJob(ctx, req); resp != nil {
			return resp, nil
		}
	}
	return s.ProviderServer.ReadResource(ctx, req)
}

func (s *server) readRayJob(ctx context.Context, req *tfprotov6.ReadResourceRequest) *tfprotov6.ReadResourceResponse {
	data, typ := s.p.configured.Load(), s.valueType(ctx, req.TypeName)
	if data == nil || typ == nil {
		return nil
	}
	baselines, ok := onlyBaselines(req.Private)
	if !ok {
		return nil
	}
	val, err := req.CurrentState.Unmarshal(typ)
	var st rayJobModel
	if err != nil || !fillScalars(ctx, val, &st) {
		return nil
	}
	changed, ok := refreshScalars(ctx, data, &st, baselines)
	if !ok {
		return nil
	}
	if !changed {
		return &tfprotov6.ReadResourceResponse{NewState: req.CurrentState, Private: req.Private}
	}
	updated, err := setScalars(ctx, val, &st)
	if err != nil {
		return nil
	}
	dv, err := tfprotov6.NewDynamicValue(typ, updated)
	if err != nil {
		return nil
	}
	return &tfprotov6.ReadResourceResponse{NewState: &dv, Private: req.Private}
}

// onlyBaselines reads a RayJob's private state when it holds nothing but its drift baselines (or nothing at all), in
// the framework's encoding (a JSON object of base64 JSON values); ok is false for anything else (an import's mark),
// which the framework's Read handles.
func onlyBaselines(private []byte) (b map[string]drift.Baseline, ok bool) {
	if len(private) == 0 {
		return nil, true
	}
	var keys map[string][]byte
	if json.Unmarshal(private, &keys) != nil || len(keys) != 1 {
		return nil, false
	}
	raw, found := keys[tfdrift.PrivateKey]
	var all map[string]drift.Baseline
	if !found || json.Unmarshal(raw, &all) != nil {
		return nil, false
	}
	return all, true
}

// UpgradeResourceState answers a state of the current schema version as the framework does, without building its
// state object only to convert it back: Terraform asks for every resource instance before each refresh.
func (s *server) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	typ := s.valueType(ctx, req.TypeName)
	if typ == nil || req.RawState == nil || len(req.RawState.JSON) == 0 || req.Version != s.versions[req.TypeName] {
		return s.ProviderServer.UpgradeResourceState(ctx, req)
	}
	val, ok := valueFromStateJSON(typ, req.RawState.JSON)
	if !ok {
		var err error
		val, err = req.RawState.UnmarshalWithOpts(typ, tfprotov6.UnmarshalOpts{
			ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true},
		})
		if err != nil {
			return s.ProviderServer.UpgradeResourceState(ctx, req) // the framework words the error
		}
	}
	dv, err := tfprotov6.NewDynamicValue(typ, val)
	if err != nil {
		return s.ProviderServer.UpgradeResourceState(ctx, req)
	}
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &dv}, nil
}

func (s *server) unchanged(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) bool {
	prior, proposed := req.PriorState, req.ProposedNewState
	if !shortcut[req.TypeName] || prior == nil || proposed == nil || req.Config == nil || len(prior.MsgPack) == 0 ||
		!bytes.Equal(prior.MsgPack, proposed.MsgPack) {
		return false
	}
	data := s.p.configured.Load()
	typ := s.valueType(ctx, req.TypeName)
	ps := s.plans[req.TypeName]
	if data == nil || typ == nil || ps == nil || ps.unsupported != "" {
		return false
	}
	return ps.unchanged(ctx, data, req, typ)
}

// valueType is the object type of a resource's state, from the schema the framework serves.
func (s *server) valueType(ctx context.Context, typeName string) tftypes.Type {
	s.typesOnce.Do(func() {
		s.types, s.versions = map[string]tftypes.Type{}, map[string]int64{}
		resp, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		if err != nil || resp == nil {
			return
		}
		for name, sch := range resp.ResourceSchemas {
			s.types[name], s.versions[name] = sch.ValueType(), sch.Version
		}
		s.plans, s.validates = map[string]*planShortcut{}, map[string]*validateShortcut{}
		for _, f := range s.p.Resources(ctx) {
			if ps, name := newPlanShortcut(ctx, f); shortcut[name] {
				s.plans[name] = ps
				if ps.unsupported != "schema error" {
					s.validates[name] = newValidateShortcut(ctx, f, ps.schema)
				}
			}
		}
	})
	return s.types[typeName]
}
