#!/usr/bin/env bash
# Builds the Terraform CLI of a version from its Go module into a binary, for versions `go install` refuses.
#
# Terraform's go.mod (1.12 on) replaces nine remote-state backends (azurerm, consul, cos, gcs, kubernetes, oss, pg, s3,
# oci) and internal/legacy with folders of their own modules, which the module's zip leaves out, so `go install
# github.com/hashicorp/terraform@v1.16.4` fails. In a temporary copy of the module, this script takes those nine
# backends out of internal/backend/init/init.go and their require/replace lines out of go.mod, then builds. Core,
# plan, apply, import, query and the local, http, inmem, remote and cloud backends are untouched; nothing of
# Terraform's source enters this repository.
#
# Usage: scripts/build-terraform.sh VERSION OUTPUT   (e.g. 1.16.4 .local/bin/terraform-1.16.4)
set -euo pipefail
version=${1:?version, e.g. 1.16.4}
out=${2:?output binary path}
case $out in /*) ;; *) out=$PWD/$out ;; esac

dir=$(GOFLAGS=-mod=mod go mod download -json "github.com/hashicorp/terraform@v$version" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$dir" ] || { echo "the module proxy has no github.com/hashicorp/terraform@v$version" >&2; exit 1; }

work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cp -R "$dir" "$work/terraform"
chmod -R u+w "$work/terraform"
cd "$work/terraform"

backends='azure|consul|cos|gcs|kubernetes|oss|pg|s3|oci'
# The imports of the missing backends, and their lines in the map of backends.
sed -i -E "/internal\/backend\/remote-state\/($backends)\"$/d" internal/backend/init/init.go
sed -i -E '/"(azurerm|consul|cos|gcs|kubernetes|oss|pg|s3|oci)": +func\(\) backend.Backend/d' internal/backend/init/init.go
# Their modules, and internal/legacy (which only they import), in go.mod.
sed -i -E "/github.com\/hashicorp\/terraform\/internal\/(backend\/remote-state\/($backends)|legacy)( |$)/d" go.mod
if grep -qE "remote-state/($backends)\"|terraform/internal/legacy\"" internal/backend/init/init.go; then
  echo "internal/backend/init/init.go still imports a backend this script removes: its layout changed" >&2
  exit 1
fi

# As Terraform's release builds set it (version.dev=no): `terraform version` then says $version, without "-dev".
GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/hashicorp/terraform/version.dev=no" -o "$out" .
"$out" version
