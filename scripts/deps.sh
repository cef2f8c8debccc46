#!/usr/bin/env bash
# deps.sh — installs the system tools the tests use besides Go, if missing:
# python3 (the example HTTP client and its tests). MinIO is scripts/minio.sh's.
set -euo pipefail
if ! command -v python3 >/dev/null 2>&1; then
	echo "deps.sh: installing python3" >&2
	if [[ $(id -u) -eq 0 ]]; then
		apt-get update -qq && apt-get install -y -qq python3 >/dev/null
	else
		sudo apt-get update -qq && sudo apt-get install -y -qq python3 >/dev/null
	fi
fi
