// Package provider is the composition root: the provider type and its configuration (provider.go), the list of its
// resources, data sources and functions, how resources reach clusters (providerData, and provider_workers.go for
// MultiKueue workers), and the protocol server (server.go).
//
// Each resource lives in a package of its own under internal/resources, which exports only its constructor:
// cluster, poolpair (the TPU and GPU pool pairs, one generic resource of two kinds), kueuequeue, kueueinstall (built
// only with the Helm SDK: resources_helm.go lists it, resources_nohelm.go leaves it out under -tags nohelm),
// computeclass, multikueue (worker and config), rayjob (the resource and both data sources; it also exports
// ForgetSharedReads, for the read shortcut's differential test). So one resource cannot
// reach into another; what they share is a package of its own: internal/clusterscope (the cluster, project and
// location attributes, import ids, reaching GKE and Kubernetes), internal/tfvalue (Terraform values to Go and back),
// internal/identity (each kind's resource identity, read from its id), internal/listing (list resources, from
// each kind's way of finding its objects), internal/tfdrift (drift baselines in private state, the drift attribute), and, with no Terraform in them,
// internal/gke, internal/gkedrift, internal/gkeclass, internal/kube, internal/kueueuse, internal/multikueue,
// internal/wellknown and internal/catalog.
//
// server.go is the framework's protocol server with a fast path for the calls a plan of many resources makes many
// times: it answers a few calls itself where that is provably the framework's answer (plan_shortcut.go,
// validate_shortcut.go, state_json.go) and hands the rest to the framework. It names no resource: a resource opts in
// by implementing planShortcutter (its unchanged plans) or scalarReader (its refresh of scalar attributes).
//
// The acceptance tests stay here, black-box: they drive the provider through Terraform and look at GKE and
// Kubernetes as a user would. resource_<name>_acc_test.go (or resource_<name>_<topic>_acc_test.go) holds a resource's;
// cross-cutting suites keep files of their own: faults_gke_acc_test.go and faults_kube_acc_test.go (injected
// failures), bad_input_acc_test.go (every refusal at plan time), platform_acc_test.go (modules and split states),
// import_acc_test.go (import of what gcloud and kubectl made), upgrade_acc_test.go (state written by older releases;
// upgrade_kueue_install_acc_test.go for the Helm install, on a control plane of its own), load_acc_test.go,
// secrets_acc_test.go (nothing secret in logs or state), planes_acc_test.go (each cluster its own control plane), the
// generated drift tests (*drift_acc_test.go), and the differential tests of the server's shortcuts
// (*_shortcut_diff*_test.go, plan_defaults_test.go). main_test.go holds TestMain and the shared stack; cli_test.go runs
// terraform, kubectl and testdata; steps_test.go holds checks many acceptance tests share. A resource's unit tests
// live in its package.
package provider
