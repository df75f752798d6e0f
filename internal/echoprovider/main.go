// Command echoprovider is the plugin floor of the bench: a provider process that serves this provider's schema and
// does nothing else. It validates nothing, reads nothing (a refresh returns the state it is given) and plans no change
// (the prior state): the bench runs it only on a stack that is up to date. A plan against it costs what Terraform and the plugin protocol spend on resources of this
// schema (process starts, gRPC, msgpack, Terraform's own checks of each response), the least any provider with
// these resources can cost. The bench plans the same state with it, beside terraform_data's floor.
package main

import (
	"context"
	"log"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/provider"
)

func main() {
	inner, err := provider.NewDefaultServer("echo")()
	if err != nil {
		log.Fatal(err)
	}
	if err := tf6server.Serve("registry.terraform.io/dwsfallback/dwsfallback", func() tfprotov6.ProviderServer {
		return &echo{ProviderServer: inner}
	}); err != nil {
		log.Fatal(err)
	}
}

// echo answers every call of a plan with the least a provider must send back.
type echo struct {
	tfprotov6.ProviderServer

	once  sync.Once
	types map[string]tftypes.Type
}

func (e *echo) typeOf(ctx context.Context, name string) tftypes.Type {
	e.once.Do(func() {
		e.types = map[string]tftypes.Type{}
		if resp, err := e.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err == nil {
			for n, s := range resp.ResourceSchemas {
				e.types[n] = s.ValueType()
			}
		}
	})
	return e.types[name]
}

func (e *echo) ValidateProviderConfig(_ context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	return &tfprotov6.ValidateProviderConfigResponse{PreparedConfig: req.Config}, nil
}

func (e *echo) ConfigureProvider(context.Context, *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	return &tfprotov6.ConfigureProviderResponse{}, nil
}

func (e *echo) ValidateResourceConfig(context.Context, *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	return &tfprotov6.ValidateResourceConfigResponse{}, nil
}

// UpgradeResourceState must turn the stored JSON into the wire's msgpack: every provider pays that.
func (e *echo) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	typ := e.typeOf(ctx, req.TypeName)
	val, err := req.RawState.UnmarshalWithOpts(typ, tfprotov6.UnmarshalOpts{
		ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true},
	})
	if err != nil {
		return nil, err
	}
	dv, err := tfprotov6.NewDynamicValue(typ, val)
	if err != nil {
		return nil, err
	}
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &dv}, nil
}

func (e *echo) ReadResource(_ context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	return &tfprotov6.ReadResourceResponse{NewState: req.CurrentState, Private: req.Private}, nil
}

// PlanResourceChange answers the prior state: the proposed one would drop the defaults a real provider plans.
func (e *echo) PlanResourceChange(_ context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	planned := req.PriorState
	if planned == nil {
		planned = req.ProposedNewState
	}
	return &tfprotov6.PlanResourceChangeResponse{PlannedState: planned, PlannedPrivate: req.PriorPrivate}, nil
}
