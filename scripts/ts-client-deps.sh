#!/usr/bin/env bash
# ts-client-deps.sh — installs the TypeScript client's build and test tools
# (clients/typescript: typescript, openapi-typescript, @types/node) at the
# exact versions and integrity hashes of clients/typescript/package-lock.json,
# with `npm ci`, into a cache directory outside the repo, and links
# clients/typescript/node_modules (git-ignored) to it. The client itself has
# no runtime dependencies.
#
# The directory is ${XDG_CACHE_HOME:-$HOME/.cache}/airlock/ts-client
# (override with AIRLOCK_TS_CLIENT_DIR). It is reinstalled when the lock file
# changes. Prints the directory.
set -euo pipefail
cd "$(dirname "$0")/.."
readonly DIR="${AIRLOCK_TS_CLIENT_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/airlock/ts-client}"
if ! cmp -s clients/typescript/package-lock.json "$DIR/package-lock.json" ||
	[[ ! -x "$DIR/node_modules/.bin/tsc" ]]; then
	command -v npm >/dev/null 2>&1 || { echo "ts-client-deps.sh: npm is required (install nodejs and npm)" >&2; exit 1; }
	echo "ts-client-deps.sh: npm ci of clients/typescript's dev tools into $DIR" >&2
	rm -rf "$DIR"
	mkdir -p "$DIR"
	cp clients/typescript/package.json clients/typescript/package-lock.json "$DIR/"
	npm ci --prefix "$DIR" --no-audit --no-fund --loglevel=error >&2
fi
if [[ "$(readlink clients/typescript/node_modules 2>/dev/null)" != "$DIR/node_modules" ]]; then
	rm -rf clients/typescript/node_modules
	ln -s "$DIR/node_modules" clients/typescript/node_modules
fi
echo "$DIR"
