// Package tfdrift is drift in Terraform's terms, for the resources that write Kubernetes objects: what the last apply
// left on each object, kept in private state (internal/drift's baselines); the drift attribute that names what an
// operator changed since; and the plan that writes it back. internal/drift compares; this package keeps and reports.
package tfdrift
