#!/usr/bin/env bash
# minio.sh — a throwaway MinIO server for airlock's tests and benchmarks.
#
#   scripts/minio.sh install          build the server binary into the cache if missing
#   scripts/minio.sh start            start a server on 127.0.0.1 (free port, fresh data dir)
#   scripts/minio.sh env              print `export AIRLOCK_S3_...` lines for the running server
#   scripts/minio.sh stop             stop the server (by PID) and remove its data dir
#   scripts/minio.sh run -- CMD...    start, run CMD with the env set, always stop;
#                                     exits with CMD's status
#
# The binary lives outside the repo, in ${XDG_CACHE_HOME:-$HOME/.cache}/airlock/bin
# (override with AIRLOCK_MINIO_BIN). MinIO is AGPL and huge: it is built with
# `go install` at a pinned pseudo-version and never enters go.mod.
#
# `install` and `start` are stages 3 and 4 of `make test`; with TEST_STAGES
# set (make test sets it) their stage lines are numbered.
#
# start/env/stop share a state file, ${XDG_CACHE_HOME:-$HOME/.cache}/airlock/minio.state
# by default (override with AIRLOCK_MINIO_STATE); `run` uses a private one, so
# several runs can go on at once.
set -euo pipefail

readonly MINIO_MODULE="github.com/minio/minio"
readonly MINIO_VERSION="v0.0.0-20260212201848-7aac2a2c5b7c"
readonly CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/airlock"
readonly BIN_DIR="$CACHE_DIR/bin"
readonly MINIO_BIN="${AIRLOCK_MINIO_BIN:-$BIN_DIR/minio}"
STATE_FILE="${AIRLOCK_MINIO_STATE:-$CACHE_DIR/minio.state}"
readonly START_TIMEOUT="${AIRLOCK_MINIO_START_TIMEOUT:-60}" # seconds
readonly BUCKET="${AIRLOCK_MINIO_BUCKET:-airlock-test}"

log() { printf 'minio.sh: %s\n' "$*" >&2; }

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
die() { log "$*"; exit 1; }

usage() {
	sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

cmd_install() {
	if [[ -x "$MINIO_BIN" ]]; then
		stage 3 "building MinIO: already built, $MINIO_BIN"
		return 0
	fi
	if [[ -n "${AIRLOCK_MINIO_BIN:-}" ]]; then
		die "AIRLOCK_MINIO_BIN=$AIRLOCK_MINIO_BIN is not an executable file"
	fi
	command -v go >/dev/null || die "go is not on PATH; it is needed to build MinIO"
	stage 3 "building MinIO $MINIO_VERSION from the Go module proxy into $BIN_DIR (cold: ~15 min on 2 busy cores, ~6 idle; it prints only 'go: downloading' lines meanwhile; cached afterwards)"
	mkdir -p "$BIN_DIR"
	local began=$SECONDS
	# Outside any module, so the repo's go.mod is never touched.
	(cd "$BIN_DIR" && GOBIN="$BIN_DIR" go install "$MINIO_MODULE@$MINIO_VERSION")
	[[ -x "$MINIO_BIN" ]] || die "go install finished but $MINIO_BIN is missing"
	log "built MinIO in $(((SECONDS - began) / 60))m$(((SECONDS - began) % 60))s"
}

# free_port prints a TCP port on 127.0.0.1 that nothing listens on.
free_port() {
	local port i
	for i in $(seq 1 50); do
		port=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return 0
		fi
	done
	die "no free port found"
}

random_hex() { od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; }

# is_live ADDR: the server answers its liveness probe, and its cluster
# probe (live comes a moment before the object layer serves requests).
is_live() {
	curl -fsS -o /dev/null --max-time 2 "http://$1/minio/health/live" 2>/dev/null &&
		curl -fsS -o /dev/null --max-time 5 "http://$1/minio/health/cluster" 2>/dev/null
}

# pid_is_minio PID: the process exists and is our MinIO (guards against a
# recycled PID).
pid_is_minio() {
	[[ -r "/proc/$1/cmdline" ]] && { tr '\0' ' ' <"/proc/$1/cmdline"; } 2>/dev/null | grep -q "minio server"
}

read_state() {
	[[ -f "$STATE_FILE" ]] || return 1
	# shellcheck disable=SC1090
	source "$STATE_FILE"
}

cmd_start() {
	if read_state && pid_is_minio "${MINIO_PID:-0}"; then
		die "a server from $STATE_FILE is running (pid $MINIO_PID); stop it first"
	fi
	cmd_install
	stage 4 "starting MinIO on 127.0.0.1 (a free port, a throwaway data directory, generated credentials)"
	command -v curl >/dev/null || die "curl is needed to wait for the server"
	mkdir -p "$(dirname "$STATE_FILE")"

	local dir port user pass addr pid deadline
	dir="$(mktemp -d "${TMPDIR:-/tmp}/airlock-minio.XXXXXX")"
	user="airlock-$(random_hex 4)"
	pass="$(random_hex 20)"
	for _ in 1 2 3; do
		port="$(free_port)"
		addr="127.0.0.1:$port"
		MINIO_ROOT_USER="$user" MINIO_ROOT_PASSWORD="$pass" MINIO_BROWSER=off MINIO_UPDATE=off \
			nohup "$MINIO_BIN" server --quiet --address "$addr" "$dir/data" </dev/null >"$dir/minio.log" 2>&1 &
		pid=$!
		deadline=$((SECONDS + START_TIMEOUT))
		while ((SECONDS < deadline)); do
			if is_live "$addr"; then
				(
					umask 077
					cat >"$STATE_FILE" <<-EOF
						MINIO_PID=$pid
						MINIO_DIR=$dir
						MINIO_ADDR=$addr
						MINIO_USER=$user
						MINIO_PASS=$pass
					EOF
				)
				log "MinIO pid $pid on $addr, data in $dir/data"
				return 0
			fi
			kill -0 "$pid" 2>/dev/null || break # died: maybe the port was taken
			sleep 0.1
		done
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		log "MinIO did not come up on $addr; log follows"
		tail -n 20 "$dir/minio.log" >&2 || true
	done
	rm -rf "$dir"
	die "could not start MinIO"
}

cmd_env() {
	read_state || die "no server state in $STATE_FILE; run: $0 start"
	cat <<-EOF
		export AIRLOCK_S3_ENDPOINT=$MINIO_ADDR
		export AIRLOCK_S3_BUCKET=$BUCKET
		export AIRLOCK_S3_ACCESS_KEY=$MINIO_USER
		export AIRLOCK_S3_SECRET_KEY=$MINIO_PASS
		export AIRLOCK_S3_USE_TLS=false
		export AIRLOCK_S3_REGION=us-east-1
	EOF
}

cmd_stop() {
	read_state || return 0
	if [[ -n "${MINIO_PID:-}" ]] && pid_is_minio "$MINIO_PID"; then
		kill "$MINIO_PID" 2>/dev/null || true
		local i
		for i in $(seq 1 100); do
			pid_is_minio "$MINIO_PID" || break
			sleep 0.1
		done
		if pid_is_minio "$MINIO_PID"; then
			kill -9 "$MINIO_PID" 2>/dev/null || true
		fi
	fi
	case "${MINIO_DIR:-}" in
	"${TMPDIR:-/tmp}"/airlock-minio.*) rm -rf "$MINIO_DIR" ;;
	"") ;;
	*) log "not removing unexpected data dir $MINIO_DIR" ;;
	esac
	rm -f "$STATE_FILE"
	log "stopped"
}

cmd_run() {
	[[ "${1:-}" == "--" ]] && shift
	(($# > 0)) || die "usage: $0 run -- CMD [ARGS...]"
	STATE_FILE="$(mktemp "${TMPDIR:-/tmp}/airlock-minio-state.XXXXXX")"
	rm -f "$STATE_FILE" # start refuses to clobber a live server; the name is ours
	trap 'cmd_stop' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	cmd_start
	eval "$(cmd_env)"
	local status=0
	"$@" || status=$?
	exit "$status"
}

main() {
	local cmd="${1:-}"
	(($# > 0)) && shift
	case "$cmd" in
	install) cmd_install ;;
	start) cmd_start ;;
	env) cmd_env ;;
	stop) cmd_stop ;;
	run) cmd_run "$@" ;;
	*) usage ;;
	esac
}

main "$@"
