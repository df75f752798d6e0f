package poolpair

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
)

// unknownTypeNeed is an attribute the provider cannot derive from a machine type it does not know.
type unknownTypeNeed struct {
	attr string
	set  bool
	what string
}

// askFor asks for each unset attribute the provider cannot derive from an unknown machine type; source says where
// the user finds it.
func askFor(machineType, source string, diags *diag.Diagnostics, needs ...unknownTypeNeed) {
	for _, need := range needs {
		if !need.set {
			diags.AddAttributeError(path.Root(need.attr), need.attr+" is needed for an unknown machine type",
				fmt.Sprintf("The provider cannot derive %s of %s: set %s, as %s for this machine type.", need.what, machineType, need.attr, source))
		}
	}
}
