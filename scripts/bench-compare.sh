#!/usr/bin/env bash
# bench-compare.sh BASE — runs the sandbox's chain-start and bridge
# round-trip benchmarks of the revision BASE and of the working tree,
# interleaved (base, head, base, head, … BENCHCOUNT times each), so that both
# see the same machine at the same moments, and writes benchstat's
# comparison to bench/compare.txt (raw runs under bench/raw/).
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: scripts/bench-compare.sh BASE-REVISION}
count=${BENCHCOUNT:-6}
benchstat=${BENCHSTAT:-benchstat}
tmp=$(mktemp -d)
cleanup() {
  git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
git worktree add --detach -q "$tmp/base" "$base"
(cd "$tmp/base" && go test -c -o "$tmp/base.test" ./sandbox)
go test -c -o "$tmp/head.test" ./sandbox
pattern='^Benchmark(ChainStart|BridgeRoundTrip)$'
stamp=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p bench/raw
for _ in $(seq "$count"); do
  for side in base head; do
    (cd sandbox && "$tmp/$side.test" -test.run '^$' -test.bench "$pattern" -test.benchmem -test.count 1) \
      | grep '^Benchmark' >> "bench/raw/compare-$stamp-$side.txt"
  done
done
{
  echo "# $(go version) on $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "# base $(git rev-parse --short "$base"), head $(git rev-parse --short HEAD)$(git diff --quiet -- . ':!bench' || echo ' (with uncommitted changes)'), interleaved, $count runs each"
  "$benchstat" base="bench/raw/compare-$stamp-base.txt" head="bench/raw/compare-$stamp-head.txt"
} > bench/compare.txt
echo "comparison: bench/compare.txt"
