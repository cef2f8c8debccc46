#!/usr/bin/env bash
# peer-deps.sh — installs the peer airlock is benchmarked against
# (internal/peerbench, BENCHMARKS.md "Against the peer"): quickjs-emscripten
# at the exact version and integrity hashes of bench/peer/package-lock.json,
# with `npm ci`, into a cache directory outside the repo, and links
# bench/peer/node_modules (git-ignored) to it.
#
# The directory is ${XDG_CACHE_HOME:-$HOME/.cache}/airlock/peer (override with
# AIRLOCK_PEER_DIR). It is reinstalled when the lock file changes. Prints the
# directory.
set -euo pipefail
cd "$(dirname "$0")/.."
readonly DIR="${AIRLOCK_PEER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/airlock/peer}"
if ! cmp -s bench/peer/package-lock.json "$DIR/package-lock.json" ||
	[[ ! -f "$DIR/node_modules/quickjs-emscripten/package.json" ]]; then
	command -v npm >/dev/null 2>&1 || { echo "peer-deps.sh: npm is required (install nodejs and npm)" >&2; exit 1; }
	echo "peer-deps.sh: npm ci of bench/peer into $DIR" >&2
	rm -rf "$DIR"
	mkdir -p "$DIR"
	cp bench/peer/package.json bench/peer/package-lock.json "$DIR/"
	npm ci --prefix "$DIR" --no-audit --no-fund --loglevel=error >&2
fi
if [[ "$(readlink bench/peer/node_modules 2>/dev/null)" != "$DIR/node_modules" ]]; then
	rm -rf bench/peer/node_modules
	ln -s "$DIR/node_modules" bench/peer/node_modules
fi
echo "$DIR"
