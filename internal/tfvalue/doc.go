// Package tfvalue holds what every resource needs between Terraform's values and Go's: conversions, reads of
// configurations whose values may be unknown, top-level reads and writes of raw plans, and private state records. It
// knows no resource.
package tfvalue
