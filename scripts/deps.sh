#!/usr/bin/env bash
# deps.sh — installs the system tools the tests use besides Go, if missing:
# python3 (the example HTTP client and its tests) and nodejs (the reference
# the JavaScript compatibility corpus is compared with, guest-sdk/js/compat_test.go,
# which wants Node 20). MinIO is scripts/minio.sh's.
set -euo pipefail
apt_install() {
	if [[ $(id -u) -eq 0 ]]; then
		apt-get update -qq && apt-get install -y -qq "$@" >/dev/null
	else
		sudo apt-get update -qq && sudo apt-get install -y -qq "$@" >/dev/null
	fi
}
if ! command -v python3 >/dev/null 2>&1; then
	echo "deps.sh: installing python3" >&2
	apt_install python3
fi
if ! command -v node >/dev/null 2>&1; then
	echo "deps.sh: installing nodejs" >&2
	apt_install nodejs
fi
if [[ $(node --version) != v20.* ]]; then
	echo "deps.sh: node is $(node --version), the compatibility corpus compares with Node 20 (v20.x): put Node 20 first on PATH" >&2
fi
if ! command -v npm >/dev/null 2>&1; then
	echo "deps.sh: installing npm" >&2
	apt_install npm
fi
scripts/mcp-deps.sh >/dev/null
