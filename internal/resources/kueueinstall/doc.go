// Package kueueinstall is the dwsfallback_kueue_install resource: Kueue installed by its Helm chart with the feature
// gates the fallback needs. It is built only with the Helm SDK (not under -tags nohelm); it exports New and ListKind,
// its list resource.
package kueueinstall
