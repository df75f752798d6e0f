package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/dwsfallback/terraform-provider-dwsfallback/internal/provider"
)

// Generate the docs from the schema, templates/ and examples/ (see GNUmakefile's generate target).
//go:generate sh -c "cd tools && go tool tfplugindocs generate --provider-dir .. --provider-name dwsfallback"

// version is set by goreleaser through ldflags.
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()
	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/dwsfallback/dwsfallback",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}
