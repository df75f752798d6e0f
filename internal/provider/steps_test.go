package provider

import (
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// messageRE matches a message however Terraform wraps it across lines.
func messageRE(msg string) *regexp.Regexp {
	return regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta(msg), " ", `\s+`))
}

// patternRE is a regular expression matched across Terraform's line wrapping: each space matches any white space.
func patternRE(pattern string) *regexp.Regexp {
	return regexp.MustCompile(strings.ReplaceAll(pattern, " ", `\s+`))
}

// driftStep is a step whose PreConfig changes something by hand and whose plan must update addr with want at attr.
func driftStep(config, addr, attr string, want knownvalue.Check, change func()) resource.TestStep {
	return resource.TestStep{
		PreConfig: change,
		Config:    config,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
			plancheck.ExpectKnownValue(addr, tfjsonpath.New(attr), want),
		}},
	}
}

// waitFor polls ok until it holds or d has passed, and says which.
func waitFor(d time.Duration, ok func() bool) bool {
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}
