package provider

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/tfvalue"
)

// NewServer is the provider's protocol server: the framework's, with the fast path for the calls a plan of many
// resources makes many times.
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
		fast := newFastServer(inner, own.Resources, own.providerData)
		own.server = fast
		return fast, nil
	}
}

// NewDefaultServer serves a provider of this version, for main.
func NewDefaultServer(version string) func() (tfprotov6.ProviderServer, error) {
	return NewServer(&dwsProvider{version: version})
}

// providerData is what the last Configure gave resources, untyped nil before (as the framework passes it).
func (p *dwsProvider) providerData() any {
	if d := p.configured.Load(); d != nil {
		return d
	}
	return nil
}

// server is the framework's protocol server with four shortcuts on the paths a plan of N RayJobs takes N times, each
// answering what the framework would (bench/README.md has what each saves):
//   - PlanResourceChange of a resource whose proposed state is its prior state (plan_shortcut.go);
//   - ReadResource of a resource that can refresh its scalar attributes alone (a scalarReader: the RayJob);
//   - UpgradeResourceState of a state of the current schema version;
//   - ValidateResourceConfig, in one walk of the configuration (validate_shortcut.go).
//
// Each has a differential test that runs it against the plain framework server on generated cases and requires
// equal answers: plan_shortcut_diff_test.go, read_shortcut_diff_acc_test.go (on the local stack),
// upgrade_shortcut_diff_test.go and validate_shortcut_diff_test.go.
type server struct {
	tfprotov6.ProviderServer
	// resources are the provider's; providerData is what its last Configure gave them.
	resources    func(context.Context) []func() resource.Resource
	providerData func() any

	typesOnce sync.Once
	types     map[string]tftypes.Type
	idTypes   map[string]tftypes.Type
	versions  map[string]int64
	plans     map[string]*planShortcut
	validates map[string]*validateShortcut
	readers   map[string]scalarReader
}

func newFastServer(inner tfprotov6.ProviderServer, resources func(context.Context) []func() resource.Resource, providerData func() any) *server {
	return &server{ProviderServer: inner, resources: resources, providerData: providerData}
}

// planShortcutter is a resource whose unchanged plans the server may answer: one a configuration has many of, or
// that every configuration has. The shortcut is exact for any resource (planShortcut); opting in only keeps its
// set-up small.
type planShortcutter interface {
	resource.Resource
	ShortcutPlans()
}

// scalarReader is a resource whose Read, for an object that is there and unchanged in what the resource manages,
// changes only scalar attributes: ReadScalars refreshes them on the state's value (tfvalue.FillScalars and
// tfvalue.SetScalars do the decoding), and says whether any changed. ok false hands the call to the framework's Read (an error, a gone object
// or cluster, private state it does not know).
//
// IdentityData is the identity of the object with this id, as the resource's Read sets it.
type scalarReader interface {
	ReadScalars(ctx context.Context, providerData any, state tftypes.Value, private []byte) (updated tftypes.Value, changed, ok bool)
	IdentityData(id string) (*tfprotov6.ResourceIdentityData, error)
}

// ValidateResourceConfig validates as the framework does, in one walk of the configuration (validateShortcut):
// Terraform validates each of N jobs' configurations again as it plans it.
func (s *server) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	typ := s.valueType(ctx, req.TypeName)
	if vs := s.validates[req.TypeName]; vs != nil && typ != nil {
		if resp, ok := vs.validate(ctx, req, typ, s.providerData()); ok {
			return resp, nil
		}
	}
	return s.ProviderServer.ValidateResourceConfig(ctx, req)
}

func (s *server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	if s.unchanged(ctx, req) {
		// The framework plans the prior identity too: the shortcut takes no plan whose ModifyPlan sets another.
		return &tfprotov6.PlanResourceChangeResponse{PlannedState: req.ProposedNewState, PlannedPrivate: req.PriorPrivate, PlannedIdentity: req.PriorIdentity}, nil
	}
	return s.ProviderServer.PlanResourceChange(ctx, req)
}

// ReadResource refreshes a scalarReader without the framework's round trip. A refresh of N jobs is otherwise N
// framework decodes of the whole state into the model, walks for semantic equality and collection blocks, and a
// re-encoding: most of the provider's CPU in a no-change plan (bench/README.md). An unchanged one is answered with the
// prior state's own bytes. An error, a gone object or cluster, or an import goes through the framework's ReadResource.
func (s *server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	if req.CurrentState != nil {
		if resp := s.readScalars(ctx, req); resp != nil {
			return resp, nil
		}
	}
	return s.ProviderServer.ReadResource(ctx, req)
}

func (s *server) readScalars(ctx context.Context, req *tfprotov6.ReadResourceRequest) *tfprotov6.ReadResourceResponse {
	data, typ := s.providerData(), s.valueType(ctx, req.TypeName)
	r := s.readers[req.TypeName]
	if data == nil || typ == nil || r == nil {
		return nil
	}
	val, err := req.CurrentState.Unmarshal(typ)
	if err != nil {
		return nil
	}
	// Read sets the identity from the state's id whatever Terraform sent (Terraform before 1.12 sends none).
	id := tfvalue.RootString(val, "id")
	if id.IsNull() || id.IsUnknown() {
		return nil
	}
	identity, err := r.IdentityData(id.ValueString())
	if err != nil || !s.sameIdentity(req.TypeName, req.CurrentIdentity, identity) {
		return nil // the framework words the error
	}
	updated, changed, ok := r.ReadScalars(ctx, data, val, req.Private)
	if !ok {
		return nil
	}
	if !changed {
		return &tfprotov6.ReadResourceResponse{NewState: req.CurrentState, Private: req.Private, NewIdentity: identity}
	}
	dv, err := tfprotov6.NewDynamicValue(typ, updated)
	if err != nil {
		return nil
	}
	return &tfprotov6.ReadResourceResponse{NewState: &dv, Private: req.Private, NewIdentity: identity}
}

// sameIdentity reports whether the identity Terraform holds is none, or the one Read would set: another one is an
// error that the framework's Read reports.
func (s *server) sameIdentity(typeName string, held, read *tfprotov6.ResourceIdentityData) bool {
	if held == nil || held.IdentityData == nil {
		return true
	}
	typ := s.idTypes[typeName]
	if typ == nil {
		return false
	}
	h, err := held.IdentityData.Unmarshal(typ)
	if err != nil {
		return false
	}
	if h.IsNull() {
		return true
	}
	r, err := read.IdentityData.Unmarshal(typ)
	return err == nil && h.Equal(r)
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
	if prior == nil || proposed == nil || req.Config == nil || len(prior.MsgPack) == 0 ||
		!bytes.Equal(prior.MsgPack, proposed.MsgPack) {
		return false
	}
	data := s.providerData()
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
		s.idTypes = map[string]tftypes.Type{}
		if ir, err := s.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{}); err == nil && ir != nil {
			for name, sch := range ir.IdentitySchemas {
				s.idTypes[name] = sch.ValueType()
			}
		}
		s.plans, s.validates, s.readers = map[string]*planShortcut{}, map[string]*validateShortcut{}, map[string]scalarReader{}
		for _, f := range s.resources(ctx) {
			r := f()
			var md resource.MetadataResponse
			r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "dwsfallback"}, &md)
			if sr, ok := r.(scalarReader); ok {
				s.readers[md.TypeName] = sr
			}
			if _, ok := r.(planShortcutter); !ok {
				continue
			}
			ps, name := newPlanShortcut(ctx, f)
			s.plans[name] = ps
			if ps.unsupported != "schema error" {
				s.validates[name] = newValidateShortcut(ctx, f, ps.schema)
			}
		}
	})
	return s.types[typeName]
}

var _ tfprotov6.ListResourceServer = (*server)(nil)

// listServer is the framework's server as list resources reach it: tfprotov6.ProviderServer does not name the list
// calls yet (tfprotov6.ProviderServerWithListResource), so embedding it promotes neither.
func (s *server) listServer() (tfprotov6.ListResourceServer, error) {
	ls, ok := s.ProviderServer.(tfprotov6.ListResourceServer)
	if !ok {
		return nil, fmt.Errorf("the framework's server %T serves no list resources", s.ProviderServer)
	}
	return ls, nil
}

func (s *server) ListResource(ctx context.Context, req *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	ls, err := s.listServer()
	if err != nil {
		return nil, err
	}
	return ls.ListResource(ctx, req)
}

func (s *server) ValidateListResourceConfig(ctx context.Context, req *tfprotov6.ValidateListResourceConfigRequest) (*tfprotov6.ValidateListResourceConfigResponse, error) {
	ls, err := s.listServer()
	if err != nil {
		return nil, err
	}
	return ls.ValidateListResourceConfig(ctx, req)
}
