package provider

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// checkUpgradeIdentities takes each resource of tf's state, written by a release that set no identities, through
// the protocol server as Terraform 1.12 and later do on the first refresh after a provider upgrade (CI's Terraform
// sends no identities): UpgradeResourceState, then ReadResource without an identity. The identity that Read sets
// must be the one an import of the same id gives, and the next Read must keep it.
func checkUpgradeIdentities(t *testing.T, tf *tfRun, providerConfig map[string]any) {
	t.Helper()
	ctx := context.Background()
	s, _ := configuredServer(t, providerConfig)
	ids := identityTypes(t, ctx, s)
	var st struct {
		Resources []struct {
			Mode, Type, Name string
			Instances        []struct {
				SchemaVersion int64           `json:"schema_version"`
				Attributes    json.RawMessage `json:"attributes"`
				Private       string          `json:"private"`
			}
		}
	}
	b, err := json.Marshal(readState(t, tf.dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	identityOf := func(typ string, d *tfprotov6.ResourceIdentityData) map[string]string {
		if d == nil {
			return nil
		}
		return stringAttrs(t, ids[typ], d.IdentityData, nil)
	}
	checked := 0
	defer func() {
		if checked == 0 {
			t.Error("the state holds no resource to check")
		}
	}()
	for _, r := range st.Resources {
		if r.Mode != "managed" {
			continue
		}
		for _, inst := range r.Instances {
			addr := r.Type + "." + r.Name
			checked++
			private, err := base64.StdEncoding.DecodeString(inst.Private)
			if err != nil {
				t.Fatal(err)
			}
			up, err := s.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{TypeName: r.Type, Version: inst.SchemaVersion,
				RawState: &tfprotov6.RawState{JSON: inst.Attributes}})
			if err != nil {
				t.Fatalf("%s: upgrade: %v", addr, err)
			}
			if len(up.Diagnostics) > 0 {
				t.Fatalf("%s: upgrade: %v", addr, up.Diagnostics)
			}
			read := func(state *tfprotov6.DynamicValue, private []byte, current *tfprotov6.ResourceIdentityData) *tfprotov6.ReadResourceResponse {
				rr, err := s.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: r.Type, CurrentState: state,
					Private: private, CurrentIdentity: current})
				if err != nil {
					t.Fatalf("%s: read: %v", addr, err)
				}
				if len(rr.Diagnostics) > 0 {
					t.Fatalf("%s: read: %v", addr, rr.Diagnostics)
				}
				return rr
			}
			refreshed := read(up.UpgradedState, private, nil)
			first := refreshed.NewIdentity
			var attrs struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(inst.Attributes, &attrs); err != nil {
				t.Fatal(err)
			}
			imp, err := s.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{TypeName: r.Type, ID: attrs.ID})
			if err != nil {
				t.Fatalf("%s: import %s: %v", addr, attrs.ID, err)
			}
			if len(imp.Diagnostics) > 0 || len(imp.ImportedResources) != 1 {
				t.Fatalf("%s: import %s: %v, %d resources", addr, attrs.ID, imp.Diagnostics, len(imp.ImportedResources))
			}
			want := identityOf(r.Type, imp.ImportedResources[0].Identity)
			if diff := cmp.Diff(want, identityOf(r.Type, first)); want == nil || diff != "" {
				t.Errorf("%s: identity after the upgrade, against an import of %s (-want +got):\n%s", addr, attrs.ID, diff)
			}
			// The next refresh sends what the first left: its state, private state and identity.
			next := read(refreshed.NewState, refreshed.Private, first).NewIdentity
			if diff := cmp.Diff(identityOf(r.Type, first), identityOf(r.Type, next)); diff != "" {
				t.Errorf("%s: identity on the next read (-first +next):\n%s", addr, diff)
			}
		}
	}
}
