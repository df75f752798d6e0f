// Package drift tells what another writer changed on an object the provider wrote: every field the provider's
// write set, compared with what that write left, lists compared as the API server compares them (atomic, keyed by
// their map keys, or sets) because the comparison runs on the server's own OpenAPI schemas through the same
// structured-merge-diff library the server uses for server-side apply.
//
// Why not a server-side-apply dry run per object, as kubectl diff does: that is one write request per object per
// plan, through Kueue's webhooks, and the plan has to stay close to the plugin floor at a thousand jobs. The schema
// is read once per cluster and process; the comparison makes no request at all.
//
// Why not the live managedFields alone: a field another writer changes leaves the provider's entry there, so the live
// entry shrinks exactly where the drift is. What the provider owns is taken from the server's answer to its own
// write, kept by the caller (a Baseline), and compared with the live object later.
package drift
