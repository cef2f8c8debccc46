#!/usr/bin/env bash
# Runs the benchmarks BENCHCOUNT times (default 6) and summarises them with
# benchstat (medians with confidence intervals) into bench/latest.txt. The raw
# runs go to bench/raw/. BENCHMARKS.md quotes bench/latest.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${BENCHCOUNT:-6}
benchstat=${BENCHSTAT:-benchstat}
mkdir -p bench/raw
raw=bench/raw/$(date -u +%Y%m%dT%H%M%SZ).txt
{
  echo "# $(go version) on $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "# command: go test -p 1 -run '^\$' -bench . -benchmem -count $count ./..."
} > "$raw"
go test -p 1 -run '^$' -bench . -benchmem -count "$count" -timeout 60m ./... 2>&1 | tee -a "$raw"
"$benchstat" "$raw" > bench/latest.txt
echo "summary: bench/latest.txt (raw: $raw)"
