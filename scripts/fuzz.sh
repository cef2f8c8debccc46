#!/usr/bin/env bash
# Runs every go test fuzz target in the module for $1 (default 15s) each.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-15s}
status=0
while IFS= read -r line; do
  file=${line%%:*}
  name=$(sed -E 's/^.*func (Fuzz[A-Za-z0-9_]*).*/\1/' <<<"${line#*:}")
  pkg=$(dirname "$file")
  echo "== $pkg $name ($fuzztime)"
  go test -run='^$' -fuzz="^${name}\$" -fuzztime="$fuzztime" "$pkg" || status=1
done < <(grep -rn --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(' . | grep -v '^./guest-sdk/go/' | sed -E 's/^([^:]*):[0-9]+:/\1:/')
exit $status
