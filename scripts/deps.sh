#!/usr/bin/env bash
# deps.sh — stages 1 and 2 of `make test`: installs, if missing, what the
# tests use besides Go and MinIO (MinIO is scripts/minio.sh's):
#
#   Debian packages, with apt-get (as root, or through sudo):
#     python3  the Python client (clients/python), the example HTTP client
#              on it (examples/clients) and their tests
#     nodejs   Node 20, the reference the JavaScript compatibility corpus is
#              compared with (guest-sdk/js/compat_test.go), and the runtime
#              of the MCP programs below
#     npm      installs those programs
#     curl     scripts/minio.sh waits for its server with it; the docs' curl
#              examples (cmd/airlock/docs_examples_test.go)
#     jq       a docs example (examples/profiles/README.md)
#     chromium the headless browser the approval console's tests drive
#              (server/console, with chromedp); under CI=true they fail
#              without it
#   npm packages: the pinned ones of scripts/mcp-deps.sh, into
#     ${XDG_CACHE_HOME:-$HOME/.cache}/airlock/npm, and the benchmarks' peer,
#     bench/peer/package-lock.json, by scripts/peer-deps.sh into
#     ${XDG_CACHE_HOME:-$HOME/.cache}/airlock/peer, and the TypeScript
#     client's build and test tools, clients/typescript/package-lock.json,
#     by scripts/ts-client-deps.sh into
#     ${XDG_CACHE_HOME:-$HOME/.cache}/airlock/ts-client
#
# With TEST_STAGES set (make test sets it) the stage lines are numbered.
set -euo pipefail
cd "$(dirname "$0")/.."

# stage N TEXT: announces a stage as it starts.
stage() {
	local n=$1
	shift
	if [[ -n ${TEST_STAGES:-} ]]; then
		printf '==> [%s/%s] %s\n' "$n" "$TEST_STAGES" "$*" >&2
	else
		printf '==> %s\n' "$*" >&2
	fi
}

apt_install() {
	if [[ $(id -u) -eq 0 ]]; then
		apt-get update -qq && apt-get install -y -qq "$@" >/dev/null
	else
		sudo apt-get update -qq && sudo apt-get install -y -qq "$@" >/dev/null
	fi
}

stage 1 "installing system packages (python3, nodejs, npm, curl, jq, chromium) if missing"
missing=()
for tool in python3:python3 node:nodejs npm:npm curl:curl jq:jq chromium:chromium; do
	command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
done
if ((${#missing[@]} > 0)); then
	echo "deps.sh: apt-get install ${missing[*]}" >&2
	apt_install "${missing[@]}"
else
	echo "deps.sh: all present" >&2
fi
if [[ $(node --version) != v20.* ]]; then
	echo "deps.sh: node is $(node --version), the compatibility corpus compares with Node 20 (v20.x): put Node 20 first on PATH" >&2
fi

stage 2 "installing npm packages ($(scripts/mcp-deps.sh --list | tr '\n' ' ' | sed 's/ $//'), bench/peer's quickjs-emscripten, and clients/typescript's typescript and openapi-typescript) if missing"
dir=$(scripts/mcp-deps.sh)
echo "deps.sh: npm packages in $dir" >&2
dir=$(scripts/peer-deps.sh)
echo "deps.sh: the benchmarks' peer (bench/peer) in $dir" >&2
dir=$(scripts/ts-client-deps.sh)
echo "deps.sh: the TypeScript client's tools (clients/typescript) in $dir" >&2
