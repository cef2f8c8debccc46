#!/usr/bin/env bash
# mcp-deps.sh — installs the MCP programs the tests talk to, from npm, at
# pinned versions, into a cache directory outside the repo:
#
#   @modelcontextprotocol/server-everything  the reference MCP server (stdio and
#                                            streamable HTTP), for the client tests
#   @modelcontextprotocol/inspector          the official inspector; its CLI mode
#                                            (`inspector --cli ...`) is an MCP client,
#                                            for the server tests
#
# The directory is ${XDG_CACHE_HOME:-$HOME/.cache}/airlock/npm (override with
# AIRLOCK_NPM_DIR); the tests look there. Prints the directory.
# `mcp-deps.sh --list` prints the pinned packages, one a line, and installs
# nothing.
set -euo pipefail
readonly DIR="${AIRLOCK_NPM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/airlock/npm}"
readonly PACKAGES=(
	"@modelcontextprotocol/server-everything@2026.8.31"
	"@modelcontextprotocol/inspector@2.12.0"
)
if [[ ${1:-} == --list ]]; then
	printf '%s\n' "${PACKAGES[@]}"
	exit 0
fi
installed() { # name@version
	local name=${1%@*} version=${1##*@}
	[[ -f "$DIR/node_modules/$name/package.json" ]] &&
		node -e 'process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)' \
			"$DIR/node_modules/$name/package.json" "$version"
}
missing=()
for p in "${PACKAGES[@]}"; do
	installed "$p" || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
	command -v npm >/dev/null 2>&1 || { echo "mcp-deps.sh: npm is required (install nodejs and npm)" >&2; exit 1; }
	mkdir -p "$DIR"
	echo "mcp-deps.sh: installing ${missing[*]} into $DIR" >&2
	npm install --prefix "$DIR" --no-audit --no-fund --save-exact --loglevel=error "${PACKAGES[@]}" >&2
	for p in "${PACKAGES[@]}"; do
		installed "$p" || { echo "mcp-deps.sh: $p did not install" >&2; exit 1; }
	done
fi
echo "$DIR"
