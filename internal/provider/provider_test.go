package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// The token reaches GKE only as a header: it is never in state. (A full TRACE-log scan is issue 6's.)
func TestAccProvider_tokenNotInState(t *testing.T) {
	createTestCluster(t, "acc-secret")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: "provider \"dwsfallback\" {\n  access_token = \"" + testToken + "\"\n}\n" + pairConfig("acc-secret", "od", "dws", 4),
			Check: func(s *terraform.State) error {
				return assertNotInState(s, testToken)
			},
		}},
	})
}

func assertNotInState(s *terraform.State, secret string) error {
	for addr, rs := range s.RootModule().Resources {
		for k, v := range rs.Primary.Attributes {
			if strings.Contains(v, secret) {
				return fmt.Errorf("%s.%s holds the access token", addr, k)
			}
		}
	}
	return nil
}
