#!/usr/bin/env bash
# Fails when a name in a list of tests matches no test of the package: `go test -run` runs nothing for a name that
# no longer exists, and says nothing of it.
# Usage: scripts/check-test-names.sh PACKAGE 'TestA|TestB|...'
set -euo pipefail
pkg=${1:?package}
names=${2:?test names, separated by |}
have=$(go test -list "^($names)\$" "$pkg" | grep -E '^Test' || true)
missing=0
IFS='|' read -ra want <<<"$names"
for n in "${want[@]}"; do
  grep -qx -- "$n" <<<"$have" || { echo "no test $n in $pkg: its name changed or it was removed" >&2; missing=1; }
done
exit $missing
