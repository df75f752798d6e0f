package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

func TestAccProvider_badConfiguration(t *testing.T) {
	pair := `
resource "dwsfallback_tpu_pool_pair" "test" {
  cluster      = "c"
  machine_type = "ct6e-standard-4t"
  tpu_topology = "4x4"
  max_nodes    = 4
  on_demand    = { name = "od" }
  flex_start   = { name = "dws" }
}
`
	cases := []struct{ provider, want string }{
		{`access_token = "a"
  credentials  = "{}"`, `These attributes cannot be configured together: [access_token,credentials]`},
		{`credentials = "/nonexistent/key.json"`, `reading credentials file "/nonexistent/key.json"`},
		{`container_endpoint = "ftp://127.0.0.1:1"`, `must be an http or https URL`},
		{`container_endpoint = "127.0.0.1:8080"`, `must be an http or https URL`},
	}
	var steps []resource.TestStep
	for _, tc := range cases {
		steps = append(steps, resource.TestStep{
			Config:      "provider \"dwsfallback\" {\n  " + tc.provider + "\n}\n" + pair,
			PlanOnly:    true,
			ExpectError: messageRE(tc.want),
		})
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testProviders, Steps: steps})
}

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
