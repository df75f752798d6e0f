// Package provider is the Terraform provider: schemas, plan-time checks and CRUD. Each resource lives in files of one
// naming scheme, so that following one resource opens its own files and the packages it calls, nothing else:
//
//   - resource_<name>.go: the resource type, Metadata, Configure, CRUD, import, ValidateConfig and ModifyPlan;
//   - <name>_schema.go: its schema, one field per line;
//   - <name>_model.go, <name>_model_<topic>.go: its model structs, expand (model to API object) and flatten (API object
//     to model); rayjob_model_drift.go compares a live job with the state;
//   - <name>_api.go, <name>_api_<topic>.go: what it asks of GKE or Kubernetes: find, apply, wait, delete;
//   - <name>_validate.go: checks of a configuration whose values may still be unknown;
//   - <name>_private.go: what it keeps in private state, and why state cannot hold it.
//
// The two pool pairs are one generic resource of two kinds: resource_pool_pair.go holds the CRUD of both and
// pool_pair_*.go what they share (schema, model, API, validation); resource_tpu_pool_pair.go and
// resource_gpu_pool_pair.go say which kind, and tpu_pool_pair_*.go and gpu_pool_pair_*.go hold each kind's attributes,
// model and checks. The Kueue install is built only with the Helm SDK (kueue_install_helm.go; -tags nohelm leaves it
// out). Data sources are data_source_<name>.go.
//
// Tests follow the same scheme: resource_<name>_test.go holds a resource's unit tests and resource_<name>_acc_test.go
// (or resource_<name>_<topic>_acc_test.go) its acceptance tests; files that start with the resource's name hold all of
// its tests. Data sources are tested in the acceptance test of the resource they read (TestAccRayJob_fallback).
// Cross-cutting suites keep files of their own: faults_gke_acc_test.go and faults_kube_acc_test.go (injected
// failures), bad_input_acc_test.go (every refusal at plan time), platform_acc_test.go (modules and split states),
// import_acc_test.go (import of what gcloud and kubectl made), upgrade_acc_test.go (state written by older releases;
// upgrade_kueue_install_acc_test.go for the Helm install, on a control plane of its own),
// load_acc_test.go, secrets_acc_test.go (nothing secret in logs or state), planes_acc_test.go (each cluster its own
// control plane), and the differential tests of the
// shortcuts (*_shortcut_diff*_test.go). main_test.go holds TestMain and the shared stack; cli_test.go runs terraform,
// kubectl and testdata; steps_test.go holds checks many acceptance tests share.
//
// Shared by every cluster-scoped resource: cluster_scope.go (the cluster, project and location attributes, their
// plan-time resolution, the import id, connecting). Shared by all: values.go (conversions between Terraform and Go
// values), unknowns.go (decoding configurations with unknown values), messages.go (pieces of messages), rawmodel.go
// (Go models straight from raw values). server.go is the protocol server: it answers a few calls itself where that is
// provably the framework's answer (plan_shortcut.go, state_json.go) and hands the rest to the framework.
//
// What is not Terraform's lives elsewhere: internal/gke and internal/kube connect and explain refusals (kube also
// shares a refresh's LISTs), internal/kueueuse says who uses Kueue objects, internal/catalog holds the hardware facts.
package provider
