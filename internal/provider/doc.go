// Package provider is the Terraform provider: schemas, plan-time checks and CRUD. Each resource lives in files of
// one naming scheme, so that following one resource opens its own files and internal/kube or internal/gke, nothing
// else:
//
//   - resource_<name>.go: the resource type, Metadata, Configure, CRUD, import, ValidateConfig and ModifyPlan;
//   - <name>_schema.go: its schema;
//   - <name>_model.go: its model structs, expand (model to API object) and flatten (API object to model);
//   - <name>_api.go, <name>_api_<topic>.go: what it asks of GKE or Kubernetes: find, apply, wait, delete;
//   - <name>_validate.go: checks of a configuration whose values may still be unknown.
//
// Shared by every cluster-scoped resource: cluster_scope.go (the cluster, project and location attributes, their
// plan-time resolution, the import id, connecting) and kube_errors.go (what a Kubernetes refusal means and how to fix
// it). Shared by all: framework.go (conversions between Terraform and Go values, and decoding configurations with
// unknown values).
package provider
