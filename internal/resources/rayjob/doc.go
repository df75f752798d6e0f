// Package rayjob is the dwsfallback_rayjob resource (a KubeRay RayJob queued in Kueue, with its training files in a
// ConfigMap) and the two data sources that read jobs: dwsfallback_rayjob and dwsfallback_workloads. It exports only
// their constructors, and ForgetSharedReads for the read shortcut's differential test. The provider's server
// refreshes jobs through ReadScalars and plans them through its unchanged-plan shortcut (ShortcutPlans).
package rayjob
